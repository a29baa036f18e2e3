// Malformed objects are refused with the field path and reason kube-apiserver would give.
import type { CauseType } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { validateObject } from './validate.ts';

type Obj = Record<string, unknown>;

const sandbox = (spec: Obj = {}, extra: Obj = {}): Obj => ({
  apiVersion: 'agents.x-k8s.io/v1beta1',
  kind: 'Sandbox',
  metadata: { name: 'sb', namespace: 'default' },
  spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } }, ...spec },
  ...extra,
});
const sandboxV1alpha1 = (spec: Obj): Obj => ({
  ...sandbox(spec),
  apiVersion: 'agents.x-k8s.io/v1alpha1',
});
const template = (spec: Obj): Obj => ({
  apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
  kind: 'SandboxTemplate',
  metadata: { name: 'tpl' },
  spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } }, ...spec },
});
const claim = (spec: Obj): Obj => ({
  apiVersion: 'extensions.agents.x-k8s.io/v1beta1',
  kind: 'SandboxClaim',
  metadata: { name: 'c' },
  spec: { warmPoolRef: { name: 'pool' }, ...spec },
});
const pool = (spec: Obj, apiVersion = 'extensions.agents.x-k8s.io/v1beta1'): Obj => ({
  apiVersion,
  kind: 'SandboxWarmPool',
  metadata: { name: 'pool' },
  spec: { sandboxTemplateRef: { name: 'tpl' }, ...spec },
});
const vct = (name: string | undefined, size = '1Gi'): Obj => ({
  metadata: name === undefined ? {} : { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } },
});

interface Case {
  name: string;
  object: Obj;
  old?: Obj;
  field: string;
  type: CauseType;
  /** A fragment of the cause message that must appear. */
  message?: string;
}

