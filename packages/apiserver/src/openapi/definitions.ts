// The built-in schemas and query parameters the /openapi documents publish, as captured from
// k8s.io/kubernetes' api/openapi-spec/v3 at a pinned version (scripts/openapi/capture-k8s-openapi.ts),
// plus the small JSON helpers the document builders share.
import openapi from '@agent-sandbox/kube-types/openapi/k8s-openapi.json' with { type: 'json' };

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

interface Captured {
  schemas: Record<string, JsonObject>;
  serverSchemas: Record<string, JsonObject>;
  parameters: Record<string, JsonObject[] | JsonObject>;
}

const captured = openapi as unknown as Captured;

/** Every captured built-in definition, by OpenAPI name (`io.k8s.api.core.v1.Pod`). */
export const BUILTIN_DEFINITIONS: Readonly<Record<string, JsonObject>> = {
  ...captured.schemas,
  ...captured.serverSchemas,
};

export const V3_PREFIX = '#/components/schemas/';
export const V2_PREFIX = '#/definitions/';

export const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
export const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
export const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
export const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
export const PATCH = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';
export const WATCH_EVENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';
export const API_RESOURCE_LIST = 'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList';
export const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

/** The option structs kube-apiserver documents as query parameters, per action. */
export type OptionsKind = 'create' | 'update' | 'patch' | 'delete' | 'deletecollection' | 'list';

/** The query parameters of one action (v3 Parameter objects, sorted by name). */
export function optionParameters(kind: OptionsKind): JsonObject[] {
  const params = captured.parameters[kind];
  if (!Array.isArray(params)) throw new Error(`captured openapi has no parameters for ${kind}`);
  return params;
}

export function prettyParameter(): JsonObject {
  const p = captured.parameters['pretty'];
  if (p === undefined || Array.isArray(p))
    throw new Error('captured openapi has no pretty parameter');
  return p;
}

function gvkKey(g: GroupVersionKind): string {
  return `${g.group}/${g.version}/${g.kind}`;
}

const GVK_INDEX = new Map<string, string>(
  Object.entries(BUILTIN_DEFINITIONS).flatMap(([name, schema]) =>
    gvksOf(schema).map((g) => [gvkKey(g), name] as const),
  ),
);

/** The built-in definition that declares a GVK in `x-kubernetes-group-version-kind`. */
export function builtinDefinitionFor(gvk: GroupVersionKind): string | undefined {
  return GVK_INDEX.get(gvkKey(gvk));
}

/** The `x-kubernetes-group-version-kind` entries of a component schema. */
export function gvksOf(schema: JsonObject): GroupVersionKind[] {
  const ext = schema['x-kubernetes-group-version-kind'];
  if (!Array.isArray(ext)) return [];
  return ext.flatMap((e) =>
    e !== null && typeof e === 'object' && !Array.isArray(e)
      ? [
          {
            group: String(e['group'] ?? ''),
            version: String(e['version'] ?? ''),
            kind: String(e['kind'] ?? ''),
          },
        ]
      : [],
  );
}

export function isObject(v: Json | undefined): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Definition names referenced (`$ref: <prefix><name>`) anywhere below a node. */
export function referencedNames(node: Json, prefix: string, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => referencedNames(n, prefix, out));
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(prefix))
        out.add(value.slice(prefix.length));
      else referencedNames(value, prefix, out);
    }
  }
  return out;
}

/**
 * The named definitions plus everything they reference, transitively. `lookup` resolves a name;
 * names it cannot resolve are an error, since the document would carry a dangling `$ref`.
 */
export function definitionClosure(
  roots: Iterable<string>,
  lookup: (name: string) => JsonObject | undefined,
  prefix: string,
): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  const todo = [...roots];
  while (todo.length > 0) {
    const name = todo.pop() as string;
    if (out[name] !== undefined) continue;
    const schema = lookup(name);
    if (!schema) throw new Error(`openapi definition ${name} is not known`);
    out[name] = schema;
    todo.push(...referencedNames(schema, prefix));
  }
  return out;
}

/** A deep copy with object keys sorted, as Go's encoding/json writes maps: stable bytes, stable hashes. */
export function sortedKeys(node: Json): Json {
  if (Array.isArray(node)) return node.map(sortedKeys);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const key of Object.keys(node).sort()) out[key] = sortedKeys(node[key] as Json);
  return out;
}

/** ToValidOperationID from k8s.io/apiserver/pkg/endpoints/openapi: letters, `_` and inner digits. */
export function toValidOperationId(s: string, capitalizeFirst: boolean): string {
  let out = '';
  let capitalize = capitalizeFirst;
  [...s].forEach((ch, i) => {
    if (/\p{L}/u.test(ch) || ch === '_' || (i !== 0 && /\p{Nd}/u.test(ch))) {
      out += capitalize ? ch.toUpperCase() : ch;
      capitalize = false;
    } else capitalize = true;
  });
  return out;
}
