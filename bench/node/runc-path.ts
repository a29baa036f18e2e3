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
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentiles } from '../claims/stats.ts';
import { timeToOutput } from './floors.ts';
import { detectRows } from './runc-detect.ts';
import { startRuncWorld, type RuncWorld } from './runc-world.ts';
import { VARIANTS, type Config, type Variant } from './runc-variants.ts';

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
  const echo = ['echo', 'hi'];
  const bundles = VARIANTS.map((v, i) =>
    writeBundle(v.name, v.config(world.config(echo, world.cgroupPath(`v${i}`)))),
  );
  let pods = 0;
  /** The bundle of row `i` for this run: a new Pod cgroup for the `cgroup` rows. */
  const bundleFor = (i: number): string => {
    const v = VARIANTS[i] as Variant;
    if (!v.cgroup) return bundles[i] as string;
    const path = world.freshPodCgroup(pods++);
    if (v.cgroup === 'made ahead') world.makeCgroup(path);
    return writeBundle(v.name, v.config(world.config(echo, path)));
  };
  const out: Samples = new Map(VARIANTS.map((v) => [v.name, []]));
  for (let i = 0; i < VARIANTS.length; i++) await runOnce(VARIANTS[i] as Variant, bundleFor(i)); // warm
  for (let r = 0; r < rounds; r++)
    for (let k = 0; k < VARIANTS.length; k++) {
      const i = (k + r) % VARIANTS.length;
      const v = VARIANTS[i] as Variant;
      push(out, v.name, await runOnce(v, bundleFor(i)));
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

/** ms from spawn to `hi` of `runc exec` into `id`, with the daemon's exec spawned `leadMs` before. */
async function execBesideDaemon(world: RuncWorld, id: string, leadMs: number): Promise<number> {
  const daemon = spawn('runc', runc('exec', id, ...world.daemonArgv), { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, leadMs));
  const ms = await timeToOutput('runc', runc('exec', id, 'echo', 'hi'));
  await new Promise((r) => setTimeout(r, 300)); // the daemon's boot ends
  execFileSync('runc', runc('exec', id, 'kill', '-9', '-1')); // all but init (and the daemon's runc exec with it)
  await new Promise((r) => daemon.once('close', r));
  return ms;
}

/** Every variant's bundle running `sleep 3600`, to exec into: name → container id. */
async function runningVariants(world: RuncWorld): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const [i, v] of VARIANTS.entries()) {
    if (v.runOnly) continue;
    const config = v.config(world.config(['sleep', '3600'], world.cgroupPath(`exec-v${i}`)));
    ids.set(v.name, await running(`exec ${v.name}`, config));
  }
  return ids;
}

async function execRows(world: RuncWorld): Promise<Samples> {
  const ids = await runningVariants(world);
  const ours = ids.get('ours') ?? '';
  const proc = join(dir, 'process.json');
  const config = world.config(['echo', 'hi'], world.cgroupPath('unused'));
  writeFileSync(proc, JSON.stringify(config['process']));
  const plain = (args: string[], output?: string) => () => timeToOutput('runc', args, output);
  const rows: [string, () => Promise<number>][] = [
    ['runc --version', plain(['--version'], 'version')],
    ...[...ids].map(([name, id]): [string, () => Promise<number>] => [
      `runc exec (${name})`,
      plain(runc('exec', id, 'echo', 'hi')),
    ]),
    ['runc exec --process (ours)', plain(runc('exec', '--process', proc, ours))],
    ['runc exec (ours), the daemon exec 0 ms before', () => execBesideDaemon(world, ours, 0)],
    ['runc exec (ours), the daemon exec 40 ms before', () => execBesideDaemon(world, ours, 40)],
  ];
  const out: Samples = new Map();
  try {
    for (const [, f] of rows) await f(); // warm
    for (let r = 0; r < rounds; r++)
      for (let k = 0; k < rows.length; k++) {
        const [name, f] = rows[(k + r) % rows.length] as [string, () => Promise<number>];
        push(out, name, await f());
      }
  } finally {
    for (const id of ids.values()) await removeRunning(id);
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
