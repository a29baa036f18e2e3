// `agent-sandbox exec ID -- COMMAND...` (implementation: commands/exec.ts).
import { addClusterOptions } from '../cluster-options.ts';
import type { ExecFlags } from '../commands/exec.ts';
import type { Verb } from '../verb.ts';

export const execVerb: Verb = (program, ctx) => {
  addClusterOptions(
    program
      .command('exec')
      .description("run a command in a sandbox (streams output; exits with the command's code)")
      .argument('<id>', 'the sandbox (what create printed)')
      .argument('<command...>', 'the command and its arguments, after --'),
  )
    .option('-i, --stdin', 'pass standard input to the command', false)
    .option('-t, --tty', 'run the command on a terminal (with -i for an interactive shell)', false)
    .option('-c, --container <name>', "container of the sandbox's Pod (default: its first)")
    .action(async (id: string, command: string[], opts: ExecFlags) => {
      const { runExec } = await import('../commands/exec.ts');
      ctx.setExit(await runExec(id, command, opts, ctx.io));
    });
};
