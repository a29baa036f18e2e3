// `agent-sandbox router [flags]`: upstream sandbox-router's Go-style flags, parsed by the
// implementation (commands/router.ts, commands/router-flags.ts).
import type { Verb } from '../verb.ts';

export const routerVerb: Verb = (program, { io, setExit, version }) => {
  program
    .command('router')
    .description('run the sandbox router (upstream sandbox-router flags; see router --help)')
    .helpOption(false)
    .passThroughOptions()
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .argument('[flags...]')
    .action(async (flags: string[]) => {
      const { runRouter } = await import('../commands/router.ts');
      setExit(await runRouter(flags, io, { version }));
    });
};
