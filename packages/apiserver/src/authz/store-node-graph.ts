// The Node authorizer's graph over the revision log: the Pods of one namespace bound to a node,
// with the Secrets, ConfigMaps, PVCs and ServiceAccount each uses (kube's graph populator reads
// the same fields). Read on demand: only node requests for those kinds ask.
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

export class StoreNodeGraph implements NodeGraph {
  readonly #store: StoreReader;

  constructor(store: StoreReader) {
    this.#store = store;
  }

  podsOn(node: string, namespace: string): readonly BoundPod[] {
    const out: BoundPod[] = [];
    for (const item of this.#store.list(`/registry/core/pods/${namespace}/`).items) {
      let pod: Json;
      try {
        pod = JSON.parse(item.value) as Json;
      } catch {
        continue;
      }
      const spec = asObject(pod['spec']) ?? {};
      if (spec['nodeName'] !== node) continue;
      const refs = references(spec);
      out.push({
        name: str(asObject(pod['metadata'])?.['name']) ?? '',
        namespace,
        serviceAccountName: str(spec['serviceAccountName']) ?? 'default',
        secrets: [...refs.secrets],
        configMaps: [...refs.configMaps],
        persistentVolumeClaims: [...refs.pvcs],
      });
    }
    return out;
  }
}
