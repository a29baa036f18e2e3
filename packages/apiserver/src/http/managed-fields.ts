// managedFields bookkeeping on every create, update and patch (semantics doc §2), with the
// merge schema of the resource (built-in OpenAPI, or the CRD version's structural schema).
import {
  builtinDefinitionNames,
  builtinMergeSchema,
  crdMergeSchema,
  DEDUCED,
  resetFieldsFor,
  updateManagedFields,
  type FieldSet,
  type MergeSchema,
} from '../patch/index.ts';
import { formatTime, type KubeObject } from '../objects.ts';
import { groupVersion, type ResourceInfo } from '../resources/resource.ts';
import type { Call, ServerParts } from './context.ts';

const cache = new WeakMap<ResourceInfo, Map<string, MergeSchema>>();

export function mergeSchemaFor(r: ResourceInfo, version: string): MergeSchema {
  let perVersion = cache.get(r);
  if (!perVersion) {
    perVersion = new Map();
    cache.set(r, perVersion);
  }
  let schema = perVersion.get(version);
  if (!schema) {
    const crdSchema = r.crd?.spec.versions.find((v) => v.name === version)?.schema?.openAPIV3Schema;
    if (crdSchema) schema = crdMergeSchema(crdSchema);
    else if (r.openApiDefinition && builtinDefinitionNames().includes(r.openApiDefinition)) {
      schema = builtinMergeSchema(r.openApiDefinition);
    } else schema = DEDUCED;
    perVersion.set(version, schema);
  }
  return schema;
}

/** Fields this endpoint resets and so nobody owns through it (status on the main resource, ...). */
export function ignoredFieldsFor(call: Call): FieldSet | undefined {
  const r = call.r;
  return resetFieldsFor({
    resource: r.group === '' ? r.plural : `${r.plural}.${r.group}`,
    ...(call.req.subresource ? { subresource: call.req.subresource } : {}),
    crdStatusSubresource: r.crd !== undefined && r.hasStatus,
  });
}

/** Records `manager`'s Update of `next` over `old` in next.metadata.managedFields. */
export function trackUpdate(
  parts: ServerParts,
  call: Call,
  old: KubeObject | undefined,
  next: KubeObject,
  manager: string,
): KubeObject {
  const ignored = ignoredFieldsFor(call);
  const result = updateManagedFields(old, next, {
    manager,
    apiVersion: groupVersion(call.r.group, call.version),
    schema: mergeSchemaFor(call.r, call.version),
    now: formatTime(parts.ctx.now()),
    ...(call.req.subresource === 'status' ? { subresource: 'status' } : {}),
    ...(ignored ? { ignoredFields: ignored } : {}),
  });
  return result.object as KubeObject;
}
