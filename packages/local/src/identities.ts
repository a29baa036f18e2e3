// Who each component of the embedded mode is (issue 14): its own user, authenticated by a
// random bearer token that lives only in this process's memory for this run, bound to the
// smallest roles that work. The controller manager gets our controller ClusterRoles (equal to or
// narrower than upstream's), the router a read-mostly role, the node agent is a node (kube's Node
// authorizer) plus the embedded mode's node extras. Nothing here binds a sandbox's
// ServiceAccount: it keeps no rights.
import {
  CONTROLLER_CLUSTER_ROLE,
  CONTROLLER_MANAGER_USER,
  EXTENSIONS_CLUSTER_ROLE,
  NODE_CLUSTER_ROLE,
  ROUTER_CLUSTER_ROLE,
  type ClusterRoleManifest,
} from '@agent-sandbox/api';
import type { TokenUser, UserInfo } from '@agent-sandbox/apiserver';
import {
  KubeClient,
  isAlreadyExists,
  type KubeConfig,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';

/** A component's user and the ClusterRoles bound to it. */
export interface ComponentIdentity {
  user: UserInfo;
  roles: readonly ClusterRoleManifest[];
}

const AUTHENTICATED = 'system:authenticated';

export { CONTROLLER_MANAGER_USER };
export const ROUTER_USER = 'agent-sandbox:router';

export function controllerManagerIdentity(extensions: boolean): ComponentIdentity {
  return {
    user: { username: CONTROLLER_MANAGER_USER, groups: [AUTHENTICATED] },
    roles: extensions
      ? [CONTROLLER_CLUSTER_ROLE, EXTENSIONS_CLUSTER_ROLE]
      : [CONTROLLER_CLUSTER_ROLE],
  };
}

export function routerIdentity(): ComponentIdentity {
  return { user: { username: ROUTER_USER, groups: [AUTHENTICATED] }, roles: [ROUTER_CLUSTER_ROLE] };
}

/** kube's node identity: user system:node:<name> in group system:nodes. */
export function nodeIdentity(nodeName: string): ComponentIdentity {
  return {
    user: { username: `system:node:${nodeName}`, groups: ['system:nodes', AUTHENTICATED] },
    roles: [NODE_CLUSTER_ROLE],
  };
}

/** A fresh token per identity (256 random bits), for the API server's static token users. */
export function issueTokens(identities: readonly ComponentIdentity[]): TokenUser[] {
  return identities.map((i) => ({ token: randomBytes(32).toString('base64url'), user: i.user }));
}

/** `admin`'s connection with `token` in place of the admin's credentials. */
export function kubeConfigWithToken(admin: KubeConfig, token: string): KubeConfig {
  return {
    server: admin.server,
    namespace: admin.namespace,
    insecureSkipTlsVerify: admin.insecureSkipTlsVerify,
    ...(admin.caPem !== undefined ? { caPem: admin.caPem } : {}),
    ...(admin.tlsServerName !== undefined ? { tlsServerName: admin.tlsServerName } : {}),
    token,
  };
}

const rbac = (plural: string): ResourceRef => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural,
  namespaced: false,
});
const CLUSTER_ROLES = rbac('clusterroles');
const CLUSTER_ROLE_BINDINGS = rbac('clusterrolebindings');

/**
 * The binding of `role` to `user`. One per role: each role has one holder in the embedded mode,
 * so a restart under another node name rebinds instead of leaving the old name bound.
 */
export function userBinding(user: string, role: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${role}-embedded` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  } as KubeObject;
}

/** Creates the object, or replaces what an older run left with ours (level-triggered). */
async function ensure(admin: KubeClient, ref: ResourceRef, obj: KubeObject): Promise<void> {
  try {
    await admin.create(ref, obj);
  } catch (err: unknown) {
    if (!isAlreadyExists(err)) throw err;
    const current = await admin.get<KubeObject>(ref, undefined, obj.metadata.name ?? '');
    await admin.update(ref, { ...obj, metadata: { ...current.metadata, ...obj.metadata } });
  }
}

/** Puts each identity's ClusterRoles and bindings in place, as the admin. Idempotent. */
export async function grant(
  admin: KubeClient,
  identities: readonly ComponentIdentity[],
): Promise<void> {
  for (const identity of identities)
    for (const role of identity.roles) {
      await ensure(admin, CLUSTER_ROLES, role as unknown as KubeObject);
      await ensure(
        admin,
        CLUSTER_ROLE_BINDINGS,
        userBinding(identity.user.username, role.metadata.name),
      );
    }
}
