// Coercion of `metadata` to ObjectMeta, as kube-apiserver does for the root of every custom
// resource and for every x-kubernetes-embedded-resource
// (apiextensions-apiserver/pkg/apiserver/schema/objectmeta/coerce.go): the map is decoded into
// metav1.ObjectMeta and encoded back, so unknown keys are dropped (and reported as unknown
// fields), fields of the wrong type are dropped (DropMalformedFields), and Go `omitempty`
// empties vanish ("" , 0, {}, [], null).
import { isObject } from './node.ts';
import { child, index } from './paths.ts';

type Kind = 'string' | 'int' | 'bool' | 'timestamp' | 'stringMap' | 'stringList' | 'objectList';

interface FieldSpec {
  kind: Kind;
  /** Known keys of list entries (ownerReferences, managedFields). */
  entryKeys?: Readonly<Record<string, Kind | 'any'>>;
}

/** metav1.ObjectMeta's JSON fields (k8s.io/apimachinery/pkg/apis/meta/v1/types.go). */
const OBJECT_META: Readonly<Record<string, FieldSpec>> = {
  name: { kind: 'string' },
  generateName: { kind: 'string' },
  namespace: { kind: 'string' },
  selfLink: { kind: 'string' },
  uid: { kind: 'string' },
  resourceVersion: { kind: 'string' },
  generation: { kind: 'int' },
  creationTimestamp: { kind: 'timestamp' },
  deletionTimestamp: { kind: 'timestamp' },
  deletionGracePeriodSeconds: { kind: 'int' },
  labels: { kind: 'stringMap' },
  annotations: { kind: 'stringMap' },
  ownerReferences: {
    kind: 'objectList',
    entryKeys: {
      apiVersion: 'string',
      kind: 'string',
      name: 'string',
      uid: 'string',
      controller: 'bool',
      blockOwnerDeletion: 'bool',
    },
  },
  finalizers: { kind: 'stringList' },
  managedFields: {
    kind: 'objectList',
    entryKeys: {
      manager: 'string',
      operation: 'string',
      apiVersion: 'string',
      time: 'timestamp',
      fieldsType: 'string',
      fieldsV1: 'any',
      subresource: 'string',
    },
  },
};

function wellTyped(kind: Kind | 'any', v: unknown): boolean {
  switch (kind) {
    case 'any':
      return true;
    case 'string':
      return typeof v === 'string';
    case 'int':
      return typeof v === 'number' && Number.isInteger(v);
    case 'bool':
      return typeof v === 'boolean';
    case 'timestamp':
      return v === null || (typeof v === 'string' && !Number.isNaN(Date.parse(v)));
    case 'stringMap':
      return isObject(v) && Object.values(v).every((x) => typeof x === 'string');
    case 'stringList':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'objectList':
      return Array.isArray(v) && v.every(isObject);
  }
}

/** Go omitempty: the zero value of the field's type is not encoded. */
function isGoEmpty(v: unknown): boolean {
  if (v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObject(v) && Object.keys(v).length === 0;
}

/**
 * Coerce `metadata` in place on its parent. Unknown keys are appended to `unknown` as paths
 * under `path` (e.g. `metadata.foo`, `spec.template.metadata.ownerReferences[0].bar`).
 */
export function coerceObjectMeta(
  parent: Record<string, unknown>,
  path: string,
  unknown: string[],
): void {
  const meta = parent['metadata'];
  if (meta === undefined) return;
  if (!isObject(meta)) {
    // Malformed metadata decodes to an empty ObjectMeta and is dropped when re-encoded.
    delete parent['metadata'];
    return;
  }
  for (const k of Object.keys(meta)) {
    const spec = OBJECT_META[k];
    const v = meta[k];
    if (spec === undefined) {
      unknown.push(child(path, k));
      delete meta[k];
    } else if (!wellTyped(spec.kind, v) || isGoEmpty(v)) {
      delete meta[k];
    } else if (spec.entryKeys !== undefined && Array.isArray(v)) {
      const entryKeys = spec.entryKeys;
      v.forEach((entry: Record<string, unknown>, i) => {
        for (const ek of Object.keys(entry)) {
          const ekind = entryKeys[ek];
          if (ekind === undefined) {
            unknown.push(child(index(child(path, k), i), ek));
            delete entry[ek];
          } else if (!wellTyped(ekind, entry[ek])) {
            // Entry fields are mostly required (no omitempty), so only malformed ones go.
            delete entry[ek];
          }
        }
      });
    }
  }
}
