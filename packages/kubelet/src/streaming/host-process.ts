// Host processes as StreamProcesses: a HostCommand spawned with pipes, or on a real pty
// (node-pty) for TTY sessions, and a container's live primary process (AttachTarget) for attach.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { PassThrough, Writable } from 'node:stream';
import { spawn as spawnPty, type IPty } from 'node-pty';
import { KubeletError } from '../errors.ts';
import type { AttachTarget } from '../node/pod-containers.ts';
import type { HostCommand } from '../runtime/container-runtime.ts';
import type { ProcessExit, StreamProcess, StreamSelection, TerminalSize } from './backend.ts';

const DEFAULT_SIZE: TerminalSize = { width: 80, height: 24 };

function ptyProcess(pty: IPty, streams: StreamSelection): StreamProcess {
  const stdout = new PassThrough();
  pty.onData((d) => stdout.write(d));
  const exited = new Promise<ProcessExit>((resolve) => {
    pty.onExit(({ exitCode }) => {
      // node-pty delivers the last output before onExit; end after it is queued.
      setImmediate(() => stdout.end());
      resolve({ exitCode });
    });
  });
  const stdin = streams.stdin
    ? new Writable({
        write(chunk: Buffer, _enc, cb) {
          pty.write(chunk.toString('binary'));
          cb();
        },
        final(cb) {
          pty.write('\x04'); // end of input at a terminal is ^D
          cb();
        },
      })
    : null;
  let hungUp = false;
  if (!streams.stdout) stdout.resume();
  return {
    stdin,
    stdout: streams.stdout ? stdout : null,
    stderr: null,
    exited,
    resize: (size) => pty.resize(Math.max(size.width, 1), Math.max(size.height, 1)),
    hangUp: () => {
      if (hungUp) return;
      hungUp = true;
      try {
        pty.kill('SIGHUP'); // what closing a terminal does to its session
      } catch (err: unknown) {
        // ESRCH: the process already ended, which is all a hang-up wants
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    },
  };
}

/** A host process's end as a ProcessExit: 128 + the signal's number when a signal ended it. */
export function hostExit(code: number | null, signal: NodeJS.Signals | null): ProcessExit {
  if (signal === null) return { exitCode: code ?? 1 };
  return { exitCode: 128 + (constants.signals[signal] ?? 15), signal };
}

/**
 * Starts `cmd` with the requested streams; resolves once it is spawned. Rejects with KubeletError
 * `Runtime` when it cannot be started (missing binary).
 */
export function spawnStreamProcess(
  cmd: HostCommand,
  streams: StreamSelection,
): Promise<StreamProcess> {
  if (streams.tty) {
    const size = streams.terminalSize ?? DEFAULT_SIZE;
    try {
      const pty = spawnPty(cmd.file, cmd.args, {
        name: 'xterm',
        cols: size.width || 80,
        rows: size.height || 24,
        env: cmd.env,
      });
      return Promise.resolve(ptyProcess(pty, streams));
    } catch (err: unknown) {
      return Promise.reject(
        new KubeletError('Runtime', `cannot start ${cmd.file}: ${(err as Error).message}`, {
          cause: err,
        }),
      );
    }
  }
  const child = spawn(cmd.file, cmd.args, {
    env: cmd.env,
    stdio: [streams.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', (err) =>
      reject(
        new KubeletError('Runtime', `cannot start ${cmd.file}: ${err.message}`, { cause: err }),
      ),
    );
    child.once('spawn', () => {
      const exited = new Promise<ProcessExit>((done) => {
        child.once('exit', (code, signal) => done(hostExit(code, signal)));
      });
      if (!streams.stdout) child.stdout?.resume();
      if (!streams.stderr) child.stderr?.resume();
      resolve({
        stdin: streams.stdin ? child.stdin : null,
        stdout: streams.stdout ? child.stdout : null,
        stderr: streams.stderr ? child.stderr : null,
        exited,
        resize: () => undefined,
        hangUp: () => {
          if (child.stdin && !child.stdin.writableEnded) child.stdin.end();
        },
      });
    });
  });
}

/**
 * An attach session on a container's primary process: live output while attached (no history),
 * stdin into the process when the container has one. Detaching leaves the container running.
 */
export function attachStreamProcess(target: AttachTarget, streams: StreamSelection): StreamProcess {
  const stdout = streams.stdout ? new PassThrough() : null;
  // A TTY container has one merged stream, as its terminal does.
  const stderr = streams.stderr && !target.tty ? new PassThrough() : null;
  let detach = (): void => undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    const unsubscribe = target.subscribe((stream, chunk) => {
      if (stream === 'stderr' && !target.tty) stderr?.write(chunk);
      else stdout?.write(chunk);
    });
    const end = (): void => {
      unsubscribe();
      stdout?.end();
      stderr?.end();
      resolve({ exitCode: 0 });
    };
    void target.exited.then(end);
    detach = end;
  });
  const stdin =
    streams.stdin && target.stdin
      ? new Writable({
          write(chunk: Buffer, _enc, cb) {
            target.stdin?.write(chunk, () => cb());
          },
        })
      : null;
  return { stdin, stdout, stderr, exited, resize: () => undefined, hangUp: () => detach() };
}
