// `agent-sandbox controller [flags]`: upstream's Go-style flags, parsed by the implementation
// (commands/controller.ts, flags/go-flags.ts), so commander passes everything through.
import { goFlagsVerb } from '../verb.ts';

export const controllerVerb = goFlagsVerb(
  'controller',
  'run the controller manager (upstream flags; see controller --help)',
  async () => (await import('../commands/controller.ts')).runController,
);
