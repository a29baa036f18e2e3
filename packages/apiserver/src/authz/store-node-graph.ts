// The Node authorizer's graph over the revision log: the Pods of one namespace bound to a node,
// with the Secrets, ConfigMaps, PVCs and ServiceAccount each uses (kube's graph populator reads
// the same fields). Read on demand: only node requests for those kinds ask; each Pod version is
// parsed once.
import type { StoreReader } from '../storage/store.ts';
import type { BoundPod, NodeGraph } from './node-authorizer.ts';

type Json = Record<string, unknown>;

const asObject = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
const asArray = (v: unknown): Json[] =>
  Array.isArray(v) ? v.map(asObject).filter((o): o is Json => o !== undefined) : [];
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function containers(spec: Json): Json[] {
  return [
    ...asArray(spec['initContainers']),
    ...asArray(spec['containers']),
    ...asArray(spec['ephemeralContainers']),
  ];
}

/** Names under `kind` referenced by volumes (incl. projected sources), env and envFrom. */
function references(spec: Json): {
  secrets: Set<string>;
  configMaps: Set<string>;
  pvcs: Set<string>;
} {
  const secrets = new Set<string>();
  const configMaps = new Set<string>();
  const pvcs = new Set<string>();
  const add = (set: Set<string>, name: unknown): void => {
    const n = str(name);
    if (n) set.add(n);
  };
  for (const s of asArray(spec['imagePullSecrets'])) add(secrets, s['name']);
  for (const v of asArray(spec['volumes'])) {
    add(secrets, asObject(v['secret'])?.['secretName']);
    add(configMaps, asObject(v['configMap'])?.['name']);
    add(pvcs, asObject(v['persistentVolumeClaim'])?.['claimName']);
    for (const source of asArray(asObject(v['projected'])?.['sources'])) {
      add(secrets, asObject(source['secret'])?.['name']);
      add(configMaps, asObject(source['configMap'])?.['name']);
    }
  }
  for (const c of containers(spec)) {
    for (const e of asArray(c['envFrom'])) {
      add(secrets, asObject(e['secretRef'])?.['name']);
      add(configMaps, asObject(e['configMapRef'])?.['name']);
    }
    for (const e of asArray(c['env'])) {
      const from = asObject(e['valueFrom']);
      add(secrets, asObject(from?.['secretKeyRef'])?.['name']);
      add(configMaps, asObject(from?.['configMapKeyRef'])?.['name']);
    }
  }
  return { secrets, configMaps, pvcs };
}

/** One stored Pod as the graph read it: the version it was parsed from, its node and uses. */
interface Entry {
  revision: number;
  nodeName: string | undefined;
  pod: BoundPod;
}

/** A namespace's Pods as of `revision` (a list's snapshot), by key. */
interface NamespaceRead {
  revision: number;
  entries: Map<string, Entry>;
}

/** Namespaces whose last read is kept (each holds one small entry per Pod). */
const MAX_NAMESPACES = 256;

function entryOf(value: string, namespace: string, revision: number): Entry | undefined {
  let pod: Json;
  try {
    pod = JSON.parse(value) as Json;
  } catch {
    return undefined;
  }
  const spec = asObject(pod['spec']) ?? {};
  const refs = references(spec);
  return {
    revision,
    nodeName: str(spec['nodeName']),
    pod: {
      name: str(asObject(pod['metadata'])?.['name']) ?? '',
      namespace,
      serviceAccountName: str(spec['serviceAccountName']) ?? 'default',
      secrets: [...refs.secrets],
      configMaps: [...refs.configMaps],
      persistentVolumeClaims: [...refs.pvcs],
    },
  };
}

/**
 * Every node request for a Secret, ConfigMap, PVC, token or Pod status asks for the Pods of a
 * namespace: each Pod version is parsed once (a stored version never changes), and a namespace
 * no write touched since its last read is not listed again. Parsing every Pod on every request
 * cost ~0.3 ms per 10 Pods on the loop that serves everything (a cold start makes five such
 * requests).
 */
export class StoreNodeGraph implements NodeGraph {
  readonly #store: StoreReader;
  readonly #reads = new Map<string, NamespaceRead>();

  constructor(store: StoreReader) {
    this.#store = store;
  }

  podsOn(node: string, namespace: string): readonly BoundPod[] {
    const out: BoundPod[] = [];
    for (const e of this.#read(namespace).entries.values())
      if (e.nodeName === node) out.push(e.pod);
    return out;
  }

  #read(namespace: string): NamespaceRead {
    const prefix = `/registry/core/pods/${namespace}/`;
    const last = this.#reads.get(namespace);
    if (last && !this.#store.changedSince(prefix, last.revision)) return last;
    const page = this.#store.list(prefix);
    const entries = new Map<string, Entry>();
    for (const item of page.items) {
      const kept = last?.entries.get(item.key);
      const entry =
        kept?.revision === item.revision ? kept : entryOf(item.value, namespace, item.revision);
      if (entry) entries.set(item.key, entry);
    }
    const read = { revision: page.revision, entries };
    this.#reads.delete(namespace); // re-inserted last: the Map's order is least recent first
    this.#reads.set(namespace, read);
    if (this.#reads.size > MAX_NAMESPACES) {
      const oldest = this.#reads.keys().next().value;
      if (oldest !== undefined) this.#reads.delete(oldest);
    }
    return read;
  }
}
