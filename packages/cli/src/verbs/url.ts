// `agent-sandbox url ID PORT` (implementation: commands/url.ts).
import { addClusterOptions } from '../cluster-options.ts';
import type { UrlFlags } from '../commands/url.ts';
import type { Verb } from '../verb.ts';

export const urlVerb: Verb = (program, ctx) => {
  addClusterOptions(
    program
      .command('url')
      .description('print the URL of a port of a sandbox (through the router when one is set)')
      .argument('<id>', 'the sandbox')
      .argument('<port>', 'the port a server in the sandbox listens on'),
  )
    .option('--router-url <url>', 'the sandbox router (default: AGENT_SANDBOX_ROUTER_URL)')
    .option(
      '--sandbox-domain <domain>',
      "the router's per-sandbox host domain (default: AGENT_SANDBOX_SANDBOX_DOMAIN)",
    )
    .action(async (id: string, port: string, opts: UrlFlags) => {
      const { runUrl } = await import('../commands/url.ts');
      ctx.setExit(await runUrl(id, port, opts, ctx.io));
    });
};
