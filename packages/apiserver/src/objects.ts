// Server-owned metadata on create and update (semantics doc §2): uid, creationTimestamp,
// generation, generateName, namespace, deletion fields. Pure: time and randomness are injected.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { isDeepStrictEqual } from 'node:util';
import type { ResourceInfo } from './resources/resource.ts';
import {
  prepareNamespaceCreate,
  prepareNamespaceUpdate,
} from './controllers/namespace-strategy.ts';
import { defaultEndpointSlice, isEndpointSlice } from './resources/endpointslice-strategy.ts';
import { defaultService, isService, prepareServiceUpdate } from './resources/service-strategy.ts';
import { isPod, preparePodCreate, preparePodStatusUpdate } from './resources/pods-strategy.ts';
import { defaultPodSpec } from './resources/pods-defaults.ts';
import { defaultBuiltin, preparePvcCreate } from './resources/kind-defaults.ts';
import { formatTime } from '@agent-sandbox/kube-types';

export type KubeObject = Record<string, unknown> & {
  metadata: ObjectMeta;
  apiVersion?: string;
  kind?: string;
};

export interface ServerContext {
  /** Wall-clock time. */
  now(): Date;
  /** A new RFC 4122 v4 uid. */
  uid(): string;
  /** A random suffix character source in [0, 1). */
  random(): number;
}

/** metav1.Time: RFC 3339 UTC with whole seconds (kube-types' one copy). */

export { formatTime };

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATE_NAME_PREFIX = 58;

/** generateName → name: prefix cut to 58 characters plus 5 random characters (§2). */
export function generateName(prefix: string, random: () => number): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[Math.floor(random() * NAME_ALPHABET.length)];
  return prefix.slice(0, MAX_GENERATE_NAME_PREFIX) + suffix;
}

/** Fields a client may not set on create, cleared before the server fills its own. */
const SERVER_ONLY_ON_CREATE: (keyof ObjectMeta)[] = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'resourceVersion',
];

export function prepareCreate(
  r: ResourceInfo,
  obj: KubeObject,
  namespace: string | undefined,
  ctx: ServerContext,
): void {
  const meta = obj.metadata;
  for (const k of SERVER_ONLY_ON_CREATE) delete meta[k];
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName, ctx.random);
  if (r.namespaced) meta.namespace = namespace;
  else delete meta.namespace;
  meta.uid = ctx.uid();
  meta.creationTimestamp = formatTime(ctx.now());
  if (r.tracksGeneration) meta.generation = 1;
  // A custom resource with a status subresource cannot set status on create (§6.1).
  if (r.hasStatus && r.crd) delete obj['status'];
  if (r.group === '' && r.plural === 'namespaces') prepareNamespaceCreate(obj);
  // kube's Pod strategy (PrepareForCreate) discards the client's status: Pending plus the QoS class.
  if (isPod(r)) preparePodCreate(obj);
  if (r.group === '' && r.plural === 'persistentvolumeclaims') preparePvcCreate(obj);
  // ClusterIP allocation needs the store: create and apply-create call allocateService after.
  if (isService(r)) defaultService(obj);
  if (isEndpointSlice(r)) defaultEndpointSlice(obj);
}

/** The object without metadata (and without status when status is a subresource): what bumps generation. */
function specPart(r: ResourceInfo, obj: KubeObject): Record<string, unknown> {
  const out: Record<string, unknown> = { ...obj };
  delete out['metadata'];
  delete out['apiVersion'];
  delete out['kind'];
  if (r.hasStatus || !r.crd) delete out['status'];
  return out;
}

export type UpdateTarget = 'main' | 'status';

/**
 * Carries the stored object's server-owned fields into an update, keeps the status (main
 * resource) or everything but the status (status subresource) from the stored object, and bumps
 * generation when anything outside metadata and status changed.
 */
export function prepareUpdate(
  r: ResourceInfo,
  old: KubeObject,
  next: KubeObject,
  target: UpdateTarget,
): KubeObject {
  let out: KubeObject;
  if (target === 'status' && isPod(r)) {
    out = preparePodStatusUpdate(old, next);
  } else if (target === 'status') {
    out = structuredClone(old);
    if (next['status'] === undefined) delete out['status'];
    else out['status'] = next['status'];
  } else {
    out = next;
    if (r.group === '' && r.plural === 'namespaces') prepareNamespaceUpdate(old, out);
    if (isService(r)) prepareServiceUpdate(r, old, out);
    if (isEndpointSlice(r)) defaultEndpointSlice(out);
    // Defaulted before the generation check, so dropping a defaulted field changes nothing.
    // On a copy: a patched object may share nested values with the stored one.
    if (isPod(r) || !r.crd) out = structuredClone(out);
    if (isPod(r)) defaultPodSpec(out['spec']);
    else if (!r.crd) defaultBuiltin(r, out);
    if (r.hasStatus) {
      if (old['status'] === undefined) delete out['status'];
      else out['status'] = structuredClone(old['status']);
    }
  }
  const meta = out.metadata;
  const oldMeta = old.metadata;
  meta.uid = oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  meta.name = oldMeta.name;
  if (oldMeta.namespace !== undefined) meta.namespace = oldMeta.namespace;
  for (const k of ['deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
    if (oldMeta[k] === undefined) delete meta[k];
    else (meta as Record<string, unknown>)[k] = oldMeta[k];
  }
  delete meta.generateName;
  if (oldMeta.generateName !== undefined) meta.generateName = oldMeta.generateName;
  if (r.tracksGeneration) {
    const oldGeneration = oldMeta.generation ?? 1;
    meta.generation = isDeepStrictEqual(specPart(r, old), specPart(r, out))
      ? oldGeneration
      : oldGeneration + 1;
  } else delete meta.generation;
  return out;
}
