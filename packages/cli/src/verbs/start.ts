// `agent-sandbox start` (what `npm start` runs; implementation: commands/start.ts).
import { defaultDataDir } from '../data-dir.ts';
import { parsePort } from '../flags/port.ts';
import { withEmbeddedFlags, type EmbeddedFlags } from '../flags/embedded.ts';
import type { Verb } from '../verb.ts';

export const startVerb: Verb = (program, { io, setExit, version }) => {
  withEmbeddedFlags(
    program
      .command('start')
      .description('run agent-sandbox on this machine (embedded mode); stop with Ctrl-C')
      .option('--data-dir <dir>', `where state lives (default: ${defaultDataDir()})`)
      .option(
        '--port <n>',
        'API server port; 0 picks a free one (default: 6443, or a free port if taken)',
        parsePort,
      ),
  ).action(
    async (
      opts: EmbeddedFlags & {
        dataDir?: string;
        port?: number;
      },
    ) => {
      const { runStart } = await import('../commands/start.ts');
      setExit(await runStart(opts, io, { version }));
    },
  );
};
