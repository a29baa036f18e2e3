// Label and field selectors with kube-apiserver's grammar, matching and error messages.
export { SelectorError, type SelectorErrorCode } from './errors.ts';
export {
  parseLabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  everythingLabelSelector,
  nothingLabelSelector,
  formatLabelSelector,
  formatLabels,
  type LabelSelector,
  type LabelRequirement,
  type LabelOperator,
  type LabelSelectorObject,
  type LabelSelectorRequirementObject,
} from './label-selector.ts';
export {
  parseFieldSelector,
  everythingFieldSelector,
  escapeFieldValue,
  unescapeFieldValue,
  type FieldSelector,
  type FieldRequirement,
  type FieldOperator,
  type FieldSelectorSpec,
} from './field-selector.ts';
export {
  validateLabelSelector,
  validateLabels,
  validateLabelName,
  type ValidateLabelSelectorOptions,
} from './validate-label-selector.ts';
export {
  FIELD_SELECTORS,
  customResourceFieldSelectors,
  type SelectableField,
} from './field-selectors.ts';
