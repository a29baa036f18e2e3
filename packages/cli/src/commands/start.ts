// `agent-sandbox start` (what `npm start` runs): the embedded single-machine mode. It serves the
// embedded Kubernetes API (with our CRDs) from a per-user data dir and runs the controller
// manager against it in the same process (no leader election: one process owns the data dir),
// composed by @agent-sandbox/local; the node agent and router join it there as they land.
import type { CommandIO } from '../io.ts';
import { defaultDataDir } from '../data-dir.ts';
import { exitCodeFor } from '../report-error.ts';
import { controllerLogger } from './controller-logger.ts';
import {
  apiServerOptions,
  serveEmbedded,
  type ApiServerFlags,
  type ServeRunOptions,
} from './serve-embedded.ts';

export { defaultDataDir };

export interface StartOptions extends ApiServerFlags {
  dataDir?: string;
}

export interface StartRunOptions extends ServeRunOptions {
  /** Reported as the controllers' build info. */
  version?: string;
}

export async function runStart(
  opts: StartOptions,
  io: CommandIO,
  run: StartRunOptions = {},
): Promise<number> {
  io.stderr(
    'agent-sandbox start: embedded mode. Serving the Kubernetes API with the agent-sandbox CRDs and running the Sandbox, SandboxClaim, SandboxWarmPool and SandboxTemplate controllers;\n' +
      'the node agent and router are not part of the embedded mode yet, so Pods stay Pending (README.md, "Status").\n',
  );
  try {
    return await serveEmbedded(
      {
        apiServer: apiServerOptions(opts.dataDir ?? defaultDataDir(), opts),
        // One process owns the data dir: no leader election, no metrics or probe ports, and no
        // conversion webhook (the embedded server converts v1alpha1 in-process).
        controllerManager: {
          logger: controllerLogger({}, io),
          // The extension controllers (claims, warm pools, templates) are on in the embedded mode.
          controllers: ['sandbox', 'sandboxclaim', 'sandboxwarmpool', 'sandboxtemplate'],
          extensions: true,
          ...(run.version !== undefined ? { version: run.version } : {}),
        },
      },
      io,
      run.signal ? { signal: run.signal } : {},
    );
  } catch (err: unknown) {
    return exitCodeFor(err, io);
  }
}
