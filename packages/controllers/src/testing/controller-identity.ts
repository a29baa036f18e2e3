// The controller manager's own identity for tests: a ServiceAccount in the test's namespace bound
// (by a RoleBinding, narrower still than the ClusterRoleBinding `manifests rbac` ships) to our
// controller ClusterRole, and a client that authenticates with its token only. Tests keep their
// admin client for what they arrange and inspect.
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
import { eventually } from './harness.ts';

const rbac = (plural: string, namespaced: boolean): ResourceRef => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural,
  namespaced,
});
const CLUSTER_ROLES = rbac('clusterroles', false);
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

/**
 * Binds our controller role (and, with `extensions`, the extension controllers' role) to a
 * fresh ServiceAccount in `ns` and returns a client acting as it, once the server's authorizer
 * lets it list Sandboxes there.
 */
export async function controllerClient(
  admin: KubeClient,
  adminConfig: KubeConfig,
  ns: string,
  options: { extensions?: boolean } = {},
): Promise<KubeClient> {
  const roles = options.extensions
    ? [CONTROLLER_CLUSTER_ROLE, EXTENSIONS_CLUSTER_ROLE]
    : [CONTROLLER_CLUSTER_ROLE];
  for (const role of roles) await ensureClusterRole(admin, role);
  await admin.create(SERVICE_ACCOUNTS, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: CONTROLLER_SERVICE_ACCOUNT, namespace: ns },
  });
  for (const role of roles)
    await admin.create(ROLE_BINDINGS, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: role.metadata.name, namespace: ns },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: role.metadata.name,
      },
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
  // Only the token: no client certificate or basic auth of the admin's may come along.
  const config: KubeConfig = {
    server: adminConfig.server,
    namespace: adminConfig.namespace,
    insecureSkipTlsVerify: adminConfig.insecureSkipTlsVerify,
    ...(adminConfig.caPem !== undefined ? { caPem: adminConfig.caPem } : {}),
    ...(adminConfig.tlsServerName !== undefined
      ? { tlsServerName: adminConfig.tlsServerName }
      : {}),
  };
  const client = new KubeClient({ config: { ...config, token: issued.status.token } });
  // kube-apiserver's authorizer reads informer caches: wait until the binding applies.
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
            namespace: ns,
          },
        },
      },
    )) as { status: { allowed: boolean } };
    if (!review.status.allowed) throw new Error('controller binding not effective yet');
    return true;
  }, 30_000);
  return client;
}
