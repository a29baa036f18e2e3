// meta.k8s.io/v1 Table wire types (k8s.io/apimachinery/pkg/apis/meta/v1 types.go), in the key
// order Go serialises them.
import type { ListMeta } from '@agent-sandbox/kube-types';
import type { TableCell } from '../jsonpath/index.ts';

/** A cell: string, int64/float64 number, bool, or null (kubectl prints `<none>`). */
export type { TableCell };

/** Every key is always present on the wire (empty string / 0 allowed). */
export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: TableCell[];
  /** Only set when the printer reports one (`Completed` for finished pods). */
  conditions?: TableRowCondition[];
  /** PartialObjectMetadata, the full object, or null for includeObject=None. */
  object: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';
  metadata: ListMeta;
  /** `null` when headers are suppressed (watch events after the first). */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** `?includeObject=`: what each row's `object` holds. */
export type IncludeObjectPolicy = 'None' | 'Metadata' | 'Object';
