// The OpenAPI endpoints' entry point for the server's router (server.ts `#fixedRoute`).
import type { ResourceRegistry } from '../resources/registry.ts';
import { OpenApiService } from './openapi-service.ts';

// One service (and so one document cache) per registry. Keyed weakly on the registry, so each
// ApiServer gets its own and nothing outlives it; the cache holds only derived documents.
const services = new WeakMap<ResourceRegistry, OpenApiService>();

/**
 * Answers `GET /openapi/v2`, `/openapi/v3` and `/openapi/v3/<api/v1 | apis/g/v>`; undefined for
 * any other path. `path` is the request path without a trailing slash. Never throws for a
 * well-formed registry: unknown group-versions are the plain-text 404, unacceptable media types 406.
 */
export function serveOpenApi(
  registry: ResourceRegistry,
  request: Request,
  path: string,
): Response | undefined {
  if (path !== '/openapi/v2' && path !== '/openapi/v3' && !path.startsWith('/openapi/v3/'))
    return undefined;
  let service = services.get(registry);
  if (!service) {
    service = new OpenApiService(registry);
    services.set(registry, service);
  }
  return service.serve(request, path);
}

export { OpenApiService, type OpenApiServiceOptions } from './openapi-service.ts';
