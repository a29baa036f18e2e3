// The routes of one resource in one served version, as kube-apiserver documents them in OpenAPI.
// Built-ins follow the real server's installer (k8s.io/apiserver/pkg/endpoints/installer.go);
// CRDs follow the apiextensions OpenAPI builder, which has no deprecated /watch/ paths and never
// offers strategic merge patch (semantics doc §1.5).
import type { ResourceInfo, SubresourceInfo } from '../resources/resource.ts';
import { crdDefinitionName } from './crd-definitions.ts';
import {
  builtinDefinitionFor,
  DELETE_OPTIONS,
  PATCH,
  SCALE,
  STATUS,
  toValidOperationId,
  WATCH_EVENT,
  type GroupVersionKind,
} from './definitions.ts';
import {
  article,
  BUILTIN_LIST_PRODUCES,
  BUILTIN_PATCH_TYPES,
  CRD_PATCH_TYPES,
  groupVersionPart,
  groupVersionRoot,
  groupVersionTag,
  JSON_YAML,
  response,
  UNAUTHORIZED,
  type Route,
} from './route.ts';

/** The definition names of a resource's kind and list kind in a version. */
export function resourceDefinitions(
  r: ResourceInfo,
  version: string,
): { kind?: string; list?: string } {
  if (r.crd)
    return {
      kind: crdDefinitionName(r.group, version, r.kind),
      list: crdDefinitionName(r.group, version, r.listKind),
    };
  const kind =
    builtinDefinitionFor({ group: r.group, version, kind: r.kind }) ?? r.openApiDefinition;
  const list = builtinDefinitionFor({ group: r.group, version, kind: r.listKind });
  return { ...(kind ? { kind } : {}), ...(list ? { list } : {}) };
}

