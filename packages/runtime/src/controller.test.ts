import { CONFIG_MAPS } from '@agent-sandbox/kube';
import { describe, expect, it } from 'vitest';
import { Controller, ownerRequests } from './controller.ts';
import { RuntimeError } from './errors.ts';

const SANDBOXES = {
  group: 'agents.x-k8s.io',
  version: 'v1beta1',
  plural: 'sandboxes',
  kind: 'Sandbox',
  namespaced: true,
};

describe('ownerRequests', () => {
  it('maps only a controller reference of the primary kind and group', () => {
    const pod = {
      metadata: {
        name: 'pod',
        namespace: 'ns',
        ownerReferences: [
          {
            apiVersion: 'agents.x-k8s.io/v1beta1',
            kind: 'Sandbox',
            name: 'sb',
            uid: '1',
            controller: true,
          },
          { apiVersion: 'agents.x-k8s.io/v1alpha1', kind: 'Sandbox', name: 'other', uid: '2' },
          { apiVersion: 'other.io/v1', kind: 'Sandbox', name: 'x', uid: '3', controller: true },
        ],
      },
    };
    expect(ownerRequests(pod, SANDBOXES)).toEqual([{ namespace: 'ns', name: 'sb' }]);
    expect(ownerRequests({ metadata: { name: 'free' } }, SANDBOXES)).toEqual([]);
  });
});

describe('Controller options', () => {
  const reconciler = { reconcile: async () => undefined };
  it('validates eagerly with the fix in the message', () => {
    expect(() => new Controller({ name: 'Bad_Name', for: CONFIG_MAPS, reconciler })).toThrow(
      /kebab-case/,
    );
    expect(
      () => new Controller({ name: 'ok', for: CONFIG_MAPS, reconciler, concurrency: 0 }),
    ).toThrow(RuntimeError);
    expect(
      new Controller({ name: 'ok', for: SANDBOXES, owns: [CONFIG_MAPS], reconciler }).resources,
    ).toEqual([SANDBOXES, CONFIG_MAPS]);
  });
});
