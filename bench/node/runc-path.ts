// Where `runc run` and `runc exec` spend their time for our Pods, outside the agent (issue 11):
// the exact config.json the node agent writes for a bench Pod (runc-world.ts) against the floor's
// bare bundle and against copies with one part taken out (runc-variants.ts), all interleaved in
// one process (round after round, every variant once per round, in a rotating order), so that
// the machine's load falls on every row alike. Then `runc exec` into a running container of each
// kind, against `runc --version`. Prints markdown tables (p50/p90 ms, and each row against
// `ours`); nothing is written to bench/results.
//
//   npx tsx bench/node/runc-path.ts [--rounds 20] [--only run|exec|detect]   (root; ~1 min)
// Then the start's detection, A/B (runc-detect.ts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentiles } from '../claims/stats.ts';
import { timeToOutput } from './floors.ts';
import { detectRows } from './runc-detect.ts';
import { startRuncWorld, type RuncWorld } from './runc-world.ts';
import { floorConfig, VARIANTS, type Config, type Variant } from './runc-variants.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '20' }, only: { type: 'string' } },
});
const rounds = Number(values.rounds);
if (!(rounds > 0)) throw new Error('--rounds takes a positive number');
const log = (m: string): void => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);

const dir = await mkdtemp(join(tmpdir(), 'asb-bench-runc-path-'));
const stateDir = join(dir, 'runc');
const runc = (...args: string[]): string[] => ['--root', stateDir, ...args];
let seq = 0;
const nextId = (): string => `rp${process.pid}-${seq++}`;

function writeBundle(name: string, config: Config): string {
  const bundle = join(dir, 'bundles', name.replace(/[^a-z0-9]+/gi, '-'));
  mkdirSync(bundle, { recursive: true });
  writeFileSync(join(bundle, 'config.json'), JSON.stringify(config, null, 2));
  return bundle;
}

/** `ms` per row name, in the order rows were first seen. */
type Samples = Map<string, number[]>;
const push = (s: Samples, k: string, v: number): void => {
  s.set(k, [...(s.get(k) ?? []), v]);
};

/** One `runc run` of `variant`'s bundle, spawn → `hi` on stdout; the container is removed. */
async function runOnce(v: Variant, bundle: string): Promise<number> {
  const id = nextId();
  const keep = v.keep ?? true;
  const ms = await timeToOutput(
    'runc',
    runc('run', ...(keep ? ['--keep'] : []), '--bundle', bundle, id),
  );
  await new Promise((r) => setTimeout(r, 20)); // let it exit
  if (keep) execFileSync('runc', runc('delete', '--force', id));
  return ms;
}

async function runRows(world: RuncWorld): Promise<Samples> {
  const bundles = VARIANTS.map((v, i) =>
    writeBundle(v.name, v.config(world.config(['echo', 'hi'], world.cgroupPath(`v${i}`)))),
  );
  const out: Samples = new Map(VARIANTS.map((v) => [v.name, []]));
  for (let i = 0; i < VARIANTS.length; i++)
    await runOnce(VARIANTS[i] as Variant, bundles[i] as string); // warm
  for (let r = 0; r < rounds; r++)
    for (let k = 0; k < VARIANTS.length; k++) {
      const i = (k + r) % VARIANTS.length;
      const v = VARIANTS[i] as Variant;
      push(out, v.name, await runOnce(v, bundles[i] as string));
    }
  return out;
}

/** A container of `config` running `sleep 3600`, started and detached; returns its id. */
async function running(name: string, config: Config): Promise<string> {
  const id = nextId();
  const bundle = writeBundle(name, config);
  execFileSync('runc', runc('run', '--keep', '--detach', '--bundle', bundle, id), {
    stdio: 'ignore',
  });
  return id;
}

/** Kills a detached container, waits for its init to be gone, and deletes it with its cgroup. */
async function removeRunning(id: string): Promise<void> {
  execFileSync('runc', runc('kill', id, 'KILL'));
  for (let i = 0; i < 200; i++) {
    const state = JSON.parse(execFileSync('runc', runc('state', id), { encoding: 'utf8' })) as {
      status?: string;
    };
    if (state.status === 'stopped') break;
    await new Promise((r) => setTimeout(r, 10));
  }
  execFileSync('runc', runc('delete', id));
}

async function execRows(world: RuncWorld): Promise<Samples> {
  const sleep = ['sleep', '3600'];
  const ours = world.config(sleep, world.cgroupPath('exec-ours'));
  const noSeccomp = world.config(sleep, world.cgroupPath('exec-no-seccomp'));
  delete (noSeccomp['linux'] as Config)['seccomp'];
  const ids = {
    ours: await running('exec ours', ours),
    floor: await running('exec floor', floorConfig({ ...ours, process: { args: sleep } })),
    noSeccomp: await running('exec no seccomp', noSeccomp),
  };
  const proc = join(dir, 'process.json');
  writeFileSync(proc, JSON.stringify({ ...(ours['process'] as Config), args: ['echo', 'hi'] }));
  const rows: [string, string[], string?][] = [
    ['runc --version', ['--version'], 'version'],
    ['runc exec (ours)', runc('exec', ids.ours, 'echo', 'hi')],
    ['runc exec --process (ours)', runc('exec', '--process', proc, ids.ours)],
    ['runc exec (ours − seccomp)', runc('exec', ids.noSeccomp, 'echo', 'hi')],
    ['runc exec (floor bundle)', runc('exec', ids.floor, 'echo', 'hi')],
  ];
  const out: Samples = new Map();
  try {
    for (const [, args, o] of rows) await timeToOutput('runc', args, o); // warm
    for (let r = 0; r < rounds; r++)
      for (let k = 0; k < rows.length; k++) {
        const [name, args, o] = rows[(k + r) % rows.length] as [string, string[], string?];
        push(out, name, await timeToOutput('runc', args, o));
      }
  } finally {
    for (const id of Object.values(ids)) await removeRunning(id);
  }
  return out;
}

function table(title: string, s: Samples, base: string): void {
  const b = percentiles(s.get(base) ?? [])?.p50 ?? NaN;
  console.log(
    `\n| ${title} | n | p50 ms | p90 ms | p50 − ${base} |\n| --- | --- | --- | --- | --- |`,
  );
  for (const [name, ms] of s) {
    const p = percentiles(ms);
    if (p) console.log(`| ${name} | ${p.n} | ${p.p50} | ${p.p90} | ${(p.p50 - b).toFixed(1)} |`);
  }
}

const world = await startRuncWorld(dir);
const load0 = loadavg()[0]?.toFixed(1);
try {
  if (values.only === undefined || values.only === 'run') {
    log(`runc run: ${VARIANTS.length} bundles × ${rounds} rounds`);
    table('`runc run` → `hi`', await runRows(world), 'ours');
  }
  if (values.only === undefined || values.only === 'exec') {
    log(`runc exec: ${rounds} rounds`);
    table('`runc exec` → `hi`', await execRows(world), 'runc exec (ours)');
  }
  if (values.only === undefined || values.only === 'detect') {
    log(`start detection: ${rounds} rounds`);
    const { seen, lag } = await detectRows(world, dir, rounds);
    table('spawn → seen started', seen, 'poll (promise fs), busy loop');
    table('seen − `hi` arrived', lag, 'poll (promise fs), busy loop');
  }
} finally {
  await world.close();
  await rm(dir, { recursive: true, force: true });
}
console.log(`\nload average ${load0} → ${loadavg()[0]?.toFixed(1)}`);
