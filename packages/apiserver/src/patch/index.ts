// The patch engines: pure functions, no I/O. JSON merge patch (RFC 7386), JSON patch (RFC 6902),
// strategic merge patch and server-side apply with managedFields, as kube-apiserver does them.
// (A folder entry point by request of issue 4's split, although STYLE.md keeps index.ts at the
// package root: the HTTP layer imports this one module instead of the engine files.)
export { applyMergePatch } from './json-merge-patch.ts';
export { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.ts';
export { applyStrategicMergePatch } from './strategic-merge-patch.ts';
export { apply, type ApplyOptions, type ApplyResult } from './apply.ts';
export {
  updateManagedFields,
  type UpdateManagedFieldsOptions,
  type UpdateManagedFieldsResult,
} from './update.ts';
export { ApplyConflictError, type FieldConflict } from './ownership.ts';
export {
  PatchError,
  patchErrorToStatus,
  GENERIC_422_MESSAGE,
  type PatchErrorCode,
} from './errors.ts';
export {
  builtinMergeSchema,
  builtinDefinitionNames,
  crdMergeSchema,
  DEDUCED,
  type MergeSchema,
  type MergeSchemaKind,
  type ListType,
  type MapType,
  type PatchStrategy,
  type ScalarType,
} from './merge-schema.ts';
export {
  FieldSet,
  fieldElement,
  keyElement,
  valueElement,
  pathToString,
  schemaAt,
  serializePathElement,
  parsePathElement,
  type FieldPath,
  type PathElement,
} from './field-set.ts';
export {
  ANCIENT_CHANGES_MANAGER,
  BEFORE_FIRST_APPLY_MANAGER,
  MAX_UPDATE_MANAGERS,
  managerIdentifier,
} from './managed-fields.ts';
export { toFieldSet, compare, type Comparison } from './typed.ts';
export { resetFieldsFor, type ResetFieldsOptions } from './reset-fields.ts';
