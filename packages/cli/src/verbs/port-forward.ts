// `agent-sandbox port-forward ID [LOCAL:]REMOTE...` (implementation: commands/port-forward.ts).
import { addClusterOptions, type ClusterOptions } from '../cluster-options.ts';
import type { Verb } from '../verb.ts';

export const portForwardVerb: Verb = (program, ctx) => {
  addClusterOptions(
    program
      .command('port-forward')
      .description('forward local ports to ports of a sandbox until Ctrl-C')
      .argument('<id>', 'the sandbox')
      .argument('<ports...>', 'REMOTE, LOCAL:REMOTE or :REMOTE (a free local port)'),
  ).action(async (id: string, ports: string[], opts: ClusterOptions) => {
    const { runPortForward } = await import('../commands/port-forward.ts');
    ctx.setExit(await runPortForward(id, ports, opts, ctx.io));
  });
};