/** Every documented operation of a resource in one served version. */
export function resourceRoutes(r: ResourceInfo, version: string): Route[] {
  const builtin = r.crd === undefined;
  const defs = resourceDefinitions(r, version);
  const gv = groupVersionPart(r.group, version);
  const ns = r.namespaced ? 'Namespaced' : '';
  const root = groupVersionRoot(r.group, version);
  const collection = `${root}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}`;
  const nsParam = r.namespaced
    ? [
        {
          name: 'namespace',
          description: 'object name and auth scope, such as for teams and projects',
        },
      ]
    : [];
  const nameParam = { name: 'name', description: `name of the ${r.kind}` };
  const gvk: GroupVersionKind = { group: r.group, version, kind: r.kind };
  const bodyTypes = builtin ? ['*/*'] : JSON_YAML;
  const listProduces = builtin ? BUILTIN_LIST_PRODUCES : JSON_YAML;
  const base = { tag: groupVersionTag(r.group, version), gvk };
  const ok = (schema?: string) => response('200', schema);
  const created = (schema?: string) => response('201', schema);
  const accepted = (schema?: string) => response('202', schema);
  const body = (schema: string | undefined, required: boolean) =>
    schema ? { body: { schema, required } } : {};
  const routes: Route[] = [];
  const has = (v: string) => (r.verbs as readonly string[]).includes(v);

  const listRoute = (
    path: string,
    operationId: string,
    params: Route['pathParameters'],
  ): Route => ({
    ...base,
    path,
    method: 'get',
    action: 'list',
    operationId,
    description: `${builtin ? 'list or watch' : 'list'} objects of kind ${r.kind}`,
    pathParameters: params,
    options: 'list',
    consumes: [],
    produces: listProduces,
    responses: [ok(defs.list), UNAUTHORIZED],
  });
  if (has('list')) {
    if (r.namespaced)
      routes.push(listRoute(`${root}/${r.plural}`, `list${gv}${r.kind}ForAllNamespaces`, []));
    routes.push(listRoute(collection, `list${gv}${ns}${r.kind}`, nsParam));
  }
  if (has('create')) {
    routes.push({
      ...base,
      path: collection,
      method: 'post',
      action: 'post',
      operationId: `create${gv}${ns}${r.kind}`,
      description: `create${article(r.kind)}${r.kind}`,
      pathParameters: nsParam,
      options: 'create',
      consumes: bodyTypes,
      ...body(defs.kind, true),
      produces: JSON_YAML,
      responses: [ok(defs.kind), created(defs.kind), accepted(defs.kind), UNAUTHORIZED],
    });
  }
  if (has('deletecollection')) {
    routes.push({
      ...base,
      path: collection,
      method: 'delete',
      action: 'deletecollection',
      operationId: `delete${gv}Collection${ns}${r.kind}`,
      description: `delete collection of ${r.kind}`,
      pathParameters: nsParam,
      options: 'deletecollection',
      consumes: bodyTypes,
      ...body(DELETE_OPTIONS, false),
      produces: JSON_YAML,
      responses: [ok(STATUS), UNAUTHORIZED],
    });
  }
  const itemParams = [nameParam, ...nsParam];
  const item = `${collection}/{name}`;
  if (has('get'))
    routes.push(
      readRoute(item, `read${gv}${ns}${r.kind}`, `read the specified ${r.kind}`, defs.kind),
    );
  if (has('update'))
    routes.push(
      replaceRoute(
        item,
        `replace${gv}${ns}${r.kind}`,
        `replace the specified ${r.kind}`,
        defs.kind,
      ),
    );
  if (has('delete')) {
    routes.push({
      ...base,
      path: item,
      method: 'delete',
      action: 'delete',
      operationId: `delete${gv}${ns}${r.kind}`,
      description: `delete${article(r.kind)}${r.kind}`,
      pathParameters: itemParams,
      options: 'delete',
      consumes: bodyTypes,
      ...body(DELETE_OPTIONS, false),
      produces: JSON_YAML,
      responses: [ok(STATUS), accepted(STATUS), UNAUTHORIZED],
    });
  }
  if (has('patch'))
    routes.push(
      patchRoute(
        item,
        `patch${gv}${ns}${r.kind}`,
        `partially update the specified ${r.kind}`,
        defs.kind,
      ),
    );

  if (builtin && has('watch')) {
    const watchRoot = `${root}/watch`;
    const watchlist = (
      path: string,
      operationId: string,
      params: Route['pathParameters'],
    ): Route => ({
      ...listRoute(path, operationId, params),
      action: 'watchlist',
      description: `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
      responses: [ok(WATCH_EVENT), UNAUTHORIZED],
    });
    if (r.namespaced)
      routes.push(
        watchlist(`${watchRoot}/${r.plural}`, `watch${gv}${r.kind}ListForAllNamespaces`, []),
      );
    const watchCollection = `${watchRoot}${r.namespaced ? '/namespaces/{namespace}' : ''}/${r.plural}`;
    routes.push(watchlist(watchCollection, `watch${gv}${ns}${r.kind}List`, nsParam));
    routes.push({
      ...watchlist(`${watchCollection}/{name}`, `watch${gv}${ns}${r.kind}`, itemParams),
      action: 'watch',
      description: `watch changes to an object of kind ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
    });
  }

  // Per version: a CRD's versions may differ (v1alpha1 Sandbox has scale, v1beta1 does not).
  for (const s of r.subresourcesByVersion.get(version) ?? []) routes.push(...subresourceRoutes(s));
  return routes;

  function readRoute(
    path: string,
    operationId: string,
    description: string,
    schema: string | undefined,
    g = gvk,
  ): Route {
    return {
      ...base,
      gvk: g,
      path,
      method: 'get',
      action: 'get',
      operationId,
      description,
      pathParameters: itemParams,
      consumes: [],
      produces: JSON_YAML,
      responses: [ok(schema), UNAUTHORIZED],
    };
  }
  function replaceRoute(
    path: string,
    operationId: string,
    description: string,
    schema: string | undefined,
    g = gvk,
  ): Route {
    return {
      ...base,
      gvk: g,
      path,
      method: 'put',
      action: 'put',
      operationId,
      description,
      pathParameters: itemParams,
      options: 'update',
      consumes: bodyTypes,
      ...body(schema, true),
      produces: JSON_YAML,
      responses: [ok(schema), created(schema), UNAUTHORIZED],
    };
  }
  function patchRoute(
    path: string,
    operationId: string,
    description: string,
    schema: string | undefined,
    g = gvk,
  ): Route {
    return {
      ...base,
      gvk: g,
      path,
      method: 'patch',
      action: 'patch',
      operationId,
      description,
      pathParameters: itemParams,
      options: 'patch',
      consumes: builtin ? BUILTIN_PATCH_TYPES : CRD_PATCH_TYPES,
      body: { schema: PATCH, required: true },
      produces: JSON_YAML,
      responses: [ok(schema), created(schema), UNAUTHORIZED],
    };
  }
  function subresourceRoutes(s: SubresourceInfo): Route[] {
    const path = `${item}/${s.name}`;
    const suffix = toValidOperationId(s.name, true);
    const out: Route[] = [];
    if (s.name === 'status' || s.name === 'scale') {
      const isScale = s.name === 'scale';
      const schema = isScale ? SCALE : defs.kind;
      // The CRD builder tags scale operations with the custom kind; built-ins with autoscaling/v1 Scale.
      const g = isScale && builtin ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : gvk;
      const of = `${s.name} of the specified ${r.kind}`;
      if (s.verbs.includes('get'))
        out.push(readRoute(path, `read${gv}${ns}${r.kind}${suffix}`, `read ${of}`, schema, g));
      if (s.verbs.includes('update'))
        out.push(
          replaceRoute(path, `replace${gv}${ns}${r.kind}${suffix}`, `replace ${of}`, schema, g),
        );
      if (s.verbs.includes('patch'))
        out.push(
          patchRoute(
            path,
            `patch${gv}${ns}${r.kind}${suffix}`,
            `partially update ${of}`,
            schema,
            g,
          ),
        );
      return out;
    }
    // Other subresources are documented when their kind has a schema (binding, token, finalize);
    // the streaming ones (log, exec, attach, portforward) are not.
    const g: GroupVersionKind = {
      group: s.group ?? r.group,
      version: s.version ?? version,
      kind: s.kind,
    };
    const schema = builtinDefinitionFor(g);
    if (!schema) return out;
    if (s.verbs.includes('create')) {
      out.push({
        ...base,
        gvk: g,
        path,
        method: 'post',
        action: 'post',
        operationId: `create${gv}${ns}${r.kind}${suffix}`,
        description: `create ${s.name} of${article(r.kind)}${r.kind}`,
        pathParameters: itemParams,
        options: 'create',
        consumes: bodyTypes,
        body: { schema, required: true },
        produces: JSON_YAML,
        responses: [ok(schema), created(schema), accepted(schema), UNAUTHORIZED],
      });
    }
    if (s.verbs.includes('update'))
      out.push(
        replaceRoute(
          path,
          `replace${gv}${ns}${r.kind}${suffix}`,
          `replace ${s.name} of the specified ${r.kind}`,
          schema,
          g,
        ),
      );
    return out;
  }
}
