// Kubeconfig loading: a kubeconfig file (YAML), the KUBECONFIG variable, or the in-cluster
// service account — the same precedence as controller-runtime's GetConfig (explicit path,
// KUBECONFIG, in-cluster, ~/.kube/config). The caller passes the environment in; this module
// never reads process.env (STYLE: only entry points read the environment).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { KubeConfigError } from './errors.ts';

/** One resolved context: where the server is and how to authenticate to it. */
export interface KubeConfig {
  /** e.g. https://127.0.0.1:6443 or http://127.0.0.1:40123 */
  server: string;
  /** The context's namespace. @default 'default' */
  namespace: string;
  /** PEM CA bundle to verify the server with; absent means the system roots. */
  caPem?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  /** Re-read periodically: bound service-account tokens rotate. */
  tokenFile?: string;
  username?: string;
  password?: string;
}

export interface KubeConfigLoadOptions {
  /** Explicit kubeconfig path (`--kubeconfig`); wins over everything else. */
  kubeconfig?: string;
  /** The environment to consult (`KUBECONFIG`, `KUBERNETES_SERVICE_HOST`, `HOME`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Context name; @default the file's current-context */
  context?: string;
  /** Where the service account is mounted. @default '/var/run/secrets/kubernetes.io/serviceaccount' */
  serviceAccountDir?: string;
}

type Yaml = Record<string, unknown>;

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Resolves a config by controller-runtime's precedence; throws KubeConfigError if none fits. */
export function loadKubeConfig(options: KubeConfigLoadOptions = {}): KubeConfig {
  const env = options.env ?? {};
  const ctx = options.context === undefined ? {} : { context: options.context };
  if (options.kubeconfig) return kubeConfigFromFile(options.kubeconfig, ctx);
  const fromEnv = (env['KUBECONFIG'] ?? '').split(':').find((p) => p && existsSync(p));
  if (fromEnv) return kubeConfigFromFile(fromEnv, ctx);
  if (env['KUBERNETES_SERVICE_HOST'])
    return inClusterKubeConfig({
      env,
      ...(options.serviceAccountDir ? { serviceAccountDir: options.serviceAccountDir } : {}),
    });
  const home = env['HOME'] ?? homedir();
  const fallback = join(home, '.kube', 'config');
  if (existsSync(fallback)) return kubeConfigFromFile(fallback, ctx);
  throw new KubeConfigError(
    'no kubeconfig: pass --kubeconfig, set KUBECONFIG, or run in a cluster with a service account',
  );
}

export function kubeConfigFromFile(path: string, options: { context?: string } = {}): KubeConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause: unknown) {
    throw new KubeConfigError(`read kubeconfig ${path}`, { cause });
  }
  return kubeConfigFromString(text, { ...options, baseDir: dirname(path), source: path });
}

export interface KubeConfigParseOptions {
  context?: string;
  /** Directory that relative file references resolve against. @default process cwd */
  baseDir?: string;
  /** Name used in error messages. */
  source?: string;
}

export function kubeConfigFromString(
  text: string,
  options: KubeConfigParseOptions = {},
): KubeConfig {
  const source = options.source ?? 'kubeconfig';
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (cause: unknown) {
    throw new KubeConfigError(`parse ${source}`, { cause });
  }
  if (!isMap(doc)) throw new KubeConfigError(`${source}: not a kubeconfig mapping`);
  const contextName = options.context ?? str(doc['current-context']);
  if (!contextName) throw new KubeConfigError(`${source}: no current-context and none given`);
  const context = named(doc, 'contexts', contextName, 'context', source);
  const clusterName = str(context['cluster']);
  const cluster = named(doc, 'clusters', clusterName ?? '', 'cluster', source);
  const userName = str(context['user']);
  const user = userName ? named(doc, 'users', userName, 'user', source) : {};
  const file = (p: string | undefined): string | undefined =>
    p === undefined ? undefined : readRef(isAbsolute(p) ? p : join(options.baseDir ?? '.', p));
  const b64 = (v: unknown): string | undefined =>
    typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : undefined;

  if (user['exec'] !== undefined || user['auth-provider'] !== undefined)
    throw new KubeConfigError(
      `${source}: user ${userName} uses exec or auth-provider credentials, which are not supported (ADR 0008); use a token or client certificate`,
    );
  const server = str(cluster['server']);
  if (!server) throw new KubeConfigError(`${source}: cluster ${clusterName} has no server`);
  const config: KubeConfig = {
    server: server.replace(/\/+$/, ''),
    namespace: str(context['namespace']) ?? 'default',
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
  };
  assign(
    config,
    'caPem',
    b64(cluster['certificate-authority-data']) ?? file(str(cluster['certificate-authority'])),
  );
  assign(config, 'tlsServerName', str(cluster['tls-server-name']));
  assign(
    config,
    'clientCertPem',
    b64(user['client-certificate-data']) ?? file(str(user['client-certificate'])),
  );
  assign(config, 'clientKeyPem', b64(user['client-key-data']) ?? file(str(user['client-key'])));
  assign(config, 'token', str(user['token']));
  const tokenFile = str(user['tokenFile']);
  if (tokenFile)
    config.tokenFile = isAbsolute(tokenFile) ? tokenFile : join(options.baseDir ?? '.', tokenFile);
  assign(config, 'username', str(user['username']));
  assign(config, 'password', str(user['password']));
  return config;
}

/** The in-cluster config from the pod's service account (rest.InClusterConfig). */
export function inClusterKubeConfig(options: {
  env: Readonly<Record<string, string | undefined>>;
  serviceAccountDir?: string;
}): KubeConfig {
  const host = options.env['KUBERNETES_SERVICE_HOST'];
  const port = options.env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port)
    throw new KubeConfigError(
      'not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set',
    );
  const dir = options.serviceAccountDir ?? SA_DIR;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const namespaceFile = join(dir, 'namespace');
  return {
    server: `https://${hostPart}:${port}`,
    namespace: existsSync(namespaceFile) ? readRef(namespaceFile).trim() : 'default',
    caPem: readRef(join(dir, 'ca.crt')),
    insecureSkipTlsVerify: false,
    tokenFile: join(dir, 'token'),
  };
}

function readRef(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause: unknown) {
    throw new KubeConfigError(`read ${path}`, { cause });
  }
}

function isMap(v: unknown): v is Yaml {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function assign<K extends keyof KubeConfig>(
  c: KubeConfig,
  k: K,
  v: KubeConfig[K] | undefined,
): void {
  if (v !== undefined) c[k] = v;
}

function named(doc: Yaml, list: string, name: string, field: string, source: string): Yaml {
  const entries = Array.isArray(doc[list]) ? (doc[list] as unknown[]) : [];
  for (const e of entries) {
    if (isMap(e) && e['name'] === name) return isMap(e[field]) ? e[field] : {};
  }
  throw new KubeConfigError(`${source}: ${field} "${name}" not found in ${list}`);
}
