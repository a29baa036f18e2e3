#!/usr/bin/env node
// Builds dist/agent-sandbox.js, the ESM entry of the CLI, with every @agent-sandbox/* package it
// imports in it or in dist/chunks/, so `npx agent-sandbox` and `npm start` skip tsx's compile at
// load (ADR 0013). Code splitting keeps each verb's implementation in its own chunks, loaded by
// the verb's dynamic import: `validate` and `--help` never parse the API server, SQLite or the
// controller runtime. Run by the root `prepare` script on `npm install`, or by hand:
// `npm run build`.
//
// Third-party packages stay external (loaded from node_modules as usual: better-sqlite3's and node-pty's
// native addons, pino's worker transports). dist/agent-sandbox.manifest.json lists every source file the
// bundle was built from with its size and mtime; the launcher (agent-sandbox.js) uses the bundle
// only while all of them are unchanged and runs the sources through tsx otherwise. Nothing in the
// manifest or the bundle names the tree it was built in: paths are relative to the repository
// root, so a dist copied into another checkout is judged against that checkout's sources (and,
// when they match, reads that checkout's data files).
//
// Plain JavaScript on purpose: it runs before anything is compiled.
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('..', import.meta.url));
const ROOT = resolve(CLI, '../..');
const DIST = join(CLI, 'dist');
export const BUNDLE = join(DIST, 'agent-sandbox.js');
export const MANIFEST = join(DIST, 'agent-sandbox.manifest.json');
const CHUNKS = join(DIST, 'chunks');
/** Old chunks stay this long, for processes still running the previous bundle. */
const OLD_CHUNK_GRACE_MS = 60 * 60 * 1000;

/**
 * Packages loaded from node_modules at run time rather than bundled: native addons, and packages
 * that start workers or read files by their own path. Everything else, ours and third-party, is
 * bundled: loading a few hundred small CommonJS files (undici, typebox, ...) was most of what was
 * left of the start time once tsx was gone (ADR 0013).
 */
const EXTERNAL = new Set([
  'better-sqlite3',
  // Native addon (the node agent's TTY sessions): its loader looks for pty.node by its own path.
  'node-pty',
  'pino',
  'esbuild',
  'tsx',
  // Loaded only when tracing is on (ADR 0014); bundling them would cost every start.
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-base',
]);
const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = packageName(args.path);
      if (EXTERNAL.has(name)) return { path: args.path, external: true };
      // A third-party package the sources load with import() (certificates, tracing) stays
      // external too: in a split bundle esbuild hands a dynamically imported CommonJS module
      // back as `{ default }` only, where Node's own loader gives its named exports.
      if (args.kind === 'dynamic-import' && !name.startsWith('@agent-sandbox/'))
        return { path: args.path, external: true };
      return undefined;
    });
  },
};

/** `path` relative to the repository root, with forward slashes: how the manifest names files. */
export const rootRelative = (path) => relative(ROOT, path).split(sep).join('/');

/**
 * Every output file (the entry in dist/, chunks in dist/chunks/) finds the repository root from its
 * own URL, so the bundle names no absolute path and works wherever the tree is.
 */
const BANNER = [
  "import { createRequire as __agentSandboxRequire } from 'node:module';",
  "import { fileURLToPath as __agentSandboxPath } from 'node:url';",
  // Bundled CommonJS calls require() for Node's built-ins; an ES module has none of its own.
  'const require = __agentSandboxRequire(import.meta.url);',
  "const __agentSandboxRoot = new URL(import.meta.url.endsWith('/dist/agent-sandbox.js') ? '../../../' : '../../../../', import.meta.url);",
].join(' ');

/**
 * Sources find their data files next to themselves (`new URL('./data/x.json', import.meta.url)`);
 * in one bundle every module would share the bundle's URL, so each keeps its own — as a path
 * from the root the banner finds, not the absolute path of the tree that was built.
 */
