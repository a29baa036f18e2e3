// @agent-sandbox/router: the sandbox router (README.md).
export { startRouter, type RouterOptions, type RunningRouter, type AuthzMode } from './router.ts';
export { RouterError, InvalidOptionError, type RouterErrorCode } from './errors.ts';
export { mintScopedToken, bearerToken, type Authorizer } from './authz.ts';
export { parseRoute, isAllowedPodIp, hostRoute, type RouteTarget } from './routing.ts';
export type { AccessLogEntry } from './proxy.ts';
