// Conversion output must be admissible in the target version: what the embedded API server
// serves (v1alpha1 from storage) and stores (v1beta1 from a v1alpha1 write) passes the same
// schema, CEL and semantic checks as a client's object would (validation/validate.ts).
import type { KubeObject } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { KIND_GROUPS, type KindName } from '../groups.ts';
import { validateObject } from '../validation/validate.ts';
import { convert } from './convert.ts';
import * as claimPoolFixtures from './fixtures-claims-pools.ts';
import * as fixtures from './fixtures.ts';

const objects: KubeObject[] = [
  ...fixtures.v1alpha1Sandboxes(),
  ...fixtures.v1beta1Sandboxes(),
  ...fixtures.v1alpha1Templates(),
  ...fixtures.v1beta1Templates(),
  ...claimPoolFixtures.v1alpha1Claims(),
  ...claimPoolFixtures.v1beta1Claims(),
  ...claimPoolFixtures.v1alpha1Pools(),
  ...claimPoolFixtures.v1beta1Pools(),
];

function otherVersion(obj: KubeObject): string {
  const group = KIND_GROUPS[obj.kind as KindName];
  return obj.apiVersion === `${group}/v1alpha1` ? `${group}/v1beta1` : `${group}/v1alpha1`;
}

// strictFields: false because one fixture deliberately carries fields neither version knows.
describe('converted objects pass admission in the target version', () => {
  it.each(objects.map((o) => [`${o.apiVersion} ${o.kind} ${o.metadata.name}`, o] as const))(
    '%s',
    (_title, obj) => {
      expect(validateObject(obj, { strictFields: false }).issues).toEqual([]);
      const converted = convert(obj, otherVersion(obj));
      expect(validateObject(converted, { strictFields: false }).issues).toEqual([]);
    },
  );
});
