// Writes of the endpoint controllers as kube-controller-manager makes them: creates with server
// metadata and managedFields of `kube-controller-manager`, generation for kinds that track it,
// generateName retried on a collision; deletes through the API's delete path.
import { ApiError } from '../../errors.ts';
import type { ServerParts } from '../../http/context.ts';
import { mergeSchemaFor } from '../../http/managed-fields.ts';
import { formatTime, generateName, type KubeObject } from '../../objects.ts';
import { deleteOne } from '../../operations/delete-object.ts';
import { updateManagedFields } from '../../patch/index.ts';
import { encode, objectKey } from '../../resource-store.ts';
import { groupVersion, type ResourceInfo } from '../../resources/resource.ts';
import { isStorageError } from '../../storage/errors.ts';
import { CONTROLLER_MANAGER } from '../stored-objects.ts';

const GENERATE_NAME_ATTEMPTS = 8;

/** Creates `body` (name or metadata.generateName set) in `namespace`. */
export function createObject(
  parts: ServerParts,
  r: ResourceInfo,
  namespace: string,
  body: KubeObject,
): void {
  const { ctx, store } = parts;
  for (let attempt = 1; ; attempt++) {
    const meta = { ...body.metadata };
    if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName, ctx.random);
    const now = formatTime(ctx.now());
    const obj: KubeObject = {
      kind: r.kind,
      apiVersion: groupVersion(r.group, r.storageVersion),
      ...body,
      metadata: {
        ...meta,
        namespace,
        uid: ctx.uid(),
        creationTimestamp: now,
        ...(r.tracksGeneration ? { generation: 1 } : {}),
      },
    };
    const tracked = updateManagedFields(undefined, obj, {
      manager: CONTROLLER_MANAGER,
      apiVersion: groupVersion(r.group, r.storageVersion),
      schema: mergeSchemaFor(r, r.storageVersion),
      now,
    }).object as KubeObject;
    try {
      store.create(objectKey(r, namespace, meta.name ?? ''), encode(tracked));
      return;
    } catch (err: unknown) {
      const retry =
        isStorageError(err, 'KeyExists') && !body.metadata.name && attempt < GENERATE_NAME_ATTEMPTS;
      if (!retry) throw err;
    }
  }
}

/** Deletes one object (background); gone already is fine. */
export function deleteObject(
  parts: ServerParts,
  r: ResourceInfo,
  namespace: string,
  name: string,
): void {
  try {
    deleteOne(parts, r, r.storageVersion, namespace, name, {
      dryRun: false,
      propagationPolicy: 'Background',
    });
  } catch (err: unknown) {
    if (err instanceof ApiError && err.status.code === 404) return;
    throw err;
  }
}
