// Reads manifests from files, directories (recursively: *.yaml, *.yml, *.json) or stdin ("-"),
// splitting multi-document YAML streams and kubectl-style `List` objects into documents.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CliError } from './errors.ts';

export interface ManifestDocument {
  /** Where it came from: `file.yaml#2` (1-based document index). */
  source: string;
  /** The parsed value, or undefined when it could not be parsed. */
  value?: unknown;
  /** A syntax error with its line, when the document could not be parsed. */
  error?: string;
}

const MANIFEST_EXTENSIONS = /\.(ya?ml|json)$/i;

/** A path that cannot be read (code `InvalidInput`, exit 1). */
export class ManifestReadError extends CliError {
  constructor(message: string, options?: ErrorOptions) {
    super('InvalidInput', message, options);
  }
}

/** Files named by one `-f` argument, in a stable order. */
export function listManifestFiles(path: string): string[] {
  if (path === '-') return ['-'];
  let stats;
  try {
    stats = statSync(path);
  } catch (err: unknown) {
    throw new ManifestReadError(`cannot read ${path}: no such file or directory`, { cause: err });
  }
  if (!stats.isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return listManifestFiles(child);
      return MANIFEST_EXTENSIONS.test(entry.name) ? [child] : [];
    });
}

/** Splits text into documents; empty documents (a trailing `---`) are dropped. */
export function parseManifests(text: string, name: string): ManifestDocument[] {
  const out: ManifestDocument[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    const source = `${name}#${i + 1}`;
    if (doc.errors.length > 0) {
      const first = doc.errors[0];
      const line = first?.linePos?.[0]?.line;
      out.push({
        source,
        error: `${line ? `line ${line}: ` : ''}${first?.message.split('\n')[0] ?? 'invalid YAML'}`,
      });
      return;
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    const items = (value as { kind?: unknown; items?: unknown }).items;
    if ((value as { kind?: unknown }).kind === 'List' && Array.isArray(items)) {
      items.forEach((item, j) => out.push({ source: `${source}.items[${j}]`, value: item }));
    } else out.push({ source, value });
  });
  return out;
}

export function readManifests(path: string, stdin: () => string): ManifestDocument[] {
  return listManifestFiles(path).flatMap((file) =>
    parseManifests(
      file === '-' ? stdin() : readFileSync(file, 'utf8'),
      file === '-' ? '<stdin>' : file,
    ),
  );
}
