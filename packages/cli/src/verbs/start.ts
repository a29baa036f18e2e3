// `agent-sandbox start` (what `npm start` runs; implementation: commands/start.ts).
import { defaultDataDir } from '../data-dir.ts';
import { parsePort } from '../flags/port.ts';
import {
  POD_SECURITY_HELP,
  parsePodSecurity,
  type PodSecurityFlag,
} from '../flags/pod-security.ts';
import type { Verb } from '../verb.ts';

export const startVerb: Verb = (program, { io, setExit, version }) => {
  program
    .command('start')
    .description('run agent-sandbox on this machine (embedded mode); stop with Ctrl-C')
    .option('--data-dir <dir>', `where state lives (default: ${defaultDataDir()})`)
    .option(
      '--port <n>',
      'API server port; 0 picks a free one (default: 6443, or a free port if taken)',
      parsePort,
    )
    .option('--pod-security <level>', POD_SECURITY_HELP, parsePodSecurity)
    .option(
      '--no-audit-log',
      'keep no audit log of writes (default: DIR/audit.log, rotated at 10 MiB)',
    )
    .action(
      async (opts: {
        dataDir?: string;
        port?: number;
        podSecurity?: PodSecurityFlag;
        auditLog?: boolean;
      }) => {
        const { runStart } = await import('../commands/start.ts');
        setExit(await runStart(opts, io, { version }));
      },
    );
};
