// meta.k8s.io Table responses (semantics doc §10) for custom resources (apiextensions
// tableconvertor), the built-in kinds we serve (printers, always wide) and everything else
// (rest.DefaultTableConvertor: Name + Created At), plus the handler's includeObject step (asTable).
import { formatBadValue } from '@agent-sandbox/crd-schema';
import {
  formatTime,
  type CustomResourceColumnDefinition,
  type ListMeta,
} from '@agent-sandbox/kube-types';
import {
  parseJsonPath,
  parseRfc3339,
  printerColumnCell,
  type JsonPath,
} from '../jsonpath/index.ts';
import { BUILTIN_PRINTERS, NAME_COLUMN, type PrintedRow } from './builtin-printers.ts';
import { DESCRIPTIONS } from './descriptions.ts';
import { TableError } from './errors.ts';
import type { IncludeObjectPolicy, Table, TableColumnDefinition, TableRow } from './types.ts';

export interface BuildTableOptions {
  /**
   * The resource, keyed like FIELD_SELECTORS: `pods`, `events.k8s.io/events`, ... Chooses the
   * built-in printer; resources without one get Name + Created At. Ignored when `columns` is set.
   */
  resource: string;
  /**
   * Set for custom resources: the served version's additionalPrinterColumns. `[]` (or a CRD
   * without columns) gives the default `Age` column, as the CRD handler does.
   */
  columns?: readonly CustomResourceColumnDefinition[];
  /** The objects, in list order (one object for a GET). */
  objects: readonly unknown[];
  /**
   * The raw `includeObject` query value. `undefined`/`''` mean Metadata.
   * @throws TableError `InvalidIncludeObject` for anything else than None, Metadata, Object
   */
  includeObject?: IncludeObjectPolicy | string;
  /** The clock for every relative age in the table. */
  now: Date;
  /**
   * The list's metadata (resourceVersion, continue, remainingItemCount). Omit for a single GET:
   * the table then carries that object's resourceVersion.
   */
  listMeta?: ListMeta;
  /** Leave `columnDefinitions` null (watch events after the first; TableOptions.noHeaders). */
  noHeaders?: boolean;
  /** The Table version requested in the Accept header. @default 'v1' */
  tableVersion?: 'v1' | 'v1beta1';
}

const INCLUDE_OBJECT_VALUES: readonly string[] = ['None', 'Metadata', 'Object'];

/**
 * Validates `?includeObject=` the way the apiserver's table negotiation does.
 * @throws TableError `InvalidIncludeObject` with kube's 400 message
 */