const cases: Case[] = [
  // required fields
  {
    name: 'sandbox without podTemplate',
    object: { ...sandbox(), spec: {} },
    field: 'spec.podTemplate',
    type: 'FieldValueRequired',
  },
  {
    name: 'container without name',
    object: sandbox({ podTemplate: { spec: { containers: [{ image: 'busybox' }] } } }),
    field: 'spec.podTemplate.spec.containers[0].name',
    type: 'FieldValueRequired',
  },
  {
    name: 'sandbox with no containers',
    object: sandbox({ podTemplate: { spec: { containers: [] } } }),
    field: 'spec.podTemplate.spec.containers',
    type: 'FieldValueRequired',
  },
  {
    name: 'claim without warmPoolRef',
    object: { ...claim({}), spec: {} },
    field: 'spec.warmPoolRef',
    type: 'FieldValueRequired',
  },
  {
    name: 'claim warmPoolRef without name',
    object: claim({ warmPoolRef: {} }),
    field: 'spec.warmPoolRef.name',
    type: 'FieldValueRequired',
  },
  {
    name: 'pool without sandboxTemplateRef',
    object: { ...pool({}), spec: { replicas: 1 } },
    field: 'spec.sandboxTemplateRef',
    type: 'FieldValueRequired',
  },
  {
    name: 'v1alpha1 pool without replicas',
    object: pool({}, 'extensions.agents.x-k8s.io/v1alpha1'),
    field: 'spec.replicas',
    type: 'FieldValueRequired',
  },
  {
    name: 'object without a name',
    object: { ...sandbox(), metadata: { namespace: 'default' } },
    field: 'metadata.name',
    type: 'FieldValueRequired',
    message: 'name or generateName is required',
  },
  {
    name: 'document without kind',
    object: { apiVersion: 'agents.x-k8s.io/v1beta1', metadata: { name: 'x' } },
    field: 'kind',
    type: 'FieldValueRequired',
  },
  // wrong types
  {
    name: 'service as a string',
    object: sandbox({ service: 'yes' }),
    field: 'spec.service',
    type: 'FieldValueTypeInvalid',
    message: 'must be of type boolean',
  },
  {
    name: 'replicas as a string',
    object: pool({ replicas: '3' }),
    field: 'spec.replicas',
    type: 'FieldValueTypeInvalid',
    message: 'must be of type integer',
  },
  {
    name: 'containers as an object',
    object: sandbox({ podTemplate: { spec: { containers: { name: 'main' } } } }),
    field: 'spec.podTemplate.spec.containers',
    type: 'FieldValueTypeInvalid',
    message: 'must be of type array',
  },
  {
    name: 'labels with a number value',
    object: sandbox({
      podTemplate: { metadata: { labels: { a: 1 } }, spec: { containers: [{ name: 'main' }] } },
    }),
    field: 'spec.podTemplate.metadata.labels.a',
    type: 'FieldValueTypeInvalid',
    message: 'must be of type string',
  },
  // unknown enum values
  {
    name: 'unknown operatingMode',
    object: sandbox({ operatingMode: 'Paused' }),
    field: 'spec.operatingMode',
    type: 'FieldValueNotSupported',
    message: 'supported values: "Running", "Suspended"',
  },
  {
    name: 'unknown shutdownPolicy',
    object: sandbox({ shutdownPolicy: 'Keep' }),
    field: 'spec.shutdownPolicy',
    type: 'FieldValueNotSupported',
    message: '"Delete", "Retain"',
  },
  {
    name: 'unknown claim shutdownPolicy',
    object: claim({ lifecycle: { shutdownPolicy: 'Later' } }),
    field: 'spec.lifecycle.shutdownPolicy',
    type: 'FieldValueNotSupported',
    message: '"Delete", "DeleteForeground", "Retain"',
  },
  {
    name: 'unknown envVarsInjectionPolicy',
    object: template({ envVarsInjectionPolicy: 'Sometimes' }),
    field: 'spec.envVarsInjectionPolicy',
    type: 'FieldValueNotSupported',
  },
  {
    name: 'unknown updateStrategy',
    object: pool({ updateStrategy: { type: 'Rolling' } }),
    field: 'spec.updateStrategy.type',
    type: 'FieldValueNotSupported',
  },
  {
    name: 'unknown condition status',
    object: sandbox(
      {},
      {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'Maybe',
              reason: 'X',
              message: '',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        },
      },
    ),
    field: 'status.conditions[0].status',
    type: 'FieldValueNotSupported',
  },
  // out of range
  {
    name: 'pool replicas below zero',
    object: pool({ replicas: -1 }),
    field: 'spec.replicas',
    type: 'FieldValueInvalid',
    message: 'should be greater than or equal to 0',
  },
  {
    name: 'v1alpha1 sandbox replicas above one',
    object: sandboxV1alpha1({ replicas: 2 }),
    field: 'spec.replicas',
    type: 'FieldValueInvalid',
    message: 'should be less than or equal to 1',
  },
  {
    name: 'v1alpha1 sandbox replicas below zero',
    object: sandboxV1alpha1({ replicas: -1 }),
    field: 'spec.replicas',
    type: 'FieldValueInvalid',
    message: 'should be greater than or equal to 0',
  },
  {
    name: 'containerPort beyond int32',
    object: sandbox({
      podTemplate: {
        spec: {
          containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 2 ** 32 }] }],
        },
      },
    }),
    field: '<nil>',
    type: 'FieldValueInvalid',
    message:
      'Invalid value: "": Checked value must be of type integer with format int32 in spec.podTemplate.spec.containers[0].ports[0].containerPort',
  },
  {
    name: 'negative ttlSecondsAfterFinished',
    object: claim({ lifecycle: { ttlSecondsAfterFinished: -5 } }),
    field: 'spec.lifecycle.ttlSecondsAfterFinished',
    type: 'FieldValueInvalid',
  },
  // bad date-times
  {
    name: 'shutdownTime not a date-time',
    object: sandbox({ shutdownTime: 'tomorrow' }),
    field: 'spec.shutdownTime',
    type: 'FieldValueTypeInvalid',
    message: 'must be of type date-time',
  },
  {
    name: 'claim shutdownTime without zone',
    object: claim({ lifecycle: { shutdownTime: '2026-13-01T00:00:00' } }),
    field: 'spec.lifecycle.shutdownTime',
    type: 'FieldValueTypeInvalid',
    message: 'must be of type date-time',
  },
  // volumeClaimTemplates
  {
    name: 'changed volumeClaimTemplates on update',
    object: sandbox({ volumeClaimTemplates: [vct('data', '2Gi')] }),
    old: sandbox({ volumeClaimTemplates: [vct('data', '1Gi')] }),
    field: 'spec',
    type: 'FieldValueInvalid',
    // kube 1.36 omits an object's value from a CEL rule's error
    message: 'Invalid value: volumeClaimTemplates is immutable',
  },
  {
    name: 'volumeClaimTemplates added on update',
    object: sandbox({ volumeClaimTemplates: [vct('data')] }),
    old: sandbox(),
    field: 'spec',
    type: 'FieldValueInvalid',
    // kube 1.36 omits an object's value from a CEL rule's error
    message: 'Invalid value: volumeClaimTemplates is immutable',
  },
  {
    name: 'volume claim template without a name',
    object: sandbox({ volumeClaimTemplates: [vct(undefined)] }),
    field: 'spec.volumeClaimTemplates[0].metadata.name',
    type: 'FieldValueRequired',
  },
  {
    name: 'duplicate volume claim template names',
    object: template({ volumeClaimTemplates: [vct('data'), vct('data')] }),
    field: 'spec.volumeClaimTemplates[1].metadata.name',
    type: 'FieldValueDuplicate',
  },
  // claim env entries
  {
    name: 'claim env without value',
    object: claim({ env: [{ name: 'A' }] }),
    field: 'spec.env[0].value',
    type: 'FieldValueRequired',
  },
  {
    name: 'claim env without name',
    object: claim({ env: [{ value: 'x' }] }),
    field: 'spec.env[0].name',
    type: 'FieldValueRequired',
  },
  {
    name: 'claim env with an empty name',
    object: claim({ env: [{ name: '', value: 'x' }] }),
    field: 'spec.env[0].name',
    type: 'FieldValueRequired',
  },
  {
    name: 'claim env name with =',
    object: claim({ env: [{ name: 'A=B', value: 'x' }] }),
    field: 'spec.env[0].name',
    type: 'FieldValueInvalid',
    message: "other than '='",
  },
  {
    name: 'claim env set twice for one container',
    object: claim({
      env: [
        { name: 'A', value: '1' },
        { name: 'A', value: '2' },
      ],
    }),
    field: 'spec.env[1].name',
    type: 'FieldValueDuplicate',
  },
  {
    name: 'claim env value not a string',
    object: claim({ env: [{ name: 'A', value: 3 }] }),
    field: 'spec.env[0].value',
    type: 'FieldValueTypeInvalid',
  },
  // additionalPodMetadata (spec §12.6)
  {
    name: 'claim label without a domain',
    object: claim({ additionalPodMetadata: { labels: { team: 'a' } } }),
    field: 'spec.additionalPodMetadata.labels[team]',
    type: 'FieldValueInvalid',
    message: 'must have a domain prefix',
  },
  {
    name: 'claim label outside the allowed domains',
    object: claim({ additionalPodMetadata: { labels: { 'evil.io/x': 'a' } } }),
    field: 'spec.additionalPodMetadata.labels[evil.io/x]',
    type: 'FieldValueInvalid',
    message: 'label domain "evil.io" is not in the allowlist',
  },
  {
    name: 'claim annotation in a system domain',
    object: claim({ additionalPodMetadata: { annotations: { 'kubernetes.io/x': 'a' } } }),
    field: 'spec.additionalPodMetadata.annotations[kubernetes.io/x]',
    type: 'FieldValueInvalid',
    message: 'restricted system domain',
  },
  // names, kinds, versions, unknown fields
  {
    name: 'name with upper case',
    object: { ...sandbox(), metadata: { name: 'Bad_Name' } },
    field: 'metadata.name',
    type: 'FieldValueInvalid',
    message: 'lowercase RFC 1123 subdomain',
  },
  {
    name: 'bad label key',
    object: { ...sandbox(), metadata: { name: 'sb', labels: { 'a/b/c': 'x' } } },
    field: 'metadata.labels',
    type: 'FieldValueInvalid',
  },
  {
    name: 'unknown kind',
    object: { ...sandbox(), kind: 'Sandboxx' },
    field: 'kind',
    type: 'FieldValueInvalid',
    message: 'unknown kind',
  },
  {
    name: 'unsupported version',
    object: { ...sandbox(), apiVersion: 'agents.x-k8s.io/v2' },
    field: 'apiVersion',
    type: 'FieldValueNotSupported',
    message: '"agents.x-k8s.io/v1beta1", "agents.x-k8s.io/v1alpha1"',
  },
  {
    name: 'kind in the wrong group',
    object: { ...claim({}), apiVersion: 'agents.x-k8s.io/v1beta1' },
    field: 'apiVersion',
    type: 'FieldValueNotSupported',
  },
  {
    name: 'unknown field',
    object: sandbox({ replicas: 1 }),
    field: 'spec.replicas',
    type: 'FieldValueNotFound',
    message: 'unknown field',
  },
];

