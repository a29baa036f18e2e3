// The manager child process runs as itself, as `up` and a cluster install run it, never as the
// administrator: a permission its roles lack fails the scenario instead of being papered over. On
// the embedded server that is ADR 0027's user with our controller ClusterRoles; on the cluster a
// ServiceAccount in the test namespace bound to upstream's (controllerConfig), reached through
// the namespace-scoping gateway, which forwards with that token instead of the admin's.
import { kubeconfigFor } from '@agent-sandbox/apiserver/testing';
import { controllerConfig } from '@agent-sandbox/controllers/testing';
import type { KubeClient, KubeConfig } from '@agent-sandbox/kube';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TargetHandle } from '../support/target.ts';
import { startNamespaceProxy, type NamespaceProxy } from './namespace-proxy.ts';

export interface ManagerConnection {
  /** What the manager child process gets. */
  kubeconfigPath: string;
  /** The gateway on the cluster; undefined on the embedded server. */
  proxy: NamespaceProxy | undefined;
}

export async function managerConnection(o: {
  handle: Pick<TargetHandle, 'target' | 'controllerUser'>;
  admin: KubeClient;
  adminConfig: KubeConfig;
  namespace: string;
  /** More namespaces the manager sees (bound and let through the gateway). */
  others?: readonly string[];
  /** The extension controllers' role too (`--extensions`). */
  extensions: boolean;
  /** Where the kubeconfig (and the gateway's) are written. */
  dir: string;
}): Promise<ManagerConnection> {
  const config = await controllerConfig(o.admin, o.adminConfig, o.namespace, {
    extensions: o.extensions,
    alsoIn: o.others ?? [],
    ...(o.handle.controllerUser ? { embeddedUser: o.handle.controllerUser } : {}),
  });
  if (o.handle.target === 'cluster') {
    const proxy = await startNamespaceProxy(config, [o.namespace, ...(o.others ?? [])], o.dir);
    return { kubeconfigPath: proxy.kubeconfigPath, proxy };
  }
  const kubeconfigPath = join(o.dir, 'manager.kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfigFor(config.server, config.token));
  return { kubeconfigPath, proxy: undefined };
}
