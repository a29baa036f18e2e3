// The daemon compiled from a V8 code cache (ADR 0045): most of a plain start's time after node's
// own boot is the ESM bundle's parse and compile (grpc-js and protobufjs, ~600 KB; bench/README
// "The daemon's boot"), and Node 20 has no code cache for ES modules nor a startup snapshot that
// can hold node:http, node:http2 or node:tls. So the daemon is also bundled as CommonJS
// (sandboxd.cjs), a small boot script compiles it with vm.Script and the cache, and the cache is
// made on the host by the node binary the Pods run (V8 accepts a cache only from its own version
// and flags), by evaluating the bundle's modules once without starting the daemon. A cache V8
// rejects costs nothing but the gain: the boot script compiles from source and says so.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleSandboxdCommonJs } from './bundle.ts';

export interface CodeCachedBundle {
  /** The boot script node runs (sandboxd-boot.cjs); the bundle and cache lie beside it. */
  bootPath: string;
  bundlePath: string;
  cachePath: string;
}

export const BOOT_FILE = 'sandboxd-boot.cjs';
const BUNDLE_FILE = 'sandboxd.cjs';
const CACHE_FILE = 'sandboxd.cjs.cache';

/** Compiles `file` (the CommonJS bundle) as node's module wrapper would, with `cachedData`. */
const COMPILE = `const { readFileSync } = require('node:fs');
const { Script } = require('node:vm');
const { wrap } = require('node:module');
const compile = (file, cachedData) =>
  new Script(wrap(readFileSync(file, 'utf8')), { filename: file, ...(cachedData ? { cachedData } : {}) });
const evaluate = (script, file) => {
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, file, require('node:path').dirname(file));
  return module.exports;
};
`;

/** The boot script: the bundle from its cache (or its source), then the daemon. */
export const BOOT_SOURCE = `'use strict';
${COMPILE}const file = __dirname + '/${BUNDLE_FILE}';
let cachedData;
try { cachedData = readFileSync(__dirname + '/${CACHE_FILE}'); } catch {}
const script = compile(file, cachedData);
const state = !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used';
evaluate(script, file).runSandboxd(state);
`;

/**
 * Run on the host with argv [bundle, cache]: evaluates the bundle's modules (what a start
 * compiles before main) and writes the cache; then checks V8 takes it back, else exits 1.
 */
const PRIME_SOURCE = `'use strict';
${COMPILE}const [file, out] = process.argv.slice(1);
const script = compile(file);
evaluate(script, file);
const data = script.createCachedData();
if (compile(file, data).cachedDataRejected) { console.error('V8 rejected the cache it made'); process.exit(1); }
require('node:fs').writeFileSync(out, data);
`;

/**
 * Writes the CommonJS bundle, its boot script and its code cache into `dir`, the cache made by
 * `node` (the binary the Pods run). Rejects with the reason when any step fails; the caller
 * falls back to the plain bundle.
 */
export async function buildCodeCachedBundle(dir: string, node: string): Promise<CodeCachedBundle> {
  const files = {
    bootPath: path.join(dir, BOOT_FILE),
    bundlePath: path.join(dir, BUNDLE_FILE),
    cachePath: path.join(dir, CACHE_FILE),
  };
  await bundleSandboxdCommonJs(files.bundlePath);
  await writeFile(files.bootPath, BOOT_SOURCE);
  await new Promise<void>((resolve, reject) =>
    execFile(
      node,
      ['-e', PRIME_SOURCE, files.bundlePath, files.cachePath],
      { timeout: 30_000 },
      (err, _stdout, stderr) =>
        err
          ? reject(new Error(`making the daemon's code cache: ${stderr.trim() || err.message}`))
          : resolve(),
    ),
  );
  return files;
}
