// `agent-sandbox start` (what `npm start` runs): the embedded single-machine mode.
import type { CommandIO } from '../io.ts';

export function runStart(io: CommandIO): number {
  io.stdout(
    'agent-sandbox start: the embedded mode (API server over SQLite, controllers, node agent) is not implemented yet.\n' +
      'Available now: `npx agent-sandbox validate -f FILE` and `npx agent-sandbox manifests crds`. See README.md, "Status".\n',
  );
  return 0;
}
