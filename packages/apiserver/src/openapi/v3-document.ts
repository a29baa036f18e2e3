// The OpenAPI 3.0 document of one group-version (`/openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>`):
// paths from the served resources' routes, components.schemas the closure of every schema they
// reference, built-ins from the captured Kubernetes definitions and CRDs from their versions'
// schemas (semantics doc §1.5).
import type { ResourceInfo } from '../resources/resource.ts';
import { crdDefinitions } from './crd-definitions.ts';
import {
  BUILTIN_DEFINITIONS,
  definitionClosure,
  optionParameters,
  prettyParameter,
  referencedNames,
  sortedKeys,
  V3_PREFIX,
  type JsonObject,
} from './definitions.ts';
import { resourceRoutes } from './resource-routes.ts';
import { apiResourcesRoute, type Route } from './route.ts';

/** The parameters of one operation, path parameters first, as the route lists them. */
export function routeParameters(route: Route): JsonObject[] {
  const path = route.pathParameters.map((p): JsonObject => ({
    description: p.description,
    in: 'path',
    name: p.name,
    required: true,
    schema: { type: 'string', uniqueItems: true },
  }));
  // The group-version discovery route takes no parameters at all.
  if (route.action === undefined) return path;
  return [...path, prettyParameter(), ...(route.options ? optionParameters(route.options) : [])];
}

function paramKey(p: JsonObject): string {
  return `${String(p['in'])}/${String(p['name'])}`;
}

function byName(a: JsonObject, b: JsonObject): number {
  return String(a['name']).localeCompare(String(b['name']));
}

/**
 * Groups routes into path items. Parameters every operation of a path shares move up to the path
 * item, as kube-openapi's builder does; the rest (fieldValidation on PATCH, where kubectl looks
 * for it) stay on the operation.
 */
export function pathItems<Op>(
  routes: Route[],
  render: (route: Route, params: JsonObject[]) => Op,
): Map<string, { shared: JsonObject[]; operations: Map<string, Op> }> {
  const byPath = new Map<string, Route[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  const out = new Map<string, { shared: JsonObject[]; operations: Map<string, Op> }>();
  for (const [path, group] of [...byPath.entries()].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  )) {
    const perRoute = group.map((route) => routeParameters(route));
    const counts = new Map<string, number>();
    for (const params of perRoute)
      for (const p of params) counts.set(paramKey(p), (counts.get(paramKey(p)) ?? 0) + 1);
    const isShared = (p: JsonObject) => counts.get(paramKey(p)) === group.length;
    const shared = (perRoute[0] ?? []).filter(isShared).sort(byName);
    const operations = new Map<string, Op>();
    group.forEach((route, i) => {
      operations.set(
        route.method,
        render(route, (perRoute[i] ?? []).filter((p) => !isShared(p)).sort(byName)),
      );
    });
    out.set(path, { shared, operations });
  }
  return out;
}

function schemaRef(name: string): JsonObject {
  return { $ref: `${V3_PREFIX}${name}` };
}

function v3Operation(route: Route, params: JsonObject[]): JsonObject {
  const op: JsonObject = { description: route.description, operationId: route.operationId };
  if (params.length > 0) op['parameters'] = params;
  if (route.body) {
    const schema = schemaRef(route.body.schema);
    op['requestBody'] = {
      content: Object.fromEntries(route.consumes.map((t) => [t, { schema }])),
      ...(route.body.required ? { required: true } : {}),
    };
  }
  const responses: JsonObject = {};
  for (const r of route.responses) {
    const schema = r.schema;
    responses[r.code] = schema
      ? {
          content: Object.fromEntries(
            route.produces.map((t) => [t, { schema: schemaRef(schema) }]),
          ),
          description: r.description,
        }
      : { description: r.description };
  }
  op['responses'] = responses;
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

/** The definitions a set of resources brings, CRD ones generated and built-ins from the capture. */
export function definitionLookup(
  resources: readonly ResourceInfo[],
  version: string | undefined,
  flavor: 'v2' | 'v3',
): (name: string) => JsonObject | undefined {
  const local: Record<string, JsonObject> = {};
  for (const r of resources) {
    if (!r.crd) continue;
    for (const v of version === undefined ? r.versions : [version])
      Object.assign(local, crdDefinitions(r.crd, v, flavor));
  }
  return (name) => local[name] ?? BUILTIN_DEFINITIONS[name];
}

/** The self-contained OpenAPI v3 document of one group-version. */
export function groupVersionDocument(
  resources: readonly ResourceInfo[],
  group: string,
  version: string,
): JsonObject {
  const routes = [
    apiResourcesRoute(group, version),
    ...resources.flatMap((r) => resourceRoutes(r, version)),
  ];
  const paths: JsonObject = {};
  for (const [path, item] of pathItems(routes, v3Operation)) {
    const entry: JsonObject = Object.fromEntries(item.operations);
    if (item.shared.length > 0) entry['parameters'] = item.shared;
    paths[path] = entry;
  }
  const lookup = definitionLookup(resources, version, 'v3');
  const roots = referencedNames(paths, V3_PREFIX);
  const schemas = definitionClosure(roots, lookup, V3_PREFIX);
  const allCrds = resources.length > 0 && resources.every((r) => r.crd !== undefined);
  return sortedKeys({
    openapi: '3.0.0',
    info: allCrds
      ? { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' }
      : { title: 'Kubernetes', version: 'unversioned' },
    paths,
    components: {
      schemas,
      securitySchemes: {
        BearerToken: {
          description: 'Bearer Token authentication',
          in: 'header',
          name: 'authorization',
          type: 'apiKey',
        },
      },
    },
  }) as JsonObject;
}
