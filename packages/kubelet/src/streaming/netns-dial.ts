// Connects to 127.0.0.1:<port> inside a Pod's network namespace, as kubelet's port-forward does.
// Node cannot setns(2), so a small relay runs under `nsenter --net=<path>` (not `ip netns exec`,
// which remounts /sys: machine-notes §1.4) and pipes the connection over its stdin/stdout. On
// stderr it says `ready` once it runs in the namespace, then `connected` or `error <message>`, so
// a refused port is an error, not a stream, and a connect timeout can leave out the relay's own
// start (a Node process: up to seconds on a loaded machine, which made probes fail spuriously).
import { spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { KubeletError } from '../errors.ts';

const RELAY = `
process.stderr.write('ready\\n');
const s = require('net').connect({ host: '127.0.0.1', port: Number(process.argv[1]) });
s.once('connect', () => {
  process.stderr.write('connected\\n');
  process.stdin.pipe(s);
  s.pipe(process.stdout);
});
s.once('error', (e) => { process.stderr.write('error ' + e.message + '\\n'); process.exit(1); });
s.once('close', () => process.exit(0));
process.stdin.once('end', () => s.end());
`;

export interface NetnsDialOptions {
  /** @default 'nsenter' */
  nsenter?: string;
  /** The Node.js binary that runs the relay. @default process.execPath */
  node?: string;
  /** Bound on the connect, counted from the relay's `ready`; absent: no bound. */
  connectTimeoutMs?: number;
}

/** Resolves with a stream connected to the port; rejects with KubeletError `Runtime` naming it. */
export function dialInNetns(
  netnsPath: string,
  port: number,
  options: NetnsDialOptions = {},
): Promise<Duplex> {
  const child = spawn(
    options.nsenter ?? 'nsenter',
    [`--net=${netnsPath}`, '--', options.node ?? process.execPath, '-e', RELAY, String(port)],
    { stdio: ['pipe', 'pipe', 'pipe'], env: {} },
  );
  return new Promise((resolve, reject) => {
    let said = '';
    let ready = false;
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    const fail = (message: string): void => {
      answered = true;
      clearTimeout(timer);
      reject(new KubeletError('Runtime', `dial tcp4 127.0.0.1:${port}: ${message}`));
    };
    const startTimer = (): void => {
      ready = true;
      const ms = options.connectTimeoutMs;
      if (ms === undefined) return;
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(`i/o timeout after ${ms}ms`);
      }, ms);
    };
    const onErr = (d: Buffer): void => {
      said += d.toString();
      for (let nl = said.indexOf('\n'); nl >= 0 && !answered; nl = said.indexOf('\n')) {
        const line = said.slice(0, nl);
        if (!ready) {
          // Before `ready` only nsenter speaks (it could not enter): its exit reports that.
          if (line !== 'ready') return;
          said = said.slice(nl + 1);
          startTimer();
          continue;
        }
        said = said.slice(nl + 1);
        child.stderr.off('data', onErr);
        child.stderr.resume();
        if (line !== 'connected') return fail(line.replace(/^error /, ''));
        answered = true;
        clearTimeout(timer);
        const stream = Duplex.from({ readable: child.stdout, writable: child.stdin });
        // Duplex.from reports a destroy without an error (a caller closing early: a probe, a
        // port-forward's end) as an AbortError 'error' event; that is a close, and no caller
        // must be made to listen for it. Real errors still reach the caller's own listeners.
        stream.on('error', () => undefined);
        stream.once('close', () => child.kill('SIGKILL'));
        return resolve(stream);
      }
    };
    child.stderr.on('data', onErr);
    child.once('error', (err) =>
      reject(
        new KubeletError('Runtime', `cannot enter network namespace ${netnsPath}: ${err.message}`, {
          cause: err,
        }),
      ),
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!answered)
        reject(
          new KubeletError(
            'Runtime',
            `cannot enter network namespace ${netnsPath}: nsenter exited ${code ?? 'on a signal'}: ${said.trim()}`,
          ),
        );
    });
  });
}
