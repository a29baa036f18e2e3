// Where `agent-sandbox start` keeps its state when --data-dir is not given.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_DATA_HOME/agent-sandbox`, else `~/.local/share/agent-sandbox`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_DATA_HOME'] || join(homedir(), '.local', 'share');
  return join(base, 'agent-sandbox');
}
