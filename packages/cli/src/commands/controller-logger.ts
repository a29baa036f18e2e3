// The controller manager's logger: pino JSON on stderr at upstream's --zap-log-level; `up`'s
// logger: the same JSON into DIR/up.log, warnings and errors also on stderr.
import { RotatingFile } from '@agent-sandbox/apiserver';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { multistream, pino, type Logger } from 'pino';
import type { CommandIO } from '../io.ts';

const ZAP_TO_PINO: Record<string, string> = {
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  dpanic: 'fatal',
  panic: 'fatal',
  fatal: 'fatal',
};

export interface LoggerFlags {
  /** --zap-log-level: a zap level name or an integer verbosity. @default 'info' */
  zapLogLevel?: string;
  /** --zap-log-level given on the command line. */
  levelSet?: boolean;
  /** --zap-devel */
  zapDevel?: boolean;
}

/**
 * pino on stderr at --zap-log-level (integers are zap verbosity: 1 debug, 2+ trace);
 * --zap-devel alone means debug, as zap's development defaults do.
 */
export function controllerLogger(flags: LoggerFlags, io: Pick<CommandIO, 'stderr'>): Logger {
  const zap = flags.zapLogLevel ?? 'info';
  const level =
    !flags.levelSet && flags.zapDevel
      ? 'debug'
      : /^\d+$/.test(zap)
        ? Number(zap) === 1
          ? 'debug'
          : 'trace'
        : (ZAP_TO_PINO[zap] ?? 'info');
  return pino({ level, base: { logger: 'controller-manager' } }, { write: (s) => io.stderr(s) });
}

/** `up`'s logger and the file it keeps. */
export interface FileLogger {
  /** The root: callers take a child per part, `{ logger: 'kubelet' }` and so on. */
  logger: Logger;
  /** DIR/up.log */
  path: string;
  close(): void;
}

/**
 * For `up`, which a person watches: every line (info and up, JSON) goes to a size-bounded file
 * in the data dir, and only warnings and errors to stderr — so the terminal shows what runs
 * where and what went wrong, not every reconcile.
 */
export function fileLogger(dataDir: string, io: Pick<CommandIO, 'stderr'>): FileLogger {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, 'up.log');
  const file = new RotatingFile({
    path,
    onError: (err) => io.stderr(`up.log: ${err instanceof Error ? err.message : String(err)}\n`),
  });
  const streams = multistream([
    { level: 'info', stream: { write: (s: string) => file.write(s) } },
    { level: 'warn', stream: { write: (s: string) => io.stderr(s) } },
  ]);
  // No `logger` in the base: each part names itself in its child, and pino would write a key
  // given both in the base and in a child twice on one line.
  const logger = pino({ level: 'info', base: {} }, streams);
  return { logger, path, close: () => file.close() };
}
