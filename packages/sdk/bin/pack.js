#!/usr/bin/env node
// Builds the publishable @agent-sandbox/sdk (ADR 0021): one ESM bundle (dist/index.js) of the SDK
// and every package it uses, ours and third-party, with @opentelemetry/api left external so the
// application's OpenTelemetry SDK sees the SDK's spans; the declarations of the public surface
// (dist/*.d.ts, reached from index.d.ts), which must import nothing but each other and those
// externals; a package.json with only that dependency.
// Then `npm pack`s it. Usage: node packages/sdk/bin/pack.js [OUT_DIR] → prints the .tgz path.
//
// Plain JavaScript on purpose: it runs before anything is compiled.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SDK = fileURLToPath(new URL('..', import.meta.url));
const ROOT = resolve(SDK, '../..');
/** Resolved by the application, not bundled: the OpenTelemetry API must be one shared copy. */
const EXTERNAL = ['@opentelemetry/api'];

/**
 * Our packages have no import-time effects, so esbuild may drop modules the SDK never uses (the
 * OpenAPI document of kube-types, CEL and the schemas of api, protobufjs of protocol).
 */
const ourModulesArePure = {
  name: 'our-modules-are-pure',
  setup(build) {
    const packages = join(ROOT, 'packages') + '/';
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === ourModulesArePure) return undefined;
      const r = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: ourModulesArePure,
      });
      if (r.errors.length > 0 || !r.path.startsWith(packages) || r.path.includes('/node_modules/'))
        return r.errors.length > 0 ? { errors: r.errors } : { ...r, pluginData: undefined };
      return { ...r, sideEffects: false, pluginData: undefined };
    });
  },
};

export async function buildPackage(stage) {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, 'dist'), { recursive: true });
  const esbuild = await import('esbuild');
  const built = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [join(SDK, 'src/index.ts')],
    outfile: join(stage, 'dist/index.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    plugins: [ourModulesArePure],
    metafile: true,
    logLevel: 'warning',
    // Bundled CommonJS calls require() for Node's built-ins; an ES module has none of its own.
    banner: {
      js: "import { createRequire as __sdkCreateRequire } from 'node:module'; const require = __sdkCreateRequire(import.meta.url);",
    },
  });
  const inputs = Object.keys(Object.values(built.metafile.outputs)[0].inputs);
  for (const heavy of ['packages/kube-types/openapi', 'cel-js', 'typebox'])
    if (inputs.some((i) => i.includes(heavy)))
      throw new Error(`the SDK bundle pulled in ${heavy}: an import reaches more than it needs`);
  publicDeclarations(join(stage, 'dist'));
  const source = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8'));
  const versions = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages;
  const manifest = {
    name: source.name,
    version: source.version,
    description: source.description,
    license: source.license,
    type: 'module',
    engines: { node: '>=20.19' },
    exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
    types: './dist/index.d.ts',
    files: ['dist', 'README.md', 'LICENSE'],
    dependencies: Object.fromEntries(
      EXTERNAL.map((name) => [name, versions[`node_modules/${name}`].version]),
    ),
  };
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(SDK, 'README.md'), join(stage, 'README.md'));
  copyFileSync(join(ROOT, 'LICENSE'), join(stage, 'LICENSE'));
  return stage;
}

/**
 * Emits the SDK's declarations with tsc and copies those index.d.ts reaches, with `./x.ts`
 * specifiers turned into `./x.js`. Throws when a public declaration imports a workspace package
 * or anything else outside EXTERNAL: the published types would not resolve.
 */
function publicDeclarations(dist) {
  const emitted = mkdtempSync(join(tmpdir(), 'sdk-dts-'));
  try {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    execFileSync(
      process.execPath,
      [tsc, '-p', join(SDK, 'tsconfig.pack.json'), '--outDir', emitted],
      { stdio: 'inherit' },
    );
    const todo = ['index.d.ts'];
    const done = new Set();
    while (todo.length > 0) {
      const file = todo.pop();
      if (done.has(file)) continue;
      done.add(file);
      let text = readFileSync(join(emitted, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
        if (spec.startsWith('./')) todo.push(spec.slice(2).replace(/\.ts$/, '.d.ts'));
        else if (!EXTERNAL.includes(spec))
          throw new Error(`${file} imports ${spec}: the public types must not reach it`);
      }
      text = text.replace(/'(\.\/[^']+)\.ts'/g, "'$1.js'");
      writeFileSync(join(dist, file), text);
    }
  } finally {
    rmSync(emitted, { recursive: true, force: true });
  }
}

/** Builds into `<out>/package` and packs it into `out`; returns the tarball's path. */
export async function packSdk(out) {
  const stage = await buildPackage(join(out, 'package'));
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], {
    cwd: stage,
    encoding: 'utf8',
  }).trim();
  return join(out, name.split('\n').pop());
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] ?? join(SDK, 'dist'));
  mkdirSync(out, { recursive: true });
  process.stdout.write(`${await packSdk(out)}\n`);
}
