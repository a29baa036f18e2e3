// Objects of one resource in the revision log: storage keys, encoding (storage version, no
// resourceVersion inside), decoding (resourceVersion from the revision, conversion to the
// requested version, pruning and defaulting on read as kube-apiserver does for CRs, §8.3).
import type { StructuralSchema } from '@agent-sandbox/crd-schema';
import type { KubeObject } from './objects.ts';
import { groupVersion, type ResourceInfo } from './resources/resource.ts';
import type { StoredObject } from './storage/store.ts';

/**
 * Converts a custom resource to another served version of its CRD. The embedded server gets one
 * from its composition for CRDs with `conversion.strategy: Webhook` (ours: @agent-sandbox/api).
 * @returns the object in `toApiVersion`; throws when the object cannot be converted
 */
export type Converter = (obj: KubeObject, toApiVersion: string) => KubeObject;

/** `/registry/<group|core>/<plural>/` and, with a namespace, `.../<namespace>/`. */
export function keyPrefix(r: ResourceInfo, namespace?: string): string {
  const base = `/registry/${r.group === '' ? 'core' : r.group}/${r.plural}/`;
  return r.namespaced && namespace ? `${base}${namespace}/` : base;
}

export function objectKey(r: ResourceInfo, namespace: string | undefined, name: string): string {
  return `${keyPrefix(r, r.namespaced ? namespace : undefined)}${name}`;
}

/** JSON text to store: the object in its storage version, without resourceVersion. */
export function encode(obj: KubeObject): string {
  const copy = { ...obj, metadata: { ...obj.metadata } };
  delete copy.metadata.resourceVersion;
  return JSON.stringify(copy);
}

export class ResourceCodec {
  readonly #convert: Converter | undefined;

  constructor(convert?: Converter) {
    this.#convert = convert;
  }

  /** Converts to `version` of the resource: the Webhook converter for CRDs that have one, else apiVersion only. */
  toVersion(r: ResourceInfo, obj: KubeObject, version: string): KubeObject {
    const target = groupVersion(r.group, version);
    if (obj.apiVersion === target) return obj;
    if (r.crd?.spec.conversion?.strategy === 'Webhook' && this.#convert)
      return this.#convert(obj, target);
    return { ...obj, apiVersion: target };
  }

  /** A stored object as a client of `version` sees it. */
  decode(r: ResourceInfo, stored: StoredObject, version: string): KubeObject {
    const raw = JSON.parse(stored.value) as KubeObject;
    raw.metadata.resourceVersion = String(stored.revision);
    const obj = this.toVersion(r, raw, version);
    obj.kind = r.kind;
    const schema: StructuralSchema | undefined = r.crd ? r.schema(version) : undefined;
    if (schema) {
      schema.prune(obj);
      schema.applyDefaults(obj);
    }
    return obj;
  }
}
