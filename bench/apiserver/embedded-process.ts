// The embedded API server alone in its own process over a database file, the way the product
// runs it (kube-apiserver likewise has etcd on disk and a process of its own). run.ts spawns it
// with `node --import tsx` and reads one JSON line from stdout: {"url", "kubeconfig"}.
//
//   node --import tsx bench/apiserver/embedded-process.ts --dir DIR [--tls] [--synchronous normal]
//                                                          [--commit-each] [--audit-log PATH]
//
// --commit-each turns group commit off (one transaction and one fsync per write, ADR 0010).
// --tls serves HTTPS with a generated CA and a bearer token, as `agent-sandbox apiserver` does;
// without it, plain HTTP and no authentication (as startTestApiServer).
// --audit-log PATH writes the audit log of writes (ADR 0031) there, as the embedded mode does by
// default (bench/claims counts writes per resource from it); without it, none. The process stops on
// SIGTERM or SIGINT, or when its stdin closes (so it never outlives the benchmark).
import {
  ApiServer,
  FileAuditLog,
  ensureCertificates,
  ensureToken,
  listen,
  openStore,
  writeKubeconfig,
} from '@agent-sandbox/apiserver';
import { kubeconfigFor, readOurCrds } from '@agent-sandbox/apiserver/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    tls: { type: 'boolean', default: false },
    synchronous: { type: 'string', default: 'full' },
    'commit-each': { type: 'boolean', default: false },
    'audit-log': { type: 'string' },
  },
});
const dir = values.dir;
if (!dir) throw new Error('embedded-process: --dir DIR is required');
const synchronous = values.synchronous === 'normal' ? 'normal' : 'full';

const store = openStore({
  path: join(dir, 'apiserver.db'),
  synchronous,
  groupCommit: !values['commit-each'],
});
const token = values.tls ? ensureToken({ path: join(dir, 'token') }) : undefined;
const auditPath = values['audit-log'];
const audit = auditPath ? new FileAuditLog({ path: auditPath, maxBytes: 1 << 30 }) : undefined;
const server = new ApiServer({
  store,
  crds: readOurCrds(),
  ...(token ? { token } : {}),
  ...(audit ? { audit } : {}),
});
server.start();
const certs = values.tls ? await ensureCertificates({ dir: join(dir, 'pki') }) : undefined;
const listening = await listen(server, {
  port: 0,
  host: '127.0.0.1',
  ...(certs ? { tls: { cert: certs.cert, key: certs.key } } : {}),
});
const kubeconfig = join(dir, 'kubeconfig');
if (certs && token)
  writeKubeconfig(kubeconfig, { server: listening.url, caCert: certs.caCert, token });
else writeFileSync(kubeconfig, kubeconfigFor(listening.url));

let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await listening.close();
  server.stop();
  audit?.close();
  store.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.on('close', () => void stop());
process.stdin.resume();

process.stdout.write(JSON.stringify({ url: listening.url, kubeconfig, pid: process.pid }) + '\n');
