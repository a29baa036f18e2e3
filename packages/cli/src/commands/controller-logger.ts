// The controller manager's logger: pino JSON on stderr at upstream's --zap-log-level.
import { pino, type Logger } from 'pino';
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
