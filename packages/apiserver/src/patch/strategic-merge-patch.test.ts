import { describe, expect, it } from 'vitest';
import { PatchError, patchErrorToStatus } from './errors.ts';
import { builtinMergeSchema, crdMergeSchema, type MergeSchema } from './merge-schema.ts';
import { applyStrategicMergePatch } from './strategic-merge-patch.ts';

// Expected results follow k8s.io/apimachinery/pkg/util/strategicpatch as kube-apiserver runs it
// (MergeParallelList, IgnoreUnmatchedNulls); orders follow its normalizeElementOrder, under which
// items new to a list without `$setElementOrder` land before the server-only items.
const pod = builtinMergeSchema('io.k8s.api.core.v1.Pod');
const service = builtinMergeSchema('io.k8s.api.core.v1.Service');

const c = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  image: `${name}:1`,
  ...extra,
});
const spec = (s: Record<string, unknown>) => ({ spec: s });

const cases: {
  name: string;
  schema?: MergeSchema;
  original: unknown;
  patch: unknown;
  result: unknown;
}[] = [
  {
    name: 'containers merge by name',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({ containers: [{ name: 'b', image: 'b:2' }] }),
    result: spec({ containers: [c('a'), { name: 'b', image: 'b:2' }] }),
  },
  {
    name: 'new container without $setElementOrder goes first',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({ containers: [c('c')] }),
    result: spec({ containers: [c('c'), c('a'), c('b')] }),
  },
  {
    name: '$setElementOrder orders the merged list',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({
      '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }, { name: 'c' }],
      containers: [c('c')],
    }),
    result: spec({ containers: [c('b'), c('a'), c('c')] }),
  },
  {
    name: 'env merges by name inside a container',
    original: spec({
      containers: [
        c('a', {
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '2' },
          ],
        }),
      ],
    }),
    patch: spec({ containers: [{ name: 'a', env: [{ name: 'Y', value: '3' }] }] }),
    result: spec({
      containers: [
        c('a', {
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '3' },
          ],
        }),
      ],
    }),
  },
  {
    name: 'ports merge by containerPort',
    original: spec({
      containers: [c('a', { ports: [{ containerPort: 80 }, { containerPort: 443 }] })],
    }),
    patch: spec({ containers: [{ name: 'a', ports: [{ containerPort: 80, name: 'http' }] }] }),
    result: spec({
      containers: [
        c('a', { ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] }),
      ],
    }),
  },
  {
    name: 'volumes merge by name',
    original: spec({ volumes: [{ name: 'v1', emptyDir: {} }] }),
    patch: spec({ volumes: [{ name: 'v1', emptyDir: { medium: 'Memory' } }] }),
    result: spec({ volumes: [{ name: 'v1', emptyDir: { medium: 'Memory' } }] }),
  },
  {
    name: '$retainKeys switches a volume source',
    original: spec({ volumes: [{ name: 'v1', emptyDir: {} }] }),
    patch: spec({
      volumes: [{ name: 'v1', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }],
    }),
    result: spec({ volumes: [{ name: 'v1', configMap: { name: 'cm' } }] }),
  },
  {
    name: '$patch: delete removes a list item by merge key',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({ containers: [{ name: 'a', $patch: 'delete' }] }),
    result: spec({ containers: [c('b')] }),
  },
  {
    name: '$patch: replace in a list replaces the list',
    original: spec({ containers: [c('a'), c('b')] }),
    patch: spec({ containers: [c('z'), { $patch: 'replace' }] }),
    result: spec({ containers: [c('z')] }),
  },
  {
    name: '$patch: replace in a map replaces the map',
    original: { metadata: { labels: { a: '1', b: '2' } } },
    patch: { metadata: { labels: { $patch: 'replace', c: '3' } } },
    result: { metadata: { labels: { c: '3' } } },
  },
  {
    name: '$patch: delete in a map empties it',
    original: spec({ nodeSelector: { a: '1' }, restartPolicy: 'Always' }),
    patch: spec({ nodeSelector: { $patch: 'delete' } }),
    result: spec({ nodeSelector: {}, restartPolicy: 'Always' }),
  },
  {
    name: 'finalizers merge as a set, live order kept',
    original: { metadata: { finalizers: ['a', 'b'] } },
    patch: { metadata: { finalizers: ['b', 'c'] } },
    result: { metadata: { finalizers: ['a', 'b', 'c'] } },
  },
  {
    name: 'a new finalizer alone goes first',
    original: { metadata: { finalizers: ['a', 'b'] } },
    patch: { metadata: { finalizers: ['c'] } },
    result: { metadata: { finalizers: ['c', 'a', 'b'] } },
  },
  {
    name: '$deleteFromPrimitiveList removes finalizers',
    original: { metadata: { finalizers: ['a', 'b', 'c'] } },
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
    result: { metadata: { finalizers: ['a', 'c'] } },
  },
  {
    name: '$deleteFromPrimitiveList on a missing list is a no-op',
    original: { metadata: { name: 'p' } },
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } },
    result: { metadata: { name: 'p' } },
  },
  {
    name: 'labels and annotations: null deletes, others merge',
    original: { metadata: { labels: { a: '1', b: '2' }, annotations: { x: 'y' } } },
    patch: { metadata: { labels: { a: null, c: '3' }, annotations: { x: null } } },
    result: { metadata: { labels: { b: '2', c: '3' }, annotations: {} } },
  },
  {
    name: 'null for an absent key is ignored',
    original: { metadata: { labels: { a: '1' } } },
    patch: { metadata: { annotations: null, labels: { zz: null } } },
    result: { metadata: { labels: { a: '1' } } },
  },
  {
    name: 'lists without a strategy (args, tolerations) are replaced',
    original: spec({
      containers: [c('a', { args: ['1', '2'] })],
      tolerations: [{ key: 'k', operator: 'Exists' }],
    }),
    patch: spec({ containers: [{ name: 'a', args: ['3'] }], tolerations: [] }),
    result: spec({ containers: [c('a', { args: ['3'] })], tolerations: [] }),
  },
  {
    name: 'ownerReferences merge by uid',
    original: { metadata: { ownerReferences: [{ uid: '1', name: 'a' }] } },
    patch: { metadata: { ownerReferences: [{ uid: '2', name: 'b' }] } },
    result: {
      metadata: {
        ownerReferences: [
          { uid: '2', name: 'b' },
          { uid: '1', name: 'a' },
        ],
      },
    },
  },
  {
    name: 'status conditions merge by type',
    original: { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
    patch: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
    result: { status: { conditions: [{ type: 'Ready', status: 'True' }] } },
  },
  {
    name: 'directives inside a new value are interpreted',
    original: {},
    patch: spec({ containers: [c('a', { env: [{ name: 'X', value: null }] })] }),
    result: spec({ containers: [c('a', { env: [{ name: 'X' }] })] }),
  },
  {
    name: 'type change replaces the value',
    original: spec({ containers: [c('a', { ports: [{ containerPort: 80 }] })] }),
    patch: spec({ containers: [{ name: 'a', ports: 'none' }] }),
    result: spec({ containers: [c('a', { ports: 'none' })] }),
  },
  {
    name: '$setElementOrder on a primitive list with a deletion',
    original: { metadata: { finalizers: ['a', 'b', 'c'] } },
    patch: {
      metadata: {
        '$setElementOrder/finalizers': ['c', 'a', 'd'],
        finalizers: ['d'],
        '$deleteFromPrimitiveList/finalizers': ['b'],
      },
    },
    result: { metadata: { finalizers: ['c', 'a', 'd'] } },
  },
  {
    name: '$setElementOrder with a $patch: delete item (kubectl apply)',
    original: spec({ containers: [c('a'), c('b'), c('c')] }),
    patch: spec({
      '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }],
      containers: [{ name: 'b', $patch: 'delete' }],
    }),
    result: spec({ containers: [c('c'), c('a')] }),
  },
  {
    name: '$retainKeys ignores null and directive keys of the patch',
    original: spec({ volumes: [{ name: 'v1', secret: { secretName: 's' } }] }),
    patch: spec({
      volumes: [{ name: 'v1', $retainKeys: ['emptyDir', 'name'], emptyDir: {}, secret: null }],
    }),
    result: spec({ volumes: [{ name: 'v1', emptyDir: {} }] }),
  },
  {
    name: 'a whole-object $patch: replace',
    original: { metadata: { name: 'p' }, spec: { restartPolicy: 'Always' } },
    patch: { $patch: 'replace', metadata: { name: 'p' } },
    result: { metadata: { name: 'p' } },
  },
  {
    name: 'service ports merge by port',
    schema: service,
    original: spec({ ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] }),
    patch: spec({ ports: [{ port: 80, targetPort: 'http' }] }),
    result: spec({ ports: [{ port: 80, targetPort: 'http' }, { port: 443 }] }),
  },
];

