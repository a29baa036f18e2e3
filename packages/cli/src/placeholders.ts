// Placeholders in manifests meant to be filled in before use: `${NAME}` anywhere in a string, as
// envsubst replaces them in upstream's examples (`image: ${IMAGE}`), and a whole value `<NAME>`
// (`image: <IMAGE>`). `validate --set NAME=VALUE` fills both before validation, and any left are
// reported, so a template is never mistaken for a finished manifest.
import { CliError } from './errors.ts';

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WHOLE_VALUE_PLACEHOLDER = /^<([A-Z][A-Z0-9_]*)>$/;

/** A malformed --set (code `InvalidInput`, exit 1). */
export class PlaceholderError extends CliError {
  constructor(message: string, options?: ErrorOptions) {
    super('InvalidInput', message, options);
  }
}

/** Parses `NAME=VALUE` pairs from --set flags. */
export function parseAssignments(pairs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? '' : pair.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new PlaceholderError(
        `--set ${JSON.stringify(pair)}: expected NAME=VALUE, e.g. --set IMAGE=busybox:1.36`,
      );
    }
    out.set(name, pair.slice(eq + 1));
  }
  return out;
}

/** Replaces known placeholders in every string of a parsed document. */
export function substitute(value: unknown, values: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE_VALUE_PLACEHOLDER.exec(value)?.[1];
    if (whole !== undefined) return values.get(whole) ?? value;
    return value.replace(PLACEHOLDER, (text, name: string) => values.get(name) ?? text);
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, values));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, values)]));
  }
  return value;
}

/** Field paths (kubectl style) of strings that still hold a placeholder, with its name. */
export interface PlaceholderUse {
  field: string;
  name: string;
  /** As written: `${NAME}` or `<NAME>`. */
  text: string;
}

export function findPlaceholders(value: unknown, path = ''): PlaceholderUse[] {
  if (typeof value === 'string') {
    const whole = WHOLE_VALUE_PLACEHOLDER.exec(value)?.[1];
    if (whole !== undefined) return [{ field: path, name: whole, text: value }];
    return [...value.matchAll(PLACEHOLDER)].map((m) => ({
      field: path,
      name: m[1] as string,
      text: m[0],
    }));
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => findPlaceholders(v, `${path}[${i}]`));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      findPlaceholders(v, path === '' ? k : `${path}.${k}`),
    );
  }
  return [];
}
