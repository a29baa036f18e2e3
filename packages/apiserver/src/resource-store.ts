// Objects of one resource in the revision log: storage keys, encoding (storage version, no
// resourceVersion inside), decoding (resourceVersion from the revision, conversion to the
// requested version, pruning and defaulting on read as kube-apiserver does for CRs, §8.3).
import { isEndpointSlice, withNullLists } from './resources/endpointslice-strategy.ts';
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

/** How many decoded watch events the codec keeps for other watchers of the same revision. */
const SHARED_EVENT_CACHE_SIZE = 1024;

export interface SharedEvent {
  /** The decoded object; shared between watchers, so read-only. */
  readonly object: KubeObject;
  /** Its JSON text, serialized once for every watcher. */
  readonly json: string;
}

export class ResourceCodec {
  readonly #convert: Converter | undefined;
  readonly #events = new Map<string, SharedEvent>();

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

  /**
   * The object a watch event carries, decoded and serialized once however many watchers of that
   * resource and version receive it (each revision writes exactly one key, so the revision, the
   * resource and the version identify the event's value).
   */
  decodeEvent(
    r: ResourceInfo,
    key: string,
    value: string,
    revision: number,
    version: string,
  ): SharedEvent {
    const id = `${r.group}/${r.plural}/${version}@${revision}`;
    const hit = this.#events.get(id);
    if (hit) return hit;
    const object = this.decode(r, { key, revision, createRevision: 0, value }, version);
    const event: SharedEvent = { object, json: JSON.stringify(object) };
    this.#events.set(id, event);
    if (this.#events.size > SHARED_EVENT_CACHE_SIZE) {
      const oldest = this.#events.keys().next().value;
      if (oldest !== undefined) this.#events.delete(oldest);
    }
    return event;
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
    // Outside managedFields: nulls are not fields, but Go encodes nil slices as null.
    return isEndpointSlice(r) ? withNullLists(obj) : obj;
  }
}
