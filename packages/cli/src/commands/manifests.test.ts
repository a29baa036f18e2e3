// `manifests rbac`: our controller roles hold nothing upstream's generated ClusterRoles do not
// (../shared/upstream/rbac/), checked with the embedded server's own coverage rules.
import {
  CONTROLLER_CLUSTER_ROLE,
  EXTENSIONS_CLUSTER_ROLE,
  controllerRbacManifests,
} from '@agent-sandbox/api';
import { uncoveredRules, type PolicyRule } from '@agent-sandbox/apiserver';
import {
  SANDBOX_CLAIM_PERMISSIONS,
  SANDBOX_TEMPLATE_PERMISSIONS,
  SANDBOX_WARM_POOL_PERMISSIONS,
  type Permission,
} from '@agent-sandbox/controllers';
import {
  UPSTREAM_CONTROLLER_RBAC,
  UPSTREAM_EXTENSIONS_RBAC,
  upstreamClusterRoles,
} from '@agent-sandbox/api/testing';
import { describe, expect, it } from 'vitest';

function upstreamRole(file: string, name: string): PolicyRule[] {
  const role = upstreamClusterRoles(file).find((d) => d.metadata.name === name);
  if (!role) throw new Error(`${file} has no ClusterRole ${name}`);
  return role.rules;
}

describe('controller RBAC', () => {
  it.each([
    [CONTROLLER_CLUSTER_ROLE, UPSTREAM_CONTROLLER_RBAC],
    [EXTENSIONS_CLUSTER_ROLE, UPSTREAM_EXTENSIONS_RBAC],
  ] as const)('$metadata.name is equal to or narrower than upstream', (ours, file) => {
    expect(uncoveredRules(upstreamRole(file, ours.metadata.name), ours.rules)).toEqual([]);
  });

  it('the extensions role grants what each extension reconciler declares it needs', () => {
    const asRules = (ps: readonly Permission[]): PolicyRule[] =>
      ps.map((p) => ({ apiGroups: [p.group], resources: [p.resource], verbs: [...p.verbs] }));
    for (const declared of [
      SANDBOX_CLAIM_PERMISSIONS,
      SANDBOX_TEMPLATE_PERMISSIONS,
      SANDBOX_WARM_POOL_PERMISSIONS,
    ])
      expect(uncoveredRules(EXTENSIONS_CLUSTER_ROLE.rules, asRules(declared))).toEqual([]);
  });

  it('binds each role to the controller ServiceAccount', () => {
    const docs = controllerRbacManifests({ extensions: true });
    expect(
      docs.map((d) => `${String(d['kind'])}/${String((d['metadata'] as { name: string }).name)}`),
    ).toEqual([
      'Namespace/agent-sandbox-system',
      'ServiceAccount/agent-sandbox-controller',
      'ClusterRole/agent-sandbox-controller',
      'ClusterRole/agent-sandbox-controller-extensions',
      'ClusterRoleBinding/agent-sandbox-controller',
      'ClusterRoleBinding/agent-sandbox-controller-extensions',
    ]);
  });
});
