// `agent-sandbox router [flags]`: upstream sandbox-router's Go-style flags, parsed by the
// implementation (commands/router.ts, commands/router-flags.ts).
import { goFlagsVerb } from '../verb.ts';

export const routerVerb = goFlagsVerb(
  'router',
  'run the sandbox router (upstream sandbox-router flags; see router --help)',
  async () => (await import('../commands/router.ts')).runRouter,
);
