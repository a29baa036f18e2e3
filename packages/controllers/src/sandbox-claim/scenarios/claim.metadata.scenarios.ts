// Spec §21.3 TestSandboxClaimReconcile, the additionalPodMetadata rules of §12.6 beyond the
// domain prefix (claim.scenarios.ts has that one): each rejected key ends in InvalidMetadata with
// upstream's message and no Sandbox; the safe-to-evict annotation and a label in a configured
// allowed domain (or a subdomain of it) reach the Sandbox's Pod template. This world's controller
// allows the label domain corp.io only, which replaces the default sandbox.users.io. A bound
// claim whose template is gone keeps its binding while it reports the failed lookup.
import { Annotations } from '@agent-sandbox/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTarget } from '../../testing/target.ts';
import {
  SANDBOX_CLAIMS,
  SANDBOX_TEMPLATES,
  type ClaimObject,
  type SandboxObj,
} from '../../extensions/resources.ts';
import { SANDBOXES } from '../../sandbox/child-writes.ts';
import {
  createClaim,
  createPool,
  createTemplate,
  newClaim,
  newPool,
  newTemplate,
  readyCondition,
  where,
} from '../../testing/extensions.ts';
import { eventually, gone, openScenarioWorld, type ScenarioWorld } from '../../testing/harness.ts';

type Metadata = NonNullable<ClaimObject['spec']['additionalPodMetadata']>;

const VALUE_PATTERN =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const PREFIX_PATTERN =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** Each rejected additionalPodMetadata with the condition message upstream writes for it. */
const REJECTED: [string, Metadata, string][] = [
  [
    'too-long',
    { labels: { 'corp.io/team': 'a'.repeat(64) } },
    `failed to validate label "corp.io/team": invalid label value: "${'a'.repeat(64)}" does not match allowed pattern: must be no more than 63 characters`,
  ],
  [
    'bad-value',
    { labels: { 'corp.io/team': 'a b' } },
    `failed to validate label "corp.io/team": invalid label value: "a b" does not match allowed pattern: ${VALUE_PATTERN}`,
  ],
  [
    'bad-key',
    { labels: { 'Corp_IO/team': 'a' } },
    `failed to validate label "Corp_IO/team": invalid label key: "Corp_IO/team": ${PREFIX_PATTERN}`,
  ],
  [
    'not-allowed',
    { labels: { 'sandbox.users.io/team': 'a' } },
    'failed to validate label "sandbox.users.io/team": label domain "sandbox.users.io" is not in the allowlist',
  ],
  [
    'restricted',
    { annotations: { 'agents.x-k8s.io/pod-name': 'other' } },
    'failed to validate annotation "agents.x-k8s.io/pod-name": restricted system domain: "agents.x-k8s.io/pod-name" is not allowed in AdditionalPodMetadata',
  ],
  [
    'restricted-sub',
    { annotations: { 'node.kubernetes.io/x': 'y' } },
    'failed to validate annotation "node.kubernetes.io/x": restricted system domain: "node.kubernetes.io/x" is not allowed in AdditionalPodMetadata',
  ],
  [
    'router-spoof',
    { labels: { App: 'Sandbox-Router' } },
    'failed to validate label "App": restricted system label value: "App"="Sandbox-Router" is not allowed in AdditionalPodMetadata',
  ],
];

