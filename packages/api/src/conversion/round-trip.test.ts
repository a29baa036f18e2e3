// Round-trip properties over realistic objects and upstream's example manifests (read from
// ../shared/upstream/examples at test time, never copied): v1alpha1→v1beta1→v1alpha1 is exact;
// v1beta1→v1alpha1→v1beta1 is exact apart from the state annotation the hub keeps and the losses
// v1alpha1 has no field for (Sandbox status.nodeName, SandboxClaim volumeClaimTemplates,
// SandboxWarmPool status.observedGeneration: spec §3.4, §5.4, §6.2), and the
// v1beta1 schema defaults the v1alpha1 form makes explicit).
import type { KubeObject } from '@agent-sandbox/kube-types';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KIND_GROUPS, Kinds, type KindName } from '../groups.ts';
import { UPSTREAM_DIR, upstreamMissingReason } from '../testing/shared-dir.ts';
import * as keys from './annotations.ts';
import { convert } from './convert.ts';
import * as claimPoolFixtures from './fixtures-claims-pools.ts';
import * as fixtures from './fixtures.ts';
import { isJsonObject } from './state.ts';

const STATE_KEYS = new Set<string>([
  keys.V1ALPHA1_SANDBOX_STATE_ANNOTATION,
  keys.V1ALPHA1_SANDBOX_TEMPLATE_STATE_ANNOTATION,
  keys.V1ALPHA1_SANDBOX_CLAIM_STATE_ANNOTATION,
  keys.V1ALPHA1_SANDBOX_WARM_POOL_STATE_ANNOTATION,
]);

function alphaVersion(kind: KindName): string {
  return `${KIND_GROUPS[kind]}/v1alpha1`;
}
function betaVersion(kind: KindName): string {
  return `${KIND_GROUPS[kind]}/v1beta1`;
}

/** `obj` without its v1alpha1 state annotation (an emptied map dropped) and that state, parsed. */
function splitState(obj: KubeObject): { object: KubeObject; state: unknown } {
  const object = structuredClone(obj);
  const annotations = object.metadata.annotations ?? {};
  let state: unknown;
  for (const key of Object.keys(annotations)) {
    if (!STATE_KEYS.has(key)) continue;
    state = JSON.parse(annotations[key] ?? 'null');
    delete annotations[key];
  }
  if (object.metadata.annotations && Object.keys(annotations).length === 0) {
    delete object.metadata.annotations;
  }
  return { object, state };
}

/** What the spec says a v1beta1 object looks like after a trip through v1alpha1. */
function afterHubRoundTrip(kind: KindName, obj: KubeObject): KubeObject {
  const out = structuredClone(obj) as KubeObject & {
    spec: Record<string, unknown>;
    status?: Record<string, unknown>;
  };
  if (kind === Kinds.Sandbox) {
    out.spec['operatingMode'] ??= 'Running'; // §3.4: empty mode → replicas 1 → Running
    if (out.status) delete out.status['nodeName']; // §3.4: nodeName has no v1alpha1 field
  }
  if (kind === Kinds.SandboxClaim) delete out.spec['volumeClaimTemplates']; // §5.4: dropped
  if (kind === Kinds.SandboxWarmPool) {
    out.spec['replicas'] ??= 1; // §6.2: nil → 1
    if (out.status) delete out.status['observedGeneration']; // §6.2: no v1alpha1 field
  }
  return out;
}

function expectAlphaRoundTrip(kind: KindName, original: KubeObject): void {
  const stored = convert(original, betaVersion(kind));
  expect(stored.apiVersion).toBe(betaVersion(kind));
  const served = convert(stored, alphaVersion(kind));
  expect(served).toEqual(original);
  // Reading it back again must not change the stored form either (state included).
  const restored = splitState(convert(served, betaVersion(kind)));
  expect(restored.object).toEqual(splitState(stored).object);
  expect(restored.state).toEqual(splitState(stored).state);
}

function expectHubRoundTrip(kind: KindName, original: KubeObject): void {
  const served = convert(original, alphaVersion(kind));
  expect(served.apiVersion).toBe(alphaVersion(kind));
  const stored = splitState(convert(served, betaVersion(kind)));
  expect(stored.object).toEqual(afterHubRoundTrip(kind, splitState(original).object));
  expect(stored.state).toEqual(served);
}

const alphaFixtures: [KindName, KubeObject[]][] = [
  [Kinds.Sandbox, fixtures.v1alpha1Sandboxes()],
  [Kinds.SandboxTemplate, fixtures.v1alpha1Templates()],
  [Kinds.SandboxClaim, claimPoolFixtures.v1alpha1Claims()],
  [Kinds.SandboxWarmPool, claimPoolFixtures.v1alpha1Pools()],
];
const betaFixtures: [KindName, KubeObject[]][] = [
  [Kinds.Sandbox, fixtures.v1beta1Sandboxes()],
  [Kinds.SandboxTemplate, fixtures.v1beta1Templates()],
  [Kinds.SandboxClaim, claimPoolFixtures.v1beta1Claims()],
  [Kinds.SandboxWarmPool, claimPoolFixtures.v1beta1Pools()],
];

