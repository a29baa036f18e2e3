// The one set of printers for cluster verbs (-o table|json|yaml|name), kubectl's formats: a
// padded table with upper-case headers, a single object or a v1 List as JSON or YAML, and
// `kind.group/name` lines.
import type { KubeObject } from '@agent-sandbox/kube-types';
import { stringify } from 'yaml';
import type { CommandIO } from './io.ts';
import type { OutputFormat } from './cluster-options.ts';

export interface Column<T> {
  /** Printed upper-case, as kubectl does. */
  header: string;
  value: (obj: T) => string;
}

export interface PrintOptions<T> {
  format: OutputFormat;
  /** Table columns; NAME is always first. */
  columns?: readonly Column<T>[];
  /** Print a v1 List even for one object (a list verb); a get of one name prints the object. */
  asList?: boolean;
}

/** Prints objects in the chosen format; an empty table says so on stderr, as kubectl does. */
export function printObjects<T extends KubeObject>(
  objects: readonly T[],
  io: Pick<CommandIO, 'stdout' | 'stderr'>,
  options: PrintOptions<T>,
): void {
  switch (options.format) {
    case 'json':
      io.stdout(`${JSON.stringify(document(objects, options.asList), null, 4)}\n`);
      return;
    case 'yaml':
      io.stdout(stringify(document(objects, options.asList)));
      return;
    case 'name':
      for (const obj of objects) io.stdout(`${qualifiedName(obj)}\n`);
      return;
    case 'table':
      if (objects.length === 0) {
        io.stderr('No resources found\n');
        return;
      }
      io.stdout(table(objects, options.columns ?? []));
      return;
  }
}

/** `sandbox.agents.x-k8s.io/name`, `pod/name` (kubectl -o name). */
export function qualifiedName(obj: KubeObject): string {
  const apiVersion = obj.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return `${(obj.kind ?? '').toLowerCase()}${group ? `.${group}` : ''}/${obj.metadata.name ?? ''}`;
}

function document(objects: readonly KubeObject[], asList = true): unknown {
  if (!asList && objects.length === 1) return objects[0];
  return { apiVersion: 'v1', kind: 'List', items: objects, metadata: { resourceVersion: '' } };
}

function table<T extends KubeObject>(objects: readonly T[], columns: readonly Column<T>[]): string {
  const all: Column<T>[] = [{ header: 'name', value: (o) => o.metadata.name ?? '' }, ...columns];
  const rows = [
    all.map((c) => c.header.toUpperCase()),
    ...objects.map((o) => all.map((c) => c.value(o))),
  ];
  const widths = all.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3)))
        .join('')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}
