// The daemon's process (the only place that reads argv and env): starts every listener, logs
// one JSON line per event to stderr, and shuts down in upstream's order on SIGTERM/SIGINT. Run
// by main.ts (the plain bundle) or by the code-cached launch's boot script (code-cache.ts).
import { performance } from 'node:perf_hooks';
import { startSandboxd } from './daemon.ts';
import { SandboxdError } from './errors.ts';
import { parseFlags } from './flags.ts';

const log = (msg: string, fields: Record<string, unknown> = {}) =>
  process.stderr.write(
    `${JSON.stringify({ ts: new Date().toISOString(), logger: 'sandboxd', msg, ...fields })}\n`,
  );

async function main(codeCache: CodeCacheState | undefined): Promise<void> {
  // ms since the process began (performance's origin): node's own boot plus this bundle's load.
  // With servingMs, a slow start says which half was slow (the node logs this line).
  const loadedMs = Math.round(performance.now());
  const options = parseFlags(process.argv.slice(2));
  const env = { ...process.env };
  // The loader trick (README "Running in any image") sets these for the daemon only.
  delete env.NODE_OPTIONS;
  const daemon = await startSandboxd({ ...options, env, log });
  log('serving', {
    root: daemon.root,
    rest: daemon.restUrl,
    grpc: daemon.grpcAddress,
    legacy: daemon.legacyUrl,
    ...(daemon.skipped.length > 0 ? { skipped: daemon.skipped } : {}),
    ...(codeCache ? { codeCache } : {}),
    loadedMs,
    servingMs: Math.round(performance.now()),
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log('shutting down', { signal });
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    daemon.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * How the code-cached launch compiled this bundle (code-cache.ts): `used`, `rejected` by V8 (a
 * different node or flags: compiled from source instead) or `none` (no cache file). The plain
 * bundle passes nothing.
 */
export type CodeCacheState = 'used' | 'rejected' | 'none';

/** Starts the daemon from process.argv; exits the process if it cannot. */
export function runSandboxd(codeCache?: CodeCacheState): void {
  main(codeCache).catch((err: unknown) => {
    log('failed to start', { error: err instanceof Error ? err.message : String(err) });
    process.exit(err instanceof SandboxdError && err.code === 'InvalidArgument' ? 2 : 1);
  });
}