export function parseIncludeObject(value: string | undefined): IncludeObjectPolicy {
  if (value === undefined || value === '') return 'Metadata';
  if (INCLUDE_OBJECT_VALUES.includes(value)) return value as IncludeObjectPolicy;
  throw new TableError(
    'InvalidIncludeObject',
    `Unable to convert to Table as requested: includeObject: Invalid value: ${formatBadValue(value)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}

interface ObjectWithMeta {
  metadata?: { name?: string; resourceVersion?: string; creationTimestamp?: string };
}

function metaOf(obj: unknown): NonNullable<ObjectWithMeta['metadata']> {
  return (obj as ObjectWithMeta | null)?.metadata ?? {};
}

/** A row producer plus its column definitions: one of the three convertors. */
interface Convertor {
  columns: TableColumnDefinition[];
  row(obj: unknown, now: Date): PrintedRow;
}

/** apiextensions tableconvertor.New with serveDefaultColumnsIfEmpty. */
function customResourceConvertor(defs: readonly CustomResourceColumnDefinition[]): Convertor {
  const effective: readonly CustomResourceColumnDefinition[] =
    defs.length > 0
      ? defs
      : [
          {
            name: 'Age',
            type: 'date',
            description: DESCRIPTIONS['ObjectMeta.creationTimestamp'],
            jsonPath: '.metadata.creationTimestamp',
          },
        ];
  const columns: TableColumnDefinition[] = [NAME_COLUMN];
  const paths: { type: string; path: JsonPath }[] = [];
  for (const col of effective) {
    let path: JsonPath;
    try {
      path = parseJsonPath(col.jsonPath);
    } catch {
      // kube logs "invalid printer specification" and keeps the columns parsed so far.
      break;
    }
    paths.push({ type: col.type, path });
    columns.push({
      name: col.name,
      type: col.type,
      format: col.format ?? '',
      description:
        col.description !== undefined && col.description !== ''
          ? col.description
          : `Custom resource definition column (in JSONPath format): ${col.jsonPath}`,
      priority: col.priority ?? 0,
    });
  }
  return {
    columns,
    row: (obj, now) => ({
      cells: [metaOf(obj).name ?? '', ...paths.map((p) => printerColumnCell(p, p.path, obj, now))],
    }),
  };
}

/** time.Time.UTC().Format(time.RFC3339) of a creationTimestamp (zero time when absent). */
function rfc3339(timestamp: string | undefined): string {
  const t = timestamp === undefined ? null : parseRfc3339(timestamp);
  if (t === null || t === undefined) return '0001-01-01T00:00:00Z';
  return formatTime(t);
}

/** rest.DefaultTableConvertor: Name and `Created At` (a date column holding RFC 3339). */
const DEFAULT_CONVERTOR: Convertor = {
  columns: [
    NAME_COLUMN,
    {
      name: 'Created At',
      type: 'date',
      format: '',
      description: DESCRIPTIONS['ObjectMeta.creationTimestamp'],
      priority: 0,
    },
  ],
  row: (obj) => ({ cells: [metaOf(obj).name ?? '', rfc3339(metaOf(obj).creationTimestamp)] }),
};

function convertorFor(opts: BuildTableOptions): Convertor {
  if (opts.columns !== undefined) return customResourceConvertor(opts.columns);
  const printer = BUILTIN_PRINTERS[opts.resource];
  if (printer === undefined) return DEFAULT_CONVERTOR;
  return { columns: [...printer.columns], row: (obj, now) => printer.print(obj, now) };
}

function rowObject(obj: unknown, policy: IncludeObjectPolicy, tableApiVersion: string): unknown {
  switch (policy) {
    case 'None':
      // RawExtension with neither Raw nor Object marshals as null.
      return null;
    case 'Object':
      return obj;
    case 'Metadata':
      return {
        kind: 'PartialObjectMetadata',
        apiVersion: tableApiVersion,
        metadata: (obj as ObjectWithMeta | null)?.metadata ?? {},
      };
  }
}

/**
 * Builds the Table for a list or a single object. Pure: `now` is the only clock; objects are
 * not modified (row objects share them).
 * @throws TableError `InvalidIncludeObject`
 */
export function buildTable(opts: BuildTableOptions): Table {
  const policy = parseIncludeObject(opts.includeObject);
  const apiVersion = opts.tableVersion === 'v1beta1' ? 'meta.k8s.io/v1beta1' : 'meta.k8s.io/v1';
  const convertor = convertorFor(opts);

  const rows: TableRow[] = opts.objects.map((obj) => {
    const printed = convertor.row(obj, opts.now);
    const row: TableRow = { cells: printed.cells, object: null };
    if (printed.conditions !== undefined)
      row.conditions = printed.conditions.map((c) => ({ ...c }));
    row.object = rowObject(obj, policy, apiVersion);
    return row;
  });

  let metadata: ListMeta;
  if (opts.listMeta !== undefined) {
    metadata = {};
    if (opts.listMeta.resourceVersion) metadata.resourceVersion = opts.listMeta.resourceVersion;
    if (opts.listMeta.continue) metadata.continue = opts.listMeta.continue;
    if (
      opts.listMeta.remainingItemCount !== undefined &&
      opts.listMeta.remainingItemCount !== null
    ) {
      metadata.remainingItemCount = opts.listMeta.remainingItemCount;
    }
  } else {
    const rv = opts.objects.length === 1 ? metaOf(opts.objects[0]).resourceVersion : undefined;
    metadata = rv ? { resourceVersion: rv } : {};
  }

  return {
    kind: 'Table',
    apiVersion,
    metadata,
    columnDefinitions: opts.noHeaders === true ? null : convertor.columns.map((c) => ({ ...c })),
    rows,
  };
}
