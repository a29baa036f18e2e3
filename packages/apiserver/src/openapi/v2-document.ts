// The Swagger 2.0 document served at /openapi/v2 (semantics doc §1.6): every served resource's
// routes and definitions in v2 form. kubectl reads it as protobuf (openapi-v2-proto.ts) for
// client-side validation of `kind: List` documents, patch-type lookups and
// `kubectl explain --output=plaintext-openapiv2`.
import type { ResourceInfo } from '../resources/resource.ts';
import {
  BUILTIN_DEFINITIONS,
  definitionClosure,
  isObject,
  referencedNames,
  sortedKeys,
  V2_PREFIX,
  V3_PREFIX,
  type Json,
  type JsonObject,
} from './definitions.ts';
import { resourceRoutes } from './resource-routes.ts';
import { apiResourcesRoute, type Route } from './route.ts';
import { definitionLookup, pathItems } from './v3-document.ts';

/**
 * A captured (v3) built-in definition in v2 form: `#/definitions/` references, `allOf: [$ref]`
 * wrappers unwrapped (v2 allows siblings next to `$ref`), and the int-or-string/quantity `oneOf`
 * turned back into `type: string` as the real v2 document has it.
 */
export function toV2Schema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toV2Schema);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out[key] = value.replace(V3_PREFIX, V2_PREFIX);
    else if (key === 'oneOf' || key === 'anyOf' || key === 'not' || key === 'nullable') continue;
    else out[key] = toV2Schema(value);
  }
  const allOf = out['allOf'];
  if (
    Array.isArray(allOf) &&
    allOf.length === 1 &&
    isObject(allOf[0]) &&
    typeof allOf[0]['$ref'] === 'string'
  ) {
    out['$ref'] = allOf[0]['$ref'];
    delete out['allOf'];
  }
  if ((node['oneOf'] !== undefined || node['anyOf'] !== undefined) && out['type'] === undefined)
    out['type'] = 'string';
  return out;
}

function v2Parameter(p: JsonObject): JsonObject {
  const schema = isObject(p['schema']) ? p['schema'] : {};
  const out: JsonObject = {
    description: p['description'] ?? '',
    in: p['in'] ?? 'query',
    name: p['name'] ?? '',
  };
  if (p['required'] === true) out['required'] = true;
  if (schema['type'] !== undefined) out['type'] = schema['type'];
  if (schema['uniqueItems'] !== undefined) out['uniqueItems'] = schema['uniqueItems'];
  return out;
}

function v2Operation(route: Route, params: JsonObject[]): JsonObject {
  const parameters: JsonObject[] = [];
  if (route.body) {
    parameters.push({
      in: 'body',
      name: 'body',
      required: route.body.required,
      schema: { $ref: `${V2_PREFIX}${route.body.schema}` },
    });
  }
  parameters.push(...params.map(v2Parameter));
  const responses: JsonObject = {};
  for (const r of route.responses) {
    responses[r.code] = r.schema
      ? { description: r.description, schema: { $ref: `${V2_PREFIX}${r.schema}` } }
      : { description: r.description };
  }
  const op: JsonObject = { description: route.description, operationId: route.operationId };
  if (route.consumes.length > 0) op['consumes'] = route.consumes;
  if (parameters.length > 0) op['parameters'] = parameters;
  op['produces'] = route.produces;
  op['responses'] = responses;
  op['schemes'] = ['https'];
  op['tags'] = [route.tag];
  if (route.action) op['x-kubernetes-action'] = route.action;
  if (route.gvk)
    op['x-kubernetes-group-version-kind'] = {
      group: route.gvk.group,
      kind: route.gvk.kind,
      version: route.gvk.version,
    };
  return op;
}

/** The Swagger 2.0 document of every served resource in every served version. */
export function swaggerDocument(resources: readonly ResourceInfo[]): JsonObject {
  const groupVersions = new Map<string, { group: string; version: string }>();
  const routes: Route[] = [];
  for (const r of resources) {
    for (const version of r.versions) {
      groupVersions.set(`${r.group}/${version}`, { group: r.group, version });
      routes.push(...resourceRoutes(r, version));
    }
  }
  for (const { group, version } of groupVersions.values())
    routes.push(apiResourcesRoute(group, version));
  const paths: JsonObject = {};
  for (const [path, item] of pathItems(routes, v2Operation)) {
    const entry: JsonObject = Object.fromEntries(item.operations);
    if (item.shared.length > 0) entry['parameters'] = item.shared.map(v2Parameter);
    paths[path] = entry;
  }
  const crdLookup = definitionLookup(
    resources.filter((r) => r.crd !== undefined),
    undefined,
    'v2',
  );
  const lookup = (name: string): JsonObject | undefined => {
    const builtin = BUILTIN_DEFINITIONS[name];
    if (builtin) return toV2Schema(builtin) as JsonObject;
    return crdLookup(name);
  };
  const definitions = definitionClosure(referencedNames(paths, V2_PREFIX), lookup, V2_PREFIX);
  return sortedKeys({
    swagger: '2.0',
    info: { title: 'Kubernetes', version: 'unversioned' },
    paths,
    definitions,
    securityDefinitions: {
      BearerToken: {
        description: 'Bearer Token authentication',
        in: 'header',
        name: 'authorization',
        type: 'apiKey',
      },
    },
    security: [{ BearerToken: [] }],
  }) as JsonObject;
}
