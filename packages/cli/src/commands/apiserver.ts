// `agent-sandbox apiserver --data-dir DIR [--port N] [--pod-security LEVEL]`: the embedded API server on its own, over
// HTTPS on 127.0.0.1 with a generated CA and bearer token (ADR 0007): @agent-sandbox/local's
// embedded mode with no components. It keeps everything in DIR (apiserver.db, token, pki/,
// kubeconfig) and runs in the foreground until SIGINT or SIGTERM, when it closes the store so the
// next start can open it.
import { DEFAULT_PORT, dataDirPaths } from '@agent-sandbox/local';
import type { CommandIO } from '../io.ts';
import { exitCodeFor } from '../report-error.ts';
import {
  apiServerOptions,
  serveEmbedded,
  type ApiServerFlags,
  type ServeRunOptions,
} from './serve-embedded.ts';

export { DEFAULT_PORT, dataDirPaths };
export { parsePort } from '../flags/port.ts';

export interface ApiserverCommandOptions extends ApiServerFlags {
  dataDir: string;
}

/** Runs until `signal` (default: SIGINT/SIGTERM) aborts; returns the exit code. */
export async function runApiserver(
  opts: ApiserverCommandOptions,
  io: CommandIO,
  run: ServeRunOptions = {},
): Promise<number> {
  try {
    return await serveEmbedded({ apiServer: apiServerOptions(opts.dataDir, opts) }, io, run);
  } catch (err: unknown) {
    return exitCodeFor(err, io);
  }
}
