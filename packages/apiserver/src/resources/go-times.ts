// kube-apiserver decodes a built-in object into Go structs and encodes it again, so a
// metav1.Time comes back in RFC 3339 UTC with whole seconds (the fraction is dropped, an offset
// becomes Z) and a metav1.MicroTime with exactly six fractional digits. Custom resources are
// stored as sent. This finds the Time and MicroTime fields of a built-in kind from its OpenAPI
// definition and rewrites their values in place, as that round trip would.
import openapi from '@agent-sandbox/kube-types/openapi/k8s-openapi.json' with { type: 'json' };
import { formatUnixTime } from '@agent-sandbox/kube-types';

interface RawSchema {
  $ref?: string;
  allOf?: RawSchema[];
  items?: RawSchema;
  properties?: Record<string, RawSchema>;
  additionalProperties?: RawSchema | boolean;
}

const captured = openapi as unknown as {
  schemas: Record<string, RawSchema>;
  serverSchemas: Record<string, RawSchema>;
};
const DEFS: Record<string, RawSchema> = { ...captured.schemas, ...captured.serverSchemas };
const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';

/** Where the times are below one schema node; undefined where there are none. */
type TimeTree =
  | { kind: 'time' | 'micro' }
  | {
      kind: 'object';
      properties: Map<string, TimeTree>;
      items?: TimeTree;
      values?: TimeTree;
    };

const trees = new Map<string, TimeTree | undefined>();

function refOf(s: RawSchema): string | undefined {
  const ref = s.$ref ?? s.allOf?.find((a) => a.$ref !== undefined)?.$ref;
  return ref?.split('/').pop();
}

function treeOf(s: RawSchema, visiting: Set<string>): TimeTree | undefined {
  const ref = refOf(s);
  if (ref !== undefined) return treeOfDefinition(ref, visiting);
  const properties = new Map<string, TimeTree>();
  for (const [name, child] of Object.entries(s.properties ?? {})) {
    const t = treeOf(child, visiting);
    if (t !== undefined) properties.set(name, t);
  }
  const items = s.items ? treeOf(s.items, visiting) : undefined;
  const values =
    typeof s.additionalProperties === 'object'
      ? treeOf(s.additionalProperties, visiting)
      : undefined;
  if (properties.size === 0 && items === undefined && values === undefined) return undefined;
  return {
    kind: 'object',
    properties,
    ...(items ? { items } : {}),
    ...(values ? { values } : {}),
  };
}

function treeOfDefinition(name: string, visiting: Set<string>): TimeTree | undefined {
  if (name === TIME) return { kind: 'time' };
  if (name === MICRO_TIME) return { kind: 'micro' };
  if (trees.has(name)) return trees.get(name);
  // A recursive definition (JSONSchemaProps) holds no times of its own below the cycle.
  if (visiting.has(name)) return undefined;
  const def = DEFS[name];
  if (def === undefined) return undefined;
  visiting.add(name);
  const tree = treeOf(def, visiting);
  visiting.delete(name);
  trees.set(name, tree);
  return tree;
}

// RFC 3339 as Go's time.Parse reads it: seconds, an optional fraction of any length, a zone.
const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i;

const MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

/** Go's time.Parse complaint about a MicroTime without exactly six fractional digits. */
function microLayoutError(value: string, fraction: string | undefined, zone: string): string {
  const rest =
    fraction !== undefined && fraction.length > 6
      ? `"${fraction.slice(6)}${zone}" as "Z07:00"`
      : `"${fraction !== undefined ? `.${fraction}` : ''}${zone}" as ".000000"`;
  return `parsing time "${value}" as "${MICRO_LAYOUT}": cannot parse ${rest}`;
}

/** The value as Go writes it back, or the decoding error kube answers 400 with. */
function goTime(kind: 'time' | 'micro', value: string): string | { error: string } {
  const m = RFC3339.exec(value);
  const ms = m ? Date.parse(`${m[1]}${m[3]?.toUpperCase()}`) : Number.NaN;
  // Malformed values are the schema check's to refuse; leave them as they are.
  if (!m || Number.isNaN(ms)) return value;
  const seconds = Math.floor(ms / 1000);
  if (kind === 'time') return formatUnixTime(seconds);
  // MicroTime is parsed with its own layout: exactly six digits.
  if (m[2]?.length !== 6) return { error: microLayoutError(value, m[2], m[3] ?? '') };
  return formatUnixTime(seconds, Number(m[2]));
}

function rewrite(tree: TimeTree, value: unknown, errors: string[]): unknown {
  if (tree.kind !== 'object') {
    if (typeof value !== 'string') return value;
    const out = goTime(tree.kind, value);
    if (typeof out === 'string') return out;
    errors.push(out.error);
    return value;
  }
  if (Array.isArray(value)) {
    if (tree.items)
      for (let i = 0; i < value.length; i++) value[i] = rewrite(tree.items, value[i], errors);
    return value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const obj = value as Record<string, unknown>;
  for (const [key, child] of Object.entries(obj)) {
    const t = tree.properties.get(key) ?? tree.values;
    if (t !== undefined && child !== undefined) obj[key] = rewrite(t, child, errors);
  }
  return obj;
}

/**
 * Rewrites the Time and MicroTime values of a built-in object of the named OpenAPI definition
 * (e.g. `io.k8s.api.core.v1.Pod`) in place. Returns the first value Go could not decode (kube's
 * 400 "cannot be handled as" detail), or undefined.
 */
export function normalizeGoTimes(
  definition: string,
  obj: Record<string, unknown>,
): string | undefined {
  const tree = treeOfDefinition(definition, new Set());
  if (tree === undefined) return undefined;
  const errors: string[] = [];
  rewrite(tree, obj, errors);
  return errors[0];
}
