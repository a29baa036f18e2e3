import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterError } from './errors.ts';
import type { PkiFiles } from './pki.ts';

export interface ProbeResult {
  status: number;
  body: string;
}

/**
 * GET a loopback health URL. With `pki`, https requests verify the apiserver against our CA and
 * present the admin certificate; without it (KCM and scheduler serve self-signed certificates
 * and allow /healthz anonymously) verification is skipped.
 */
export function probe(url: string, pki?: PkiFiles, timeoutMs = 2_000): Promise<ProbeResult> {
  const tls = pki
    ? {
        ca: readFileSync(pki.caCert),
        cert: readFileSync(pki.adminCert),
        key: readFileSync(pki.adminKey),
      }
    : { rejectUnauthorized: false };
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { ...tls, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs}ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** True when GET answers 200. Connection errors count as "not yet". */
export async function isHealthy(url: string, pki?: PkiFiles): Promise<boolean> {
  try {
    return (await probe(url, pki)).status === 200;
  } catch {
    return false; // refused or reset: not listening yet, or already gone
  }
}

export interface WaitOptions {
  what: string;
  timeoutMs: number;
  intervalMs?: number;
  /** Checked on every round so a crashed process fails fast instead of timing out. */
  abortIf?: () => string | undefined;
}

/** Polls `check` until it returns true; throws START_FAILED naming `what` on timeout. */
export async function waitFor(check: () => Promise<boolean>, options: WaitOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const aborted = options.abortIf?.();
    if (aborted) throw new ClusterError('START_FAILED', `${options.what}: ${aborted}`);
    if (await check()) return;
    if (Date.now() > deadline) {
      throw new ClusterError(
        'START_FAILED',
        `${options.what}: not ready after ${options.timeoutMs / 1000}s`,
      );
    }
    await sleep(options.intervalMs ?? 200);
  }
}

/** Throws PORT_IN_USE when something already listens on 127.0.0.1:port. */
export async function assertPortFree(port: number, owner: string): Promise<void> {
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw new ClusterError(
      'PORT_IN_USE',
      `port ${port} (for ${owner}) is already in use; find the owner with ` +
        `\`ss -ltnp 'sport = :${port}'\` and stop it, or choose other ports with ` +
        'AGENT_SANDBOX_CLUSTER_PORT_BASE=<n> (seven consecutive ports from n)',
      { cause: err },
    );
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const PORT_RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';

/**
 * Throws INVALID_ARGUMENT when [first, last] overlaps the kernel's ephemeral port range: an
 * outgoing connection (the apiserver's to etcd, say) may then hold one of our ports, and a
 * component fails to bind it only after the free-port check passed (seen here at 33300).
 */
export function assertOutsideEphemeralRange(first: number, last: number): void {
  if (!existsSync(PORT_RANGE_FILE)) return; // not Linux: nothing to check against
  const [low, high] = readFileSync(PORT_RANGE_FILE, 'utf8').trim().split(/\s+/).map(Number);
  if (low === undefined || high === undefined || last < low || first > high) return;
  throw new ClusterError(
    'INVALID_ARGUMENT',
    `ports ${first}-${last} overlap the kernel's ephemeral range ${low}-${high} ` +
      `(${PORT_RANGE_FILE}), where outgoing connections may take them; set ` +
      `AGENT_SANDBOX_CLUSTER_PORT_BASE to at most ${low - 7}`,
  );
}