describe('v1alpha1 → v1beta1 → v1alpha1 is exact', () => {
  for (const [kind, objects] of alphaFixtures) {
    for (const obj of objects) {
      it(`${kind} ${obj.metadata.name}`, () =>
        expectAlphaRoundTrip(kind, fixtures.deepFreeze(obj)));
    }
  }
});

describe('v1beta1 → v1alpha1 → v1beta1 is exact modulo the state annotation', () => {
  for (const [kind, objects] of betaFixtures) {
    for (const obj of objects) {
      it(`${kind} ${obj.metadata.name}`, () => {
        const original = fixtures.deepFreeze(obj);
        expect(afterHubRoundTrip(kind, original)).toEqual(original); // no documented loss applies
        expectHubRoundTrip(kind, original);
      });
    }
  }
  // A hub object last written through v1alpha1 carries a state; it must survive a v1beta1 read.
  for (const [kind, objects] of alphaFixtures) {
    for (const obj of objects) {
      it(`${kind} ${obj.metadata.name} stored through v1alpha1`, () => {
        expectHubRoundTrip(kind, fixtures.deepFreeze(convert(obj, betaVersion(kind))));
      });
    }
  }
});

describe('documented losses on v1beta1 → v1alpha1 → v1beta1', () => {
  const hubRunning = fixtures.v1beta1Sandboxes()[0];
  const hubPool = claimPoolFixtures.v1beta1Pools()[0];
  const hubClaim = claimPoolFixtures.v1beta1Claims()[0];
  it.each([
    [
      'Sandbox status.nodeName is dropped (§3.4)',
      Kinds.Sandbox,
      { ...hubRunning, status: { nodeName: 'node-7' } },
    ],
    [
      'Sandbox without operatingMode comes back Running (§3.4)',
      Kinds.Sandbox,
      { ...hubRunning, spec: { podTemplate: { spec: { containers: [] } } } },
    ],
    [
      'SandboxClaim volumeClaimTemplates are dropped (§5.4)',
      Kinds.SandboxClaim,
      { ...hubClaim, spec: { warmPoolRef: { name: 'p' }, volumeClaimTemplates: [{ spec: {} }] } },
    ],
    [
      'SandboxWarmPool nil replicas comes back 1 (§6.2)',
      Kinds.SandboxWarmPool,
      { ...hubPool, spec: { sandboxTemplateRef: { name: 't' } } },
    ],
    [
      'SandboxWarmPool status.observedGeneration is dropped (§6.2)',
      Kinds.SandboxWarmPool,
      { ...hubPool, status: { observedGeneration: 4 } },
    ],
  ] as const)('%s', (_title, kind, obj) => {
    const original = fixtures.deepFreeze(obj as KubeObject);
    expect(afterHubRoundTrip(kind, original)).not.toEqual(original);
    expectHubRoundTrip(kind, original);
  });
});

/** Our kinds among upstream's example manifests, as [file, kind, object]. */
function upstreamExamples(): [string, KindName, KubeObject][] {
  const found: [string, KindName, KubeObject][] = [];
  for (const file of readdirSync(`${UPSTREAM_DIR}/examples`).sort()) {
    const text = readFileSync(`${UPSTREAM_DIR}/examples/${file}`, 'utf8');
    for (const doc of parseAllDocuments(text)) {
      const obj: unknown = doc.toJSON();
      if (!isJsonObject(obj) || typeof obj['kind'] !== 'string') continue;
      const kind = Object.values(Kinds).find((k) => k === obj['kind']);
      if (kind !== undefined) found.push([file, kind, obj as unknown as KubeObject]);
    }
  }
  return found;
}

const missing = upstreamMissingReason();
if (missing) console.warn(`skipping round trips over upstream examples: ${missing}`);

describe.skipIf(missing !== undefined)('upstream example manifests', () => {
  const examples = missing === undefined ? upstreamExamples() : [];
  it('has examples of every kind', () => {
    expect(new Set(examples.map(([, kind]) => kind))).toEqual(new Set(Object.values(Kinds)));
  });
  for (const [file, kind, obj] of examples) {
    it(`${file} ${kind} ${obj.metadata.name}: v1beta1 round trip (modulo documented losses) and its v1alpha1 form round trip`, () => {
      const original = fixtures.deepFreeze(obj);
      expectHubRoundTrip(kind, original);
      expectAlphaRoundTrip(kind, fixtures.deepFreeze(convert(original, alphaVersion(kind))));
    });
  }
});
