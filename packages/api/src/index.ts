// @agent-sandbox/api: the agent-sandbox API types, schemas, constants, CRDs and admission checks.
export * from './groups.ts';
export * from './labels.ts';
export * from './conditions.ts';
export { nameHash } from './name-hash.ts';
export type { Condition } from './meta.ts';
export type * from './blueprint.ts';
export * as v1beta1 from './v1beta1/index.ts';
export * as v1alpha1 from './v1alpha1/index.ts';
export { buildCrds, buildCrd, KUBERNETES_OPENAPI_SOURCE } from './crd/build-crds.ts';
export { renderCrdsYaml, renderCrd, crdFileName } from './crd/render.ts';
export { diffCrds } from './crd/crd-diff.ts';
export {
  validateObject,
  type ValidateOptions,
  type ValidateResult,
} from './validation/validate.ts';
export {
  checkAdditionalPodMetadata,
  DEFAULT_ALLOWED_LABEL_DOMAINS,
  type PodMetadataViolation,
} from './validation/pod-metadata-policy.ts';
export * from './conversion/annotations.ts';
export { convert } from './conversion/convert.ts';
export { ConversionError, type ConversionErrorCode } from './conversion/errors.ts';
export { sandboxToV1alpha1, sandboxToV1beta1 } from './conversion/sandbox.ts';
export {
  sandboxTemplateToV1alpha1,
  sandboxTemplateToV1beta1,
} from './conversion/sandbox-template.ts';
export { sandboxClaimToV1alpha1, sandboxClaimToV1beta1 } from './conversion/sandbox-claim.ts';
export {
  sandboxWarmPoolToV1alpha1,
  sandboxWarmPoolToV1beta1,
} from './conversion/sandbox-warm-pool.ts';
export * from './rbac/controller-roles.ts';
export * from './rbac/component-roles.ts';
