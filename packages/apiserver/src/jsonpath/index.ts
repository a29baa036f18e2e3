// The Kubernetes JSONPath dialect (client-go util/jsonpath) and CRD printer-column rendering.
export { JsonPathError, type JsonPathErrorCode } from './errors.ts';
export {
  parseJsonPath,
  parseJsonPathTemplate,
  type JsonPath,
  type JsonPathOptions,
} from './evaluate.ts';
export { printValue, goJsonMarshal } from './go-print.ts';
export { humanDuration, humanAge, parseRfc3339 } from './human-duration.ts';
export { printerColumnCell, cellForJsonValue, type TableCell } from './printer-column.ts';
