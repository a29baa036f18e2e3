// Helpers for the RBAC and Pod Security cases: service accounts acting with their own token,
// RBAC objects, access reviews, and waiting until a server's authorizer sees a policy change
// (kube-apiserver's RBAC reads informer caches, so a fresh binding applies a moment later).
import { KubeConfig } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpResult, Target } from '../target.ts';

type Json = Record<string, unknown>;
export type Rule = {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
};

export const RBAC = '/apis/rbac.authorization.k8s.io/v1';
export const AUTHZ = '/apis/authorization.k8s.io/v1';
const GROUP = 'rbac.authorization.k8s.io';

async function must(res: Promise<HttpResult>, what: string, t: Target): Promise<HttpResult> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${t.name}: ${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}

/** Creates a ServiceAccount and returns the server as that account (a TokenRequest token). */
export async function asServiceAccount(t: Target, ns: string, name: string): Promise<Target> {
  return t.withToken(await serviceAccountToken(t, ns, name));
}

/** Creates a ServiceAccount and issues it a token. */
export async function serviceAccountToken(t: Target, ns: string, name: string): Promise<string> {
  await must(
    t.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
    }),
    `create sa ${name}`,
    t,
  );
  const res = await must(
    t.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
    }),
    `token for ${name}`,
    t,
  );
  return String(((res.body as Json)['status'] as Json)['token']);
}

/** A kubeconfig for the target's server that authenticates with `token` alone. */
export function tokenKubeconfig(t: Target, token: string): string {
  const kc = new KubeConfig();
  kc.loadFromFile(t.kubeconfigPath);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${t.kubeconfigPath} has no cluster`);
  const ca =
    cluster.caData ??
    (cluster.caFile ? readFileSync(cluster.caFile).toString('base64') : undefined);
  const dir = mkdtempSync(join(tmpdir(), 'conformance-token-'));
  const path = join(dir, 'kubeconfig');
  const clusterLines = ca
    ? [`    certificate-authority-data: ${ca}`]
    : ['    insecure-skip-tls-verify: true'];
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: c',
      '  cluster:',
      `    server: ${cluster.server}`,
      ...clusterLines,
      'users:',
      '- name: u',
      `  user: {token: ${token}}`,
      'contexts:',
      '- name: c',
      '  context: {cluster: c, user: u}',
      'current-context: c',
      '',
    ].join('\n'),
  );
  return path;
}

/** Runs the machine's kubectl; stdout, stderr and the exit code. */
export function kubectl(
  kubeconfig: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

export function saSubject(ns: string, name: string): Json {
  return { kind: 'ServiceAccount', name, namespace: ns };
}

export function roleRef(kind: 'Role' | 'ClusterRole', name: string): Json {
  return { apiGroup: GROUP, kind, name };
}

export function rolePath(ns: string | undefined, plural: string, name?: string): string {
  const base = ns === undefined ? `${RBAC}/${plural}` : `${RBAC}/namespaces/${ns}/${plural}`;
  return name === undefined ? base : `${base}/${name}`;
}

export async function createRole(
  t: Target,
  ns: string | undefined,
  name: string,
  rules: Rule[],
  extra: Json = {},
): Promise<void> {
  const kind = ns === undefined ? 'ClusterRole' : 'Role';
  await must(
    t.request('POST', rolePath(ns, ns === undefined ? 'clusterroles' : 'roles'), {
      body: { apiVersion: `${GROUP}/v1`, kind, metadata: { name, ...extra }, rules },
    }),
    `create ${kind} ${name}`,
    t,
  );
}

export async function createBinding(
  t: Target,
  ns: string | undefined,
  name: string,
  ref: Json,
  subjects: Json[],
): Promise<void> {
  const kind = ns === undefined ? 'ClusterRoleBinding' : 'RoleBinding';
  await must(
    t.request('POST', rolePath(ns, ns === undefined ? 'clusterrolebindings' : 'rolebindings'), {
      body: { apiVersion: `${GROUP}/v1`, kind, metadata: { name }, roleRef: ref, subjects },
    }),
    `create ${kind} ${name}`,
    t,
  );
}

export interface ResourceQuestion {
  verb: string;
  resource: string;
  group?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** A SelfSubjectAccessReview's status. */
export async function canI(t: Target, q: ResourceQuestion): Promise<Json> {
  const res = await t.request('POST', `${AUTHZ}/selfsubjectaccessreviews`, {
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: q },
    },
  });
  return ((res.body as Json)['status'] ?? res.body) as Json;
}

/** Waits until `as` may do `q` (or, with `allowed: false`, may no longer). */
export async function settle(as: Target, q: ResourceQuestion, allowed = true): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await canI(as, q))['allowed'] === allowed) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${as.name}: ${JSON.stringify(q)} never became allowed=${allowed}`);
}

/** Deletes cluster-scoped objects a case made (both servers outlive the case). */
export async function cleanup(t: Target, paths: string[]): Promise<void> {
  for (const p of paths) await t.request('DELETE', p);
}

/** Sorted copy, so rule lists gathered from unordered caches compare. */
export function sortedRules(rules: unknown): unknown {
  if (!Array.isArray(rules)) return rules;
  return [...rules]
    .map((r) => JSON.stringify(r))
    .sort()
    .map((r) => JSON.parse(r) as unknown);
}
