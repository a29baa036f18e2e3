// `agent-sandbox up` (implementation: commands/up.ts).
import { defaultDataDir } from '../data-dir.ts';
import { parsePort } from '../flags/port.ts';
import {
  POD_SECURITY_HELP,
  parsePodSecurity,
  type PodSecurityFlag,
} from '../flags/pod-security.ts';
import type { Verb } from '../verb.ts';

export const upVerb: Verb = (program, { io, setExit, version }) => {
  program
    .command('up')
    .description(
      'run agent-sandbox with its node agent on this machine (needs root and runc); stop with Ctrl-C',
    )
    .option(
      '--data-dir <dir>',
      `where state lives (default: $AGENT_SANDBOX_HOME, else ${defaultDataDir()})`,
    )
    .option(
      '--port <n>',
      'API server port; 0 picks a free one (default: 6443, or a free port if taken)',
      parsePort,
    )
    .option('--pod-security <level>', POD_SECURITY_HELP, parsePodSecurity)
    .action(async (opts: { dataDir?: string; port?: number; podSecurity?: PodSecurityFlag }) => {
      const { runUp } = await import('../commands/up.ts');
      setExit(await runUp(opts, io, { version }));
    });
};
