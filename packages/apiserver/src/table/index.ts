// meta.k8s.io Table responses for `kubectl get`: custom resources from additionalPrinterColumns,
// the built-in kinds with kube-apiserver's printers, everything else with Name + Created At.
export { buildTable, parseIncludeObject, type BuildTableOptions } from './build-table.ts';
export { BUILTIN_PRINTERS, type BuiltinPrinter, type PrintedRow } from './builtin-printers.ts';
export { TableError, type TableErrorCode } from './errors.ts';
export type {
  Table,
  TableCell,
  TableColumnDefinition,
  TableRow,
  TableRowCondition,
  IncludeObjectPolicy,
} from './types.ts';