export function defineClaimMetadataScenarios(target: TestTarget): void {
  describe(`SandboxClaim additionalPodMetadata (${target})`, () => {
    let world: ScenarioWorld;
    beforeAll(async () => {
      world = await openScenarioWorld(target, { extensions: { allowedLabelDomains: ['corp.io'] } });
      await createTemplate(world, newTemplate(world.ns, 'tpl'));
      await createPool(world, newPool(world.ns, 'cold', 'tpl', { replicas: 0 }));
    });
    afterAll(async () => {
      await world?.close();
    });

    describe.concurrent('TestSandboxClaimReconcile', () => {
      for (const [name, metadata, message] of REJECTED) {
        it(`TestSandboxClaimReconcile: additionalPodMetadata ${name} → InvalidMetadata, no Sandbox`, async () => {
          await createClaim(
            world,
            newClaim(world.ns, `meta-${name}`, 'cold', { additionalPodMetadata: metadata }),
          );
          const c = await where<ClaimObject>(
            world,
            SANDBOX_CLAIMS,
            `meta-${name}`,
            (o) => readyCondition(o)?.reason === 'InvalidMetadata',
            60_000,
          );
          expect(readyCondition(c)).toMatchObject({
            status: 'False',
            message: `invalid additionalPodMetadata: ${message}`,
          });
          expect(await gone(world.client, SANDBOXES, world.ns, `meta-${name}`)).toBe(true);
        });
      }

      it('TestSandboxClaimReconcile: the safe-to-evict annotation and labels in a configured allowed domain or its subdomain are accepted', async () => {
        await createClaim(
          world,
          newClaim(world.ns, 'meta-ok', 'cold', {
            additionalPodMetadata: {
              labels: { 'corp.io/team': 'a', 'eu.corp.io/site': 'b' },
              annotations: { [Annotations.SafeToEvict]: 'false', note: 'x' },
            },
          }),
        );
        const s = await where<SandboxObj>(world, SANDBOXES, 'meta-ok', () => true, 60_000);
        expect(s.spec.podTemplate.metadata?.labels).toMatchObject({
          'corp.io/team': 'a',
          'eu.corp.io/site': 'b',
        });
        expect(s.spec.podTemplate.metadata?.annotations).toMatchObject({
          [Annotations.SafeToEvict]: 'false',
          note: 'x',
        });
      });

      it('TestSandboxClaimReconcile_TransientLookupErrorPreservesStatus: a bound claim whose template lookup fails (the template deleted, its additionalPodMetadata still to propagate) reports the error and keeps its binding', async () => {
        await createTemplate(world, newTemplate(world.ns, 'tpl-lost'));
        await createPool(world, newPool(world.ns, 'lost', 'tpl-lost', { replicas: 0 }));
        await createClaim(
          world,
          newClaim(world.ns, 'meta-lost', 'lost', {
            additionalPodMetadata: { labels: { 'corp.io/team': 'a' } },
          }),
        );
        const ready = (c: ClaimObject): boolean =>
          readyCondition(c)?.status === 'True' && c.status?.sandbox?.name === 'meta-lost';
        await where<ClaimObject>(world, SANDBOX_CLAIMS, 'meta-lost', ready, 60_000);
        await world.client.delete(SANDBOX_TEMPLATES, world.ns, 'tpl-lost');
        const templates = world.controller.manager.getInformer(SANDBOX_TEMPLATES).cache;
        await eventually(() =>
          templates.get(`${world.ns}/tpl-lost`) === undefined ? true : undefined,
        );
        // A template deletion wakes no claim: the claim's next pass is its own event's.
        await world.client.patch(SANDBOX_CLAIMS, world.ns, 'meta-lost', {
          type: 'merge',
          body: { metadata: { annotations: { 'test.agent-sandbox.dev/poke': 'x' } } },
        });
        const c = await where<ClaimObject>(
          world,
          SANDBOX_CLAIMS,
          'meta-lost',
          (o) => readyCondition(o)?.reason === 'ReconcilerError',
          60_000,
        );
        expect(readyCondition(c)).toMatchObject({
          status: 'False',
          message:
            'Error seen: failed to get template for metadata propagation: SandboxTemplate "tpl-lost" not found',
        });
        expect(c.status?.sandbox?.name).toBe('meta-lost');
        const sandbox = await world.client.get<SandboxObj>(SANDBOXES, world.ns, 'meta-lost');
        expect(sandbox.metadata.deletionTimestamp).toBeUndefined();
      });
    });
  });
}
