// `agent-sandbox logs ID [-f]` (implementation: commands/logs.ts).
import { addClusterOptions } from '../cluster-options.ts';
import type { LogsFlags } from '../commands/logs.ts';
import type { Verb } from '../verb.ts';

export const logsVerb: Verb = (program, ctx) => {
  addClusterOptions(
    program
      .command('logs')
      .description("print a sandbox's log (the output of its main process)")
      .argument('<id>', 'the sandbox'),
  )
    .option('-f, --follow', 'keep printing as the log grows, until Ctrl-C', false)
    .option('--tail <lines>', 'only the last lines')
    .option('-c, --container <name>', "container of the sandbox's Pod (default: its first)")
    .action(async (id: string, opts: LogsFlags) => {
      const { runLogs } = await import('../commands/logs.ts');
      ctx.setExit(await runLogs(id, opts, ctx.io));
    });
};
