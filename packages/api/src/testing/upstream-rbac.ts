// Upstream's kubebuilder-generated controller ClusterRoles (../shared/upstream/rbac/), read at
// test time: the bar our own controller roles are held to, and what cluster tests bind.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ClusterRoleManifest } from '../rbac/controller-roles.ts';
import { UPSTREAM_DIR, upstreamMissingReason } from './shared-dir.ts';

export const UPSTREAM_CONTROLLER_RBAC = 'rbac.generated.yaml';
export const UPSTREAM_EXTENSIONS_RBAC = 'extensions-rbac.generated.yaml';

/** The ClusterRoles of `file` under upstream/rbac; throws when ../shared is not there. */
export function upstreamClusterRoles(file: string): ClusterRoleManifest[] {
  const missing = upstreamMissingReason();
  if (missing !== undefined) throw new Error(missing);
  return parseAllDocuments(readFileSync(join(UPSTREAM_DIR, 'rbac', file), 'utf8'))
    .map((doc) => doc.toJS() as ClusterRoleManifest | null)
    .filter((doc): doc is ClusterRoleManifest => doc?.kind === 'ClusterRole');
}
