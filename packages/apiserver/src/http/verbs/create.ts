// POST: create an object (semantics doc §2, §3.1).
import { ApiError, alreadyExists, badRequest, plainInternal } from '../../errors.ts';
import { prepareCreate, type KubeObject } from '../../objects.ts';
import { encode, objectKey } from '../../resource-store.ts';
import { groupVersion } from '../../resources/resource.ts';
import { allocateService } from '../../resources/service-allocation.ts';
import { isService } from '../../resources/service-strategy.ts';
import { StorageError } from '../../storage/errors.ts';
import { admitCreateMutations, admitObject } from '../admission.ts';
import { readObject } from '../body.ts';
import type { Call, ServerParts } from '../context.ts';
import { trackUpdate } from '../managed-fields.ts';
import { managerName, writeOptions } from '../options.ts';
import { jsonResponse } from '../response.ts';
import { requireNamespace } from './namespaces.ts';

/** How often a generateName collision is retried with a fresh suffix (§2). */
const GENERATE_NAME_ATTEMPTS = 8;

export function checkTypeMeta(call: Call, obj: KubeObject): void {
  const expected = groupVersion(call.r.group, call.version);
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${obj.apiVersion}) does not match the expected API version (${expected})`,
    );
  }
  if (obj.kind !== undefined && obj.kind !== call.r.kind) {
    throw badRequest(
      `the kind in the data (${obj.kind}) does not match the expected kind (${call.r.kind})`,
    );
  }
  obj.apiVersion = expected;
  obj.kind = call.r.kind;
}

export function checkNamespace(call: Call, obj: KubeObject): void {
  if (!call.r.namespaced) return;
  const bodyNs = obj.metadata.namespace;
  if (bodyNs && call.req.namespace && bodyNs !== call.req.namespace) {
    throw badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
}

/** POST, or PUT of a missing object for resources that create on update (`body` already read). */
export async function create(parts: ServerParts, call: Call, body?: KubeObject): Promise<Response> {
  const { r } = call;
  const opts = writeOptions(call.url, body ? 'UpdateOptions' : 'CreateOptions');
  const obj = body ?? (await readObject(call.http, r.kind));
  checkTypeMeta(call, obj);
  checkNamespace(call, obj);
  if (obj.metadata.resourceVersion)
    throw plainInternal('resourceVersion should not be set on objects to be created');
  if (r.namespaced) requireNamespace(parts, call.req.namespace ?? '', r, obj.metadata.name ?? '');

  for (let attempt = 1; ; attempt++) {
    const candidate = structuredClone(obj);
    prepareCreate(r, candidate, call.req.namespace, parts.ctx);
    // managedFields are computed on the defaulted object, so defaulted fields are owned too.
    const admitted = trackUpdate(
      parts,
      call,
      undefined,
      admitObject(call, candidate, undefined, opts, 'create'),
      managerName(opts, call.http),
    );
    admitCreateMutations(parts, call, admitted);
    // kube's registry allocates the ClusterIP after managedFields are tracked.
    if (isService(r)) allocateService(r, admitted, parts.store, parts.ctx.random);
    const name = admitted.metadata.name ?? '';
    const stored = parts.codec.toVersion(r, admitted, r.storageVersion);
    if (opts.dryRun) return jsonResponse(admitted, 201, call.warnings);
    try {
      const written = parts.store.create(objectKey(r, call.req.namespace, name), encode(stored));
      return jsonResponse(parts.codec.decode(r, written, call.version), 201, call.warnings);
    } catch (err: unknown) {
      if (!(err instanceof StorageError) || err.code !== 'KeyExists') throw err;
      if (!obj.metadata.name && obj.metadata.generateName && attempt < GENERATE_NAME_ATTEMPTS)
        continue;
      const existing = parts.store.get(objectKey(r, call.req.namespace, name));
      const deleting =
        existing !== undefined &&
        (JSON.parse(existing.value) as KubeObject).metadata.deletionTimestamp !== undefined;
      const e = alreadyExists(r, name, deleting);
      if (!obj.metadata.name && obj.metadata.generateName) {
        const message = `${e.status.message}, the server was not able to generate a unique name for the object`;
        throw new ApiError({
          ...e.status,
          message,
          details: { ...e.status.details, retryAfterSeconds: 1 },
        });
      }
      throw e;
    }
  }
}