function failure(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err: unknown) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  throw new Error('expected a PatchError');
}

describe('applyStrategicMergePatch', () => {
  it.each(cases)('$name', ({ schema, original, patch, result }) => {
    const before = structuredClone(original);
    expect(applyStrategicMergePatch(original, patch, schema ?? pod)).toEqual(result);
    expect(original).toEqual(before);
  });

  const errors: {
    name: string;
    original?: unknown;
    patch: unknown;
    status: number;
    reason?: string;
    message: string;
  }[] = [
    {
      name: 'list item without its merge key',
      patch: spec({ containers: [{ image: 'x' }] }),
      status: 500,
      message: 'map: map[image:x] does not contain declared merge key: name',
    },
    {
      name: '$patch: delete without the merge key',
      patch: spec({ containers: [{ $patch: 'delete' }] }),
      status: 500,
      message: 'map: map[$patch:delete] does not contain declared merge key: name',
    },
    {
      name: 'unknown $patch in a map',
      patch: { metadata: { labels: { $patch: 'merge' } } },
      status: 500,
      message: 'unknown patch type: merge in map: map[$patch:merge]',
    },
    {
      name: '$patch: merge in a list',
      patch: spec({ containers: [{ $patch: 'merge' }] }),
      status: 500,
      message: 'merging lists cannot yet be specified in the patch',
    },
    {
      name: '$retainKeys not a list',
      patch: spec({ volumes: [{ name: 'v1', $retainKeys: 'x' }] }),
      status: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of retainKeys',
    },
    {
      name: '$retainKeys missing a patched key',
      patch: spec({ volumes: [{ name: 'v1', $retainKeys: ['name'], secret: {} }] }),
      status: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of retainKeys',
    },
    {
      name: '$setElementOrder not a list',
      patch: spec({ '$setElementOrder/containers': 'x' }),
      status: 500,
      message: 'expected a []interface {}, but received a string',
    },
    {
      name: 'patch item missing from $setElementOrder',
      patch: spec({ '$setElementOrder/containers': [{ name: 'a' }], containers: [c('b')] }),
      status: 500,
      message:
        "the order in patch list:\n[map[image:b:1 name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]",
    },
    {
      name: 'mismatched element types',
      patch: { metadata: { finalizers: [['a']] } },
      status: 500,
      message: 'list element types are not identical: [[a] [[a]]]',
    },
    {
      name: 'lists of lists',
      original: { metadata: { finalizers: [['a']] } },
      patch: { metadata: { finalizers: [['b']] } },
      status: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    },
    {
      name: 'patch body not an object',
      patch: [1],
      status: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
  ];
  it.each(errors)('error: $name', ({ original: given, patch, status, reason, message }) => {
    const original = given ?? {
      metadata: { finalizers: ['a'] },
      spec: { containers: [c('a')], volumes: [{ name: 'v1', emptyDir: {} }] },
    };
    const err = failure(() => applyStrategicMergePatch(original, patch, pod));
    expect(err.code).toBe('StrategicMergePatchFailed');
    const s = patchErrorToStatus(err);
    expect(s.code).toBe(status);
    expect(s.reason).toBe(reason);
    expect(s.message).toBe(message);
  });

  it('is refused for custom resources with 415 (spec §5.3)', () => {
    const cr = crdMergeSchema({ type: 'object', properties: { spec: { type: 'object' } } });
    const err = failure(() => applyStrategicMergePatch({}, { spec: {} }, cr));
    expect(err.code).toBe('StrategicMergePatchUnsupported');
    expect(patchErrorToStatus(err)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  });
});
