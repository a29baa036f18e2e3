// `agent-sandbox cp SRC DST` (implementation: commands/cp.ts).
import { addClusterOptions, type ClusterOptions } from '../cluster-options.ts';
import type { Verb } from '../verb.ts';

export const cpVerb: Verb = (program, ctx) => {
  addClusterOptions(
    program
      .command('cp')
      .description('copy files or directories between here and a sandbox (ID:PATH on one side)')
      .argument('<src>', 'a local path or ID:PATH')
      .argument('<dst>', 'a local path or ID:PATH'),
  ).action(async (src: string, dst: string, opts: ClusterOptions) => {
    const { runCopy } = await import('../commands/cp.ts');
    ctx.setExit(await runCopy(src, dst, opts, ctx.io));
  });
};
