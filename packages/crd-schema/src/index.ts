// @agent-sandbox/crd-schema: kube-apiserver's structural-schema engine for custom resources.
export {
  StructuralSchema,
  admit,
  isRulesSkippedIssue,
  type AdmitResult,
} from './structural-schema.ts';
export {
  formatFieldIssue,
  formatBadValue,
  OMIT_VALUE,
  required,
  invalid,
  typeInvalid,
  forbidden,
  duplicate,
  notSupported,
  tooLong,
  tooMany,
  type FieldIssue,
} from './field-issue.ts';
export { SchemaError, type SchemaErrorCode } from './errors.ts';
export {
  embedCoreSchema,
  CoreSchemaError,
  type OpenApiDefinition,
  type OpenApiDefinitions,
} from './openapi-to-structural.ts';
export { validateObjectMeta, type NameRule } from './object-meta-validation.ts';
export {
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
} from './names.ts';
export { goFloat, goNumber, goQuote } from './go-format.ts';
