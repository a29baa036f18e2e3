// The kubeconfig a data-dir API server writes for its clients: HTTPS to the loopback address,
// the CA inline (certificate-authority-data) and the bearer token. It holds the token, so it is
// written 0600, and atomically, so a client never reads half of it.
import { PRIVATE_FILE_MODE, writeFileAtomic } from './files.ts';

export interface KubeconfigOptions {
  /** e.g. https://127.0.0.1:6443 */
  server: string;
  /** PEM CA certificate the client verifies the server against. */
  caCert: string;
  token: string;
  /** Cluster, user and context name. @default 'agent-sandbox' */
  name?: string;
}

/** The kubeconfig as YAML text (every value is a URL, base64 or a b64token: no quoting needed). */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const name = options.name ?? 'agent-sandbox';
  const caData = Buffer.from(options.caCert, 'utf8').toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    `    server: ${options.server}`,
    `    certificate-authority-data: ${caData}`,
    'users:',
    `- name: ${name}`,
    '  user:',
    `    token: ${options.token}`,
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}`,
    `current-context: ${name}`,
    'preferences: {}',
    '',
  ].join('\n');
}

/** Writes the kubeconfig to `path` (temp file + rename, mode 0600). */
export function writeKubeconfig(path: string, options: KubeconfigOptions): void {
  writeFileAtomic(path, renderKubeconfig(options), PRIVATE_FILE_MODE);
}
