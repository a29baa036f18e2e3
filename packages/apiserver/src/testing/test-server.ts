// startTestApiServer(): our envtest — the real embedded API server on 127.0.0.1:0 over an
// in-memory (or temp-file) revision log, with a kubeconfig for kubectl and client libraries.
import type { CustomResourceDefinition } from '@agent-sandbox/kube-types';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listen, type ListenOptions } from '../node-server.ts';
import type { RequestFailureLog } from '../http/error-boundary.ts';
import type { Converter } from '../resource-store.ts';
import type { PodStreams } from '../http/verbs/pod-streams.ts';
import { ApiServer, type TokenUser } from '../server.ts';
import { openStore } from '../storage/index.ts';
import { ensureCertificates } from '../tls/certificates.ts';

export interface TestApiServer {
  url: string;
  kubeconfigPath: string;
  server: ApiServer;
  close(): Promise<void>;
}

export interface TestApiServerOptions {
  crds?: readonly CustomResourceDefinition[];
  convert?: Converter;
  /** A database file to use (restart tests); default in-memory. */
  dbPath?: string;
  /** Serves the streaming pod subresources (the node agent's seam). */
  podStreams?: PodStreams;
  /**
   * The CA published as kube-root-ca.crt in every namespace. The test server speaks plain HTTP,
   * so by default it publishes a fixed test CA (testing/test-ca.crt) as a cluster would its own.
   */
  caCert?: string;
  /** Told about every request that ends in a 5xx. @default ignored */
  onRequestError?: RequestFailureLog;
  /**
   * Serve HTTPS with a fresh CA (kubeconfig still skips verification). Clients such as kubectl
   * send bearer tokens over TLS only, so service-account-token tests of kubectl need it.
   */
  tls?: boolean;
  /** Static bearer-token users beside the admin (the embedded mode's component identities). */
  users?: readonly TokenUser[];
  /** The slow- and greedy-client bounds to serve with. @default kube's */
  limits?: Pick<ListenOptions, 'headersTimeoutMs' | 'requestTimeoutMs' | 'inflight'>;
}

/** A CA certificate (no key kept) for servers that have none of their own. */
export const TEST_CA_CERT = readFileSync(
  fileURLToPath(new URL('./test-ca.crt', import.meta.url)),
  'utf8',
);

export function kubeconfigFor(url: string, token?: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: embedded',
    '  cluster:',
    `    server: ${url}`,
    // client-node refuses plain HTTP unless TLS verification is marked off.
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: admin',
    `  user: ${token ? `{token: ${token}}` : '{}'}`,
    'contexts:',
    '- name: embedded',
    '  context: {cluster: embedded, user: admin, namespace: default}',
    'current-context: embedded',
    '',
  ].join('\n');
}

export async function startTestApiServer(
  options: TestApiServerOptions = {},
): Promise<TestApiServer> {
  const store = openStore({ path: options.dbPath ?? ':memory:' });
  const server = new ApiServer({
    store,
    ...(options.crds ? { crds: options.crds } : {}),
    ...(options.convert ? { convert: options.convert } : {}),
    ...(options.podStreams ? { podStreams: options.podStreams } : {}),
    caCert: options.caCert ?? TEST_CA_CERT,
    ...(options.onRequestError ? { onRequestError: options.onRequestError } : {}),
    ...(options.users ? { users: options.users } : {}),
  });
  server.start();
  const dir = mkdtempSync(join(tmpdir(), 'apiserver-test-'));
  const tls = options.tls ? await ensureCertificates({ dir: join(dir, 'pki') }) : undefined;
  const listening = await listen(server, {
    ...options.limits,
    ...(options.onRequestError ? { onRequestError: options.onRequestError } : {}),
    ...(tls ? { tls: { cert: tls.cert, key: tls.key } } : {}),
  });
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, kubeconfigFor(listening.url));
  return {
    url: listening.url,
    kubeconfigPath,
    server,
    close: async () => {
      await listening.close();
      server.stop();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
