// The controller manager's own identity for tests, as each target runs it: on the embedded server
// the user `up` gives it (ADR 0027) bound to our controller ClusterRoles; on the cluster a
// ServiceAccount in the test's namespace bound (by RoleBindings, narrower still than a
// deployment's ClusterRoleBindings) to upstream's controller ClusterRoles, read from ../shared.
// The client authenticates with that token only; tests keep their admin client for what they
// arrange and inspect.
import {
  CONTROLLER_CLUSTER_ROLE,
  CONTROLLER_SERVICE_ACCOUNT,
  EXTENSIONS_CLUSTER_ROLE,
  type ClusterRoleManifest,
} from '@agent-sandbox/api';
import {
  KubeClient,
  isAlreadyExists,
  type KubeConfig,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import {
  UPSTREAM_CONTROLLER_RBAC,
  UPSTREAM_EXTENSIONS_RBAC,
  upstreamClusterRoles,
} from '@agent-sandbox/api/testing';
import { eventually } from './harness.ts';

const rbac = (plural: string, namespaced: boolean): ResourceRef => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural,
  namespaced,
});
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const CLUSTER_ROLES = rbac('clusterroles', false);
const CLUSTER_ROLE_BINDINGS = rbac('clusterrolebindings', false);
const ROLE_BINDINGS = rbac('rolebindings', true);
const SERVICE_ACCOUNTS: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'serviceaccounts',
  namespaced: true,
};

async function ensureClusterRole(admin: KubeClient, role: ClusterRoleManifest): Promise<void> {
  try {
    await admin.create(CLUSTER_ROLES, role as unknown as KubeObject);
  } catch (err: unknown) {
    if (!isAlreadyExists(err)) throw err;
    // Keep the shared cluster's copy equal to ours (an older run may have left another).
    await admin.patch(CLUSTER_ROLES, undefined, role.metadata.name, {
      type: 'merge',
      body: { rules: role.rules },
    });
  }
}

/** Upstream's controller ClusterRoles, renamed to sit beside ours on the shared cluster. */
function upstreamRoles(extensions: boolean): ClusterRoleManifest[] {
  const files = extensions
    ? [UPSTREAM_CONTROLLER_RBAC, UPSTREAM_EXTENSIONS_RBAC]
    : [UPSTREAM_CONTROLLER_RBAC];
  return files.flatMap((file) =>
    upstreamClusterRoles(file).map((role) => ({
      ...role,
      metadata: { name: `upstream:${role.metadata.name}` },
    })),
  );
}

/**
 * The embedded mode's way (ADR 0027): our controller ClusterRoles bound cluster-wide to the
 * controller manager's static-token user, as `up` binds them; returns that user's token.
 */
async function bindEmbeddedUser(
  admin: KubeClient,
  user: { username: string; token: string },
  roles: readonly ClusterRoleManifest[],
): Promise<string> {
  for (const role of roles) {
    await ensureClusterRole(admin, role);
    await admin.create(CLUSTER_ROLE_BINDINGS, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${role.metadata.name}-embedded` },
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role.metadata.name },
      subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: user.username }],
    } as KubeObject);
  }
  return user.token;
}

/**
 * A cluster's way: upstream's ClusterRoles bound by RoleBindings in `ns` and `alsoIn` (narrower
 * still than the ClusterRoleBindings a deployment has) to a fresh ServiceAccount in `ns`; returns
 * its token.
 */
async function bindServiceAccount(
  admin: KubeClient,
  ns: string,
  roles: readonly ClusterRoleManifest[],
  alsoIn: readonly string[],
): Promise<string> {
  for (const role of roles) await ensureClusterRole(admin, role);
  await admin.create(SERVICE_ACCOUNTS, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: CONTROLLER_SERVICE_ACCOUNT, namespace: ns },
  });
  for (const bound of [ns, ...alsoIn])
    for (const role of roles)
      await admin.create(ROLE_BINDINGS, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        // RoleBinding names are path segments too: `upstream:…` is kube-valid (and ours).
        metadata: { name: role.metadata.name, namespace: bound },
        roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role.metadata.name },
        subjects: [{ kind: 'ServiceAccount', name: CONTROLLER_SERVICE_ACCOUNT, namespace: ns }],
      } as KubeObject);
  const issued = (await admin.request(
    'POST',
    `/api/v1/namespaces/${ns}/serviceaccounts/${CONTROLLER_SERVICE_ACCOUNT}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 86400 },
    },
  )) as { status: { token: string } };
  return issued.status.token;
}

/**
 * The connection of the controller manager's own identity, once the server's authorizer lets it
 * list Sandboxes in `ns`: on the embedded server ADR 0027's user with our controller roles (and,
 * with `extensions`, the extension controllers' role), on the cluster a ServiceAccount bound to
 * upstream's controller ClusterRoles. Only the token: no client certificate or basic auth of the
 * admin's comes along.
 */
export async function controllerConfig(
  admin: KubeClient,
  adminConfig: KubeConfig,
  ns: string,
  options: {
    extensions?: boolean;
    embeddedUser?: { username: string; token: string };
    /** More namespaces the ServiceAccount is bound in (the embedded user's roles are cluster-wide). */
    alsoIn?: readonly string[];
  } = {},
): Promise<KubeConfig> {
  const extensions = options.extensions === true;
  const token = options.embeddedUser
    ? await bindEmbeddedUser(
        admin,
        options.embeddedUser,
        extensions ? [CONTROLLER_CLUSTER_ROLE, EXTENSIONS_CLUSTER_ROLE] : [CONTROLLER_CLUSTER_ROLE],
      )
    : await bindServiceAccount(admin, ns, upstreamRoles(extensions), options.alsoIn ?? []);
  const config: KubeConfig = {
    server: adminConfig.server,
    namespace: adminConfig.namespace,
    insecureSkipTlsVerify: adminConfig.insecureSkipTlsVerify,
    ...(adminConfig.caPem !== undefined ? { caPem: adminConfig.caPem } : {}),
    ...(adminConfig.tlsServerName !== undefined
      ? { tlsServerName: adminConfig.tlsServerName }
      : {}),
    token,
  };
  const client = new KubeClient({ config });
  try {
    // kube-apiserver's authorizer reads informer caches: wait until the binding applies.
    for (const bound of [ns, ...(options.alsoIn ?? [])])
      await eventually(async () => {
        const review = (await client.request(
          'POST',
          '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
          {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: {
              resourceAttributes: {
                verb: 'list',
                group: 'agents.x-k8s.io',
                resource: 'sandboxes',
                namespace: bound,
              },
            },
          },
        )) as { status: { allowed: boolean } };
        if (!review.status.allowed) throw new Error('controller binding not effective yet');
        return true;
      }, 30_000);
  } finally {
    await client.close();
  }
  return config;
}

/** A client acting as the controller manager's own identity (controllerConfig). */
export async function controllerClient(
  ...args: Parameters<typeof controllerConfig>
): Promise<KubeClient> {
  return new KubeClient({ config: await controllerConfig(...args) });
}
