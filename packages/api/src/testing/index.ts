// Test helpers other packages' tests share: where ../shared's upstream data is, and upstream's
// RBAC from it.
export { REPO_ROOT, SHARED_DIR, UPSTREAM_DIR, upstreamMissingReason } from './shared-dir.ts';
export {
  UPSTREAM_CONTROLLER_RBAC,
  UPSTREAM_EXTENSIONS_RBAC,
  upstreamClusterRoles,
} from './upstream-rbac.ts';
