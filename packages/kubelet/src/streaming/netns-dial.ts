// Connects to 127.0.0.1:<port> inside a Pod's network namespace, as kubelet's port-forward does.
// Node cannot setns(2), so a small relay runs under `nsenter --net=<path>` (not `ip netns exec`,
// which remounts /sys: machine-notes §1.4) and pipes the connection over its stdin/stdout. It says
// `connected` or `error <message>` on stderr first, so a refused port is an error, not a stream.
import { spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { KubeletError } from '../errors.ts';

const RELAY = `
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
    const onErr = (d: Buffer): void => {
      said += d.toString();
      const line = said.split('\n')[0] as string;
      if (!said.includes('\n')) return;
      child.stderr.off('data', onErr);
      child.stderr.resume();
      if (line === 'connected') {
        const stream = Duplex.from({ readable: child.stdout, writable: child.stdin });
        stream.once('close', () => child.kill('SIGKILL'));
        resolve(stream);
      } else {
        reject(
          new KubeletError(
            'Runtime',
            `dial tcp4 127.0.0.1:${port}: ${line.replace(/^error /, '')}`,
          ),
        );
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
      if (!said.includes('\n'))
        reject(
          new KubeletError(
            'Runtime',
            `cannot enter network namespace ${netnsPath}: nsenter exited ${code ?? 'on a signal'}: ${said.trim()}`,
          ),
        );
    });
  });
}
