#!/usr/bin/env node
// The `agent-sandbox` command. It runs dist/agent-sandbox.js, the bundle `npm install` builds
// (bin/bundle.js), while every source file it was built from is unchanged; after any edit, or
// without a bundle, it runs the TypeScript sources through tsx's loader as before
// (docs/adr/0001-workspace-and-toolchain.md, 0013-cli-startup-bundle.md). Both run the same code,
// so the only difference is the start time.
//
//   AGENT_SANDBOX_LAUNCH=source   always run the sources (tsx)
//   AGENT_SANDBOX_LAUNCH=bundle   require a fresh bundle (exit 1 naming the stale file otherwise)
//   AGENT_SANDBOX_LAUNCH_DEBUG=1  say on stderr which one runs, and why
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const MANIFEST = fileURLToPath(new URL('../dist/agent-sandbox.manifest.json', import.meta.url));
/** The repository this bin is in: the manifest's paths are relative to it (bin/bundle.js). */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The bundle's path if it is fresh, else why not. */
function freshBundle() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return {
      reason: `no bundle (${MANIFEST}); \`npm install\` or \`node packages/cli/bin/bundle.js\` builds it`,
    };
  }
  for (const [path, built] of Object.entries(manifest.inputs)) {
    // An older bundle.js wrote absolute paths, which judge a copied dist against another tree.
    if (isAbsolute(path))
      return { reason: `the manifest names ${path} by its absolute path (an older build)` };
    const now = statSync(resolve(ROOT, path), { throwIfNoEntry: false });
    if (now === undefined || now.size !== built.size || now.mtimeMs !== built.mtimeMs)
      return { reason: `${path} changed since the bundle was built` };
  }
  return { path: fileURLToPath(new URL(`../dist/${manifest.bundle}`, import.meta.url)) };
}

const mode = process.env.AGENT_SANDBOX_LAUNCH ?? 'auto';
if (!['auto', 'bundle', 'source'].includes(mode)) {
  process.stderr.write(
    `error: AGENT_SANDBOX_LAUNCH=${mode} is not one of auto, bundle, source; unset it for auto\n`,
  );
  process.exit(1);
}
const debug = (line) => {
  if (process.env.AGENT_SANDBOX_LAUNCH_DEBUG)
    process.stderr.write(`agent-sandbox launch: ${line}\n`);
};

const fresh = mode === 'source' ? { reason: 'AGENT_SANDBOX_LAUNCH=source' } : freshBundle();
let main;
if (fresh.path !== undefined) {
  debug(`bundle ${fresh.path}`);
  ({ main } = await import(fresh.path));
} else {
  if (mode === 'bundle') {
    process.stderr.write(`error: AGENT_SANDBOX_LAUNCH=bundle but ${fresh.reason}\n`);
    process.exit(1);
  }
  debug(`source through tsx: ${fresh.reason}`);
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