describe('malformed objects are refused with the right field path', () => {
  it.each(cases)('$name → $field', ({ object, old, field, type, message }) => {
    const result = validateObject(object, old ? { old } : {});
    const hit = result.issues.find((i) => i.field === field && i.type === type);
    expect(hit, `issues were: ${JSON.stringify(result.issues, null, 1)}`).toBeDefined();
    if (message) expect(hit?.message).toContain(message);
  });

  it('accepts the valid base objects, with defaults applied', () => {
    for (const obj of [sandbox(), sandboxV1alpha1({}), template({}), claim({}), pool({})]) {
      const result = validateObject(obj);
      expect(result.issues, result.ref).toEqual([]);
    }
    const defaulted = validateObject(
      sandbox({
        podTemplate: { spec: { containers: [{ name: 'm', ports: [{ containerPort: 80 }] }] } },
      }),
    );
    expect(defaulted.object?.['spec' as keyof typeof defaulted.object]).toMatchObject({
      operatingMode: 'Running',
      shutdownPolicy: 'Retain',
      podTemplate: { spec: { containers: [{ ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
    });
  });

  it('leaves an unchanged volumeClaimTemplates list alone on update', () => {
    const obj = sandbox({ volumeClaimTemplates: [vct('data')] });
    expect(validateObject(obj, { old: obj }).issues).toEqual([]);
  });

  it('warns that v1alpha1 is deprecated', () => {
    expect(validateObject(sandboxV1alpha1({})).warnings).toEqual([
      'agents.x-k8s.io/v1alpha1 Sandbox is deprecated; use agents.x-k8s.io/v1beta1 Sandbox instead',
    ]);
  });

  it('lets a configured label domain through', () => {
    const obj = claim({ additionalPodMetadata: { labels: { 'team.example.com/owner': 'a' } } });
    expect(validateObject(obj).issues).toHaveLength(1);
    expect(validateObject(obj, { allowedLabelDomains: ['example.com'] }).issues).toEqual([]);
  });

  it('checks the built-in kinds upstream examples mix in', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 1 } };
    expect(validateObject(cm).issues.map((i) => i.field)).toEqual(['data.a']);
  });
});