const ownImportMeta = {
  name: 'own-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const url = (path) => `new URL(${JSON.stringify(rootRelative(path))}, __agentSandboxRoot)`;
      const contents = source
        .replaceAll('import.meta.url', `(${url(args.path)}.href)`)
        .replaceAll('import.meta.dirname', `__agentSandboxPath(${url(dirname(args.path))})`)
        .replaceAll('import.meta.filename', `__agentSandboxPath(${url(args.path)})`);
      return { contents, loader: 'ts' };
    });
  },
};

function stamp(path) {
  const st = statSync(path);
  return { size: st.size, mtimeMs: st.mtimeMs };
}

/** Builds the bundle; returns its manifest, or undefined when esbuild is not installed. */
export async function bundle({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    log('agent-sandbox bundle: esbuild is not installed (devDependency); the CLI runs from source');
    return undefined;
  }
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    const buildStart = Date.now();
    const tmp = join(DIST, `.build-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { 'agent-sandbox': join(CLI, 'src/main.ts') },
      outdir: tmp,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      metafile: true,
      logLevel: 'warning',
      banner: { js: BANNER },
      plugins: [externalPackages, ownImportMeta],
    });
    // The package.json files decide how workspace imports resolve, so they count as inputs too.
    const inputs = new Set(Object.keys(result.metafile.inputs).map((p) => resolve(ROOT, p)));
    for (const dir of JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces)
      inputs.add(join(ROOT, dir, 'package.json'));
    inputs.add(join(ROOT, 'package.json'));
    inputs.add(join(ROOT, 'tsconfig.json'));
    inputs.add(fileURLToPath(import.meta.url));
    const stamps = Object.fromEntries(
      [...inputs].map((p) => [rootRelative(p), stamp(p)]).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    // A file saved while esbuild read the tree may be in the bundle half-old: build again.
    const edited = Object.entries(stamps).find(([, s]) => s.mtimeMs >= buildStart);
    if (edited && attempt < 3) {
      rmSync(tmp, { recursive: true, force: true });
      continue;
    }
    const chunks = readdirSync(join(tmp, 'chunks'), { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
    const manifest = {
      bundle: 'agent-sandbox.js',
      builtAt: new Date().toISOString(),
      node: process.version,
      esbuild: esbuild.version,
      chunks,
      inputs: stamps,
    };
    // Chunks first (content-hashed names: new ones never replace old ones), then the entry, then
    // the manifest, each by rename: a reader sees the old pair or the new one, and a bundle
    // without its manifest is never used.
    mkdirSync(CHUNKS, { recursive: true });
    for (const chunk of chunks) renameSync(join(tmp, 'chunks', chunk), join(CHUNKS, chunk));
    renameSync(join(tmp, 'agent-sandbox.js'), BUNDLE);
    rmSync(tmp, { recursive: true, force: true });
    const manifestTmp = `${MANIFEST}.${process.pid}.tmp`;
    writeFileSync(manifestTmp, `${JSON.stringify(manifest, null, 1)}\n`);
    renameSync(manifestTmp, MANIFEST);
    removeOldChunks(new Set(chunks));
    log(
      `agent-sandbox bundle: ${BUNDLE} from ${inputs.size} files in ${Math.round(performance.now() - started)} ms`,
    );
    return manifest;
  }
}

/** Deletes chunks of earlier builds once no process can still be loading them. */
function removeOldChunks(keep) {
  for (const name of readdirSync(CHUNKS)) {
    if (keep.has(name)) continue;
    const path = join(CHUNKS, name);
    if (Date.now() - statSync(path).mtimeMs > OLD_CHUNK_GRACE_MS) rmSync(path, { force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // --if-possible (the `prepare` script): a build error must not fail `npm install`; the
  // launcher then keeps running the sources, as without a bundle.
  const ifPossible = process.argv.includes('--if-possible');
  try {
    mkdirSync(DIST, { recursive: true });
    await bundle();
  } catch (err) {
    process.stderr.write(`agent-sandbox bundle: build failed, the CLI runs from source: ${err}\n`);
    if (!ifPossible) process.exitCode = 1;
  }
}
