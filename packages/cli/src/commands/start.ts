// `agent-sandbox start` (what `npm start` runs): the embedded single-machine mode. Today it
// serves the embedded Kubernetes API (with our CRDs) from a per-user data dir; the controllers,
// node agent and router join it as they land.
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { CommandIO } from '../io.ts';
import { parsePort, runApiserver, type ApiserverRunOptions } from './apiserver.ts';

/** `$XDG_DATA_HOME/agent-sandbox`, else `~/.local/share/agent-sandbox`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env['XDG_DATA_HOME'] || join(homedir(), '.local', 'share');
  return join(base, 'agent-sandbox');
}

export interface StartOptions {
  dataDir?: string;
  port?: number;
}

export async function runStart(
  opts: StartOptions,
  io: CommandIO,
  run: ApiserverRunOptions = {},
): Promise<number> {
  io.stderr(
    'agent-sandbox start: embedded mode. Serving the Kubernetes API with the agent-sandbox CRDs;\n' +
      'the controllers, node agent and router are not part of the embedded mode yet (README.md, "Status").\n',
  );
  return runApiserver(
    {
      dataDir: opts.dataDir ?? defaultDataDir(),
      ...(opts.port !== undefined ? { port: opts.port } : {}),
    },
    io,
    run,
  );
}

export function addStartCommand(
  program: Command,
  io: CommandIO,
  setExit: (code: number) => void,
): void {
  program
    .command('start')
    .description('run agent-sandbox on this machine (embedded mode); stop with Ctrl-C')
    .option('--data-dir <dir>', `where state lives (default: ${defaultDataDir()})`)
    .option(
      '--port <n>',
      'API server port; 0 picks a free one (default: 6443, or a free port if taken)',
      parsePort,
    )
    .action(async (opts: StartOptions) => setExit(await runStart(opts, io)));
}
