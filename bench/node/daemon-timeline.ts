// The in-sandbox daemon's own start as steps of its Pod: the node logs each stderr line of the
// daemon (`in-sandbox daemon`, pod-daemon.ts), and sandboxd's `serving` line says when its
// process began (performance's origin), when its bundle had loaded and when it listened;
// `node-exec registered` when its first dial of the node's exec socket connected. Wall-clock
// times in the daemon become this process's monotonic ms (both clocks are the host's).
import type { PhaseLog } from './cold-start.ts';

interface DaemonLine {
  msg?: unknown;
  ts?: unknown;
  loadedMs?: unknown;
  servingMs?: unknown;
  sinceStartMs?: unknown;
}

/** performance.now() of a wall-clock ISO time. */
const mono = (iso: string): number => Date.parse(iso) - performance.timeOrigin;

/**
 * Steps from one daemon log line of `container` (`namespace/pod/container`): `daemon process`
 * (an instant: the node process began), `daemon loaded` (process start → main), `daemon
 * listening` (main → every listener bound) and `daemon dialled` (process start → first
 * node-exec connection).
 */
export function noteDaemonLine(phases: PhaseLog, container: string, line: unknown): void {
  if (typeof line !== 'object' || line === null) return;
  const l = line as DaemonLine;
  if (typeof l.ts !== 'string') return;
  const pod = container.split('/').slice(0, 2).join('/');
  const at = mono(l.ts);
  if (l.msg === 'serving' && typeof l.loadedMs === 'number' && typeof l.servingMs === 'number') {
    const start = at - l.servingMs;
    phases.notePod(pod, 'daemon process', start, start);
    phases.notePod(pod, 'daemon loaded', start, start + l.loadedMs);
    phases.notePod(pod, 'daemon listening', start + l.loadedMs, at);
  }
  if (l.msg === 'node-exec registered' && typeof l.sinceStartMs === 'number')
    phases.notePod(pod, 'daemon dialled', at - l.sinceStartMs, at);
}
