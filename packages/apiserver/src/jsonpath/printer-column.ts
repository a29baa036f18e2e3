// Cells of CRD additionalPrinterColumns, as apiextensions-apiserver's table convertor renders
// them (registry/customresource/tableconvertor): the column's JSONPath runs with missing keys
// allowed; only the first value of the first result is used; `string` columns print it the way
// `kubectl -o jsonpath` would (objects as JSON), other types keep the JSON value, `date` becomes
// a relative age. Anything unresolvable is `null`, which kubectl shows as `<none>`.
import type { JsonPath } from './evaluate.ts';
import { JsonPathError } from './errors.ts';
import { FloatLiteral, printValue } from './go-print.ts';
import { humanDuration, parseRfc3339 } from './human-duration.ts';

/** A Table cell value: what metav1.TableRow.cells carries. */
export type TableCell = string | number | boolean | null;

/** cellForJSONValue: the typed cell of a non-string column. */
export function cellForJsonValue(type: string, value: unknown, now: Date): TableCell {
  if (value === null || value === undefined) return null;
  const v = value instanceof FloatLiteral ? value.value : value;
  switch (type) {
    case 'integer':
      // int64 stays; a float64 converts by truncation toward zero.
      return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    case 'string':
      return typeof v === 'string' ? v : null;
    case 'date': {
      if (typeof v !== 'string') return null;
      const t = parseRfc3339(v);
      if (t === undefined) return '<invalid>';
      if (t === null) return '<unknown>';
      return humanDuration(now.getTime() - t);
    }
    default:
      return null;
  }
}

/**
 * The cell of one printer column for one object. `path` must come from `parseJsonPath` with
 * missing keys allowed (the default). Never throws for evaluation problems: they give `null`.
 */
export function printerColumnCell(
  column: { type: string },
  path: JsonPath,
  obj: unknown,
  now: Date,
): TableCell {
  let results: unknown[][];
  try {
    results = path.findResults(obj);
  } catch (err: unknown) {
    if (err instanceof JsonPathError) return null;
    throw err;
  }
  const first = results[0];
  if (first === undefined || first.length === 0) return null;
  const value = first[0];
  if (column.type === 'string') return printValue(value, '<no value>');
  return cellForJsonValue(column.type, value, now);
}
