// `agent-sandbox apiserver --data-dir DIR [--port N]` (implementation: commands/apiserver.ts).
import { parsePort } from '../flags/port.ts';
import { withEmbeddedFlags, type EmbeddedFlags } from '../flags/embedded.ts';
import type { Verb } from '../verb.ts';

/** kube-apiserver's secure port (also @agent-sandbox/local's DEFAULT_PORT; not imported here so --help loads nothing). */
const DEFAULT_PORT = 6443;

export const apiserverVerb: Verb = (program, { io, setExit }) => {
  withEmbeddedFlags(
    program
      .command('apiserver')
      .description(
        'run the embedded Kubernetes API server alone over HTTPS on 127.0.0.1; writes DIR/kubeconfig',
      )
      .requiredOption('--data-dir <dir>', 'where the database, CA, token and kubeconfig live')
      .option(
        '--port <n>',
        `port to serve on; 0 picks a free one (default: ${DEFAULT_PORT}, or a free port if taken)`,
        parsePort,
      ),
  ).action(
    async (
      opts: EmbeddedFlags & {
        dataDir: string;
        port?: number;
      },
    ) => {
      const { runApiserver } = await import('../commands/apiserver.ts');
      setExit(await runApiserver(opts, io));
    },
  );
};
