// `agent-sandbox controller [flags]`: upstream's Go-style flags, parsed by the implementation
// (commands/controller.ts, flags/go-flags.ts), so commander passes everything through.
import type { Verb } from '../verb.ts';

export const controllerVerb: Verb = (program, { io, setExit, version }) => {
  program
    .command('controller')
    .description('run the controller manager (upstream flags; see controller --help)')
    .helpOption(false)
    .passThroughOptions()
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .argument('[flags...]')
    .action(async (flags: string[]) => {
      const { runController } = await import('../commands/controller.ts');
      setExit(await runController(flags, io, { version }));
    });
};
