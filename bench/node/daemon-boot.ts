// The in-sandbox daemon's own start on the host, to its `serving` line (bench/README "## node",
// "The daemon's boot, host-only"): the code-cached launch (`cached`, ADR 0045: node runs the
// boot script) and the plain bundle (`plain`, node sandboxd.mjs), all three listeners, against
// what bounds them from below, interleaved round by round in a rotating order so the machine's
// load falls on every row alike:
//   floor     a script that only writes the line: node's own boot
//   builtins  the same after requiring the built-ins the daemon loads (http, http2, tls, net, ...)
//   grpc-js   a bundle of @grpc/grpc-js alone (with protobufjs, which it pulls in), loaded
//   proto     a bundle of our protobufjs definitions, loaded and the gRPC definitions built
// `loaded` is the bundle's main (ms since the process began), `serving` its listeners bound,
// `wall` this process's spawn → the line. Prints a markdown table; writes nothing to bench/results.
//
//   npx tsx bench/node/daemon-boot.ts [--rounds 16]
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleSandboxd } from '../../packages/sandboxd/src/bundle.ts';
import { buildCodeCachedBundle } from '../../packages/sandboxd/src/code-cache.ts';
import { percentiles } from '../claims/stats.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '16' } } });
const rounds = Number(values.rounds);
if (!(rounds > 0)) throw new Error('--rounds takes a positive number, e.g. --rounds 16');

const dir = await mkdtemp(join(tmpdir(), 'asb-bench-daemon-boot-'));
const LINE = `console.error(JSON.stringify({ msg: 'serving', loadedMs: Math.round(performance.now()), servingMs: Math.round(performance.now()) }));`;
const BUILTINS = ['http', 'http2', 'tls', 'net', 'dns', 'zlib', 'child_process', 'fs/promises'];

/** Bundles a one-file ESM entry as bundle.ts does the daemon (minified, node20). */
async function bundleEntry(name: string, source: string): Promise<string> {
  const { build } = await import('esbuild');
  const entry = join(dir, `${name}-entry.ts`);
  const out = join(dir, `${name}.mjs`);
  await writeFile(entry, source);
  await build({
    entryPoints: [entry],
    outfile: out,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    minify: true,
    nodePaths: [join(process.cwd(), 'node_modules')],
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'error',
  });
  return out;
}

interface Sample {
  wall: number;
  loaded: number;
  serving: number;
}

/** Spawns `script` with the daemon's flags (free ports, loopback) until its `serving` line. */
function once(script: string): Promise<Sample> {
  const flags = ['--root-dir', join(dir, 'ws'), '--listen-host', '127.0.0.1'];
  for (const p of ['--rest-port', '--grpc-port', '--legacy-port']) flags.push(p, '0');
  const t0 = performance.now();
  const child = spawn(process.execPath, [script, ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    child.on('exit', (code) => reject(new Error(`${script} exited ${code}: ${text}`)));
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n').find((l) => l.includes('"serving"'));
      if (!line) return;
      child.removeAllListeners('exit');
      child.kill('SIGKILL');
      const j = JSON.parse(line) as { loadedMs: number; servingMs: number };
      resolve({ wall: performance.now() - t0, loaded: j.loadedMs, serving: j.servingMs });
    });
  });
}

const floor = join(dir, 'floor.cjs');
await writeFile(floor, LINE);
const builtins = join(dir, 'builtins.cjs');
await writeFile(builtins, `${BUILTINS.map((m) => `require('node:${m}');`).join('')}${LINE}`);
const protocol = join(process.cwd(), 'packages/protocol/src/index.ts');
const variants: Record<string, string> = {
  plain: join(dir, 'sandboxd.mjs'),
  cached: (await buildCodeCachedBundle(join(dir, 'code-cache'), process.execPath)).bootPath,
  floor,
  builtins,
  'grpc-js': await bundleEntry('grpc', `import '@grpc/grpc-js';\n${LINE}`),
  proto: await bundleEntry(
    'proto',
    `import { PROCESS_SERVICE, SESSION_SERVICE, WATCHER_SERVICE, grpcServiceDefinition } from ${JSON.stringify(protocol)};\nfor (const s of [PROCESS_SERVICE, WATCHER_SERVICE, SESSION_SERVICE]) grpcServiceDefinition(s);\n${LINE}`,
  ),
};
await bundleSandboxd(variants.plain!);

const load0 = loadavg()[0]!.toFixed(1);
const samples = new Map<string, Sample[]>();
const names = Object.keys(variants);
for (let r = 0; r < rounds; r++)
  for (let i = 0; i < names.length; i++) {
    const name = names[(r + i) % names.length]!;
    samples.set(name, [...(samples.get(name) ?? []), await once(variants[name]!)]);
  }
await rm(dir, { recursive: true, force: true });

const p50 = (xs: number[]): string => percentiles(xs)?.p50.toFixed(1) ?? '-';
console.log(`${rounds} rounds, load average ${load0} → ${loadavg()[0]!.toFixed(1)}\n`);
console.log('| p50 ms   | loaded | serving | wall  |\n| -------- | ------ | ------- | ----- |');
for (const [name, xs] of samples)
  console.log(
    `| ${name} | ${p50(xs.map((x) => x.loaded))} | ${p50(xs.map((x) => x.serving))} | ${p50(xs.map((x) => x.wall))} |`,
  );
