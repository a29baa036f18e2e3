// The one port parser of the CLI: commander options (--port) and Go-style flags (--webhook-port)
// both use it, each adding the flag's name and default to the message.
import { InvalidArgumentError } from 'commander';

/** An integer from 0 to 65535 (0: the OS picks a free port); throws a message without the flag. */
export function parsePortNumber(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw new Error(`must be an integer from 0 to 65535 (0 picks a free port), got ${text}`);
  return port;
}

/** commander's parser for `--port <n>`. */
export function parsePort(text: string): number {
  try {
    return parsePortNumber(text);
  } catch (err: unknown) {
    throw new InvalidArgumentError(`--port ${err instanceof Error ? err.message : String(err)}`);
  }
}
