// Go flag-package value parsers (strconv.ParseBool/Atoi/ParseFloat, time.ParseDuration) and the
// validators of the controller's flags. Each throws a message that names neither the flag nor
// the default: parseControllerFlags adds both.
import { parseBindAddress } from '@agent-sandbox/runtime';
import { flag } from '../flags/go-flags.ts';
import { parseDurationMs, parseInt10 } from '../flags/go-numbers.ts';

export { parseDurationMs, parseInt10 };

const BOOL_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const BOOL_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool. */
export function parseBool(text: string): boolean {
  if (BOOL_TRUE.has(text)) return true;
  if (BOOL_FALSE.has(text)) return false;
  throw new Error(`"${text}" is not a boolean (use true or false)`);
}

/** Go's strconv.ParseFloat (decimal forms, Inf and NaN). */
export function parseFloat64(text: string): number {
  if (/^[+-]?(inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text))
    throw new Error(`"${text}" is not a number`);
  return Number(text);
}

export const str = (text: string): string => text;

/** `--kubeconfig`, alike in every upstream binary we reimplement (controller, router). */
export const KUBECONFIG_FLAG = flag({
  name: 'kubeconfig',
  default: '',
  parse: str,
  help: 'kubeconfig path; else KUBECONFIG, the in-cluster service account, or ~/.kube/config',
});

export function positiveInt(text: string): number {
  const n = parseInt10(text);
  if (n <= 0) throw new Error(`must be greater than 0, got ${n}`);
  return n;
}

export function bindAddress(text: string): string {
  let at: { port: number } | undefined;
  try {
    at = parseBindAddress(text);
  } catch {
    throw new Error(`"${text}" is not host:port, :port or 0 (0 disables)`);
  }
  if (at && at.port > 65535) throw new Error(`port ${at.port} is above 65535`);
  return text;
}

export function oneOf(values: readonly string[]): (text: string) => string {
  return (text) => {
    if (!values.includes(text)) throw new Error(`"${text}" is not one of ${values.join(', ')}`);
    return text;
  };
}

/** zap's --zap-log-level: debug, info, error, or an integer > 0 (verbosity). */
export function zapLevel(text: string): string {
  if (['debug', 'info', 'error', 'warn', 'dpanic', 'panic', 'fatal'].includes(text)) return text;
  if (/^\d+$/.test(text) && Number(text) > 0) return text;
  throw new Error(`"${text}" is not a log level (use debug, info, error, or an integer > 0)`);
}

export function positiveDuration(text: string): number {
  const ms = parseDurationMs(text);
  if (ms <= 0) throw new Error(`must be greater than 0, got ${text}`);
  return ms;
}

/** A port number (0 picks a free one): the CLI's one port parser. */
export { parsePortNumber as port } from '../flags/port.ts';

export function nonEmpty(text: string): string {
  if (text === '') throw new Error('must not be empty');
  return text;
}
