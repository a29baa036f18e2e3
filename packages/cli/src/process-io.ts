// The CommandIO of the real process: the one place besides bin/ that touches process streams and
// signals (entry point code, STYLE "only entry points read process state").
import { readFileSync } from 'node:fs';
import type { CommandIO, StopSignal } from './io.ts';

export function processIO(): CommandIO {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    stdin: () => readFileSync(0, 'utf8'),
    stdinStream: process.stdin,
    stdoutStream: process.stdout,
    stderrStream: process.stderr,
    terminal: {
      isTTY: Boolean(process.stdin.isTTY && process.stdout.isTTY),
      setRawMode: (raw) => {
        if (process.stdin.isTTY) process.stdin.setRawMode(raw);
      },
      ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
      ...(process.stdout.rows ? { rows: process.stdout.rows } : {}),
      onResize: (listener) => {
        const onResize = (): void =>
          listener({ columns: process.stdout.columns, rows: process.stdout.rows });
        process.stdout.on('resize', onResize);
        return () => process.stdout.off('resize', onResize);
      },
    },
    stopSignal: processStopSignal,
  };
}

/**
 * Aborted by the first SIGINT or SIGTERM (graceful shutdown); a second one exits at once with
 * code 1, as controller-runtime's SetupSignalHandler does.
 */
export function processStopSignal(): StopSignal {
  const controller = new AbortController();
  const dispose = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  const onSignal = (sig: NodeJS.Signals): void => {
    if (controller.signal.aborted) process.exit(1);
    controller.abort(new Error(`received ${sig}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: controller.signal, dispose };
}
