// Benchmark: how long `agent-sandbox` takes from process start to ready, from the bundle
// (dist/agent-sandbox.js, ADR 0013) and from the TypeScript sources through tsx, in the same run.
//
//   npx tsx bench/startup/run.ts [--runs 7]
//
// Cases, each run `--runs` times, interleaved so background load hits both ways alike:
//   version   `node packages/cli/bin/agent-sandbox.js --version`: spawn → exit
//   start     `... start --data-dir <tmp dir> --port 0`, a restart: spawn →
//             the "serving ..." line; the line's own "ms after process start" is recorded too
//   npx       `npx --no-install agent-sandbox --version` adds npm's own start; measured for the
//             bundle way only, as what a user types. (`npm start` is `up --demo` now: it installs
//             packages and builds an image, which is setup, not the CLI's start, so it is no case.)
//   help, validate  `--help` and `validate -f <one Sandbox>` (spawn → exit) from this checkout's
//             bundle ("after") and from the bundle of a base revision built in a git worktree
//             ("before": default the commit before the lazy verbs, --base REV to choose), with the
//             ratio after ÷ before
// Before each bundle sample the bundle is rebuilt (untimed) if a source changed, since other
// sessions edit the tree meanwhile; the launcher runs with AGENT_SANDBOX_LAUNCH=bundle|source, so
// a sample can never quietly measure the other way.
// Prints a table and writes bench/results/startup-<timestamp>.json.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultBaseRevision, prepareBaseline } from './baseline.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'packages/cli/bin/agent-sandbox.js');
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '7' }, base: { type: 'string' } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be an integer ≥ 1');

type Way = 'bundle' | 'source' | 'before' | 'after';
interface Sample {
  case: string;
  way: Way;
  /** spawn → exit (version) or spawn → ready line (start). */
  wallMs: number;
  /** start only: what the server printed as "N ms after process start". */
  reportedMs?: number;
  /**
   * start only: user + system CPU of the process when it printed ready. The steadiest number on
   * a busy machine, since it leaves out the time spent waiting for a core.
   */
  cpuMs?: number;
}

/** User + system CPU ms a process has used, from /proc; undefined when unreadable. */
function cpuMsOf(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ = 100
  } catch {
    return undefined;
  }
}

/** Resolves once no process of the group `pgid` is left (polled; gives up after 30 s). */
async function groupGone(pgid: number | undefined): Promise<void> {
  if (pgid === undefined) return;
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return; // ESRCH: the group is empty
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`process group ${pgid} still alive 30 s after SIGTERM`);
}

/** Spawns a command; resolves with the time until `ready(line)` matched or the process exited. */
function timed(
  command: string,
  args: string[],
  way: Way,
  ready?: RegExp,
): Promise<{ wallMs: number; match?: RegExpMatchArray; cpuMs?: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, AGENT_SANDBOX_LAUNCH: way === 'source' ? 'source' : 'bundle' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: ready !== undefined, // a server's own group: stopped and awaited as one
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      kill();
      reject(new Error(`${command} ${args.join(' ')}: not ready within 60 s\n${stderr}`));
    }, 60_000);
    const kill = () => {
      if (child.pid !== undefined && child.exitCode === null) {
        try {
          process.kill(ready ? -child.pid : child.pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
    };
    if (ready) {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const match = ready.exec(line);
        if (!match) return;
        const wallMs = performance.now() - started;
        clearTimeout(timer);
        const cpuMs = cpuMsOf(child.pid);
        readyAt = { wallMs, match, ...(cpuMs === undefined ? {} : { cpuMs }) };
        kill();
      });
    } else child.stdout.resume();
    let readyAt: { wallMs: number; match: RegExpMatchArray; cpuMs?: number } | undefined;
    child.once('exit', (code) => {
      if (readyAt) {
        // A server's children may outlive it for a moment and still hold the data dir's lock:
        // the next restart of that dir must not start before the whole group is gone.
        const done = readyAt;
        void groupGone(child.pid).then(() => resolve(done), reject);
        return;
      }
      if (ready) {
        clearTimeout(timer);
        reject(new Error(`${command} ${args.join(' ')} exited ${code} before ready\n${stderr}`));
        return;
      }
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${command} ${args.join(' ')} exited ${code}\n${stderr}`));
      else resolve({ wallMs: performance.now() - started });
    });
  });
}

const READY = /^serving \S+ \(.*?(\d+) ms after process start\)/;

// One data dir per case and way, made by an untimed first start (which also generates the CA and
// serving certificate): the timed starts are restarts, as `start` is on every day but the first.
const dataRoot = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const warmed = new Set<string>();

async function sample(name: string, way: Way): Promise<Sample> {
  const dir = join(dataRoot, `${name.replace(/\W+/g, '-')}-${way}`);
  const data = ['--data-dir', dir, '--port', '0'];
  if (name === 'start' && !warmed.has(dir)) {
    await timed(process.execPath, [BIN, 'start', ...data], 'source', READY);
    warmed.add(dir);
  }
  switch (name) {
    case 'version':
      return { case: name, way, ...(await timed(process.execPath, [BIN, '--version'], way)) };
    case 'start': {
      const r = await timed(process.execPath, [BIN, 'start', ...data], way, READY);
      return {
        case: name,
        way,
        wallMs: r.wallMs,
        reportedMs: Number(r.match?.[1]),
        ...(r.cpuMs === undefined ? {} : { cpuMs: r.cpuMs }),
      };
    }
    case 'npx --version':
      return {
        case: name,
        way,
        ...(await timed('npx', ['--no-install', 'agent-sandbox', '--version'], way)),
      };
    case 'help':
    case 'validate': {
      // before: the base revision's bundle; after: this checkout's (both AGENT_SANDBOX_LAUNCH=bundle)
      const bin = way === 'before' ? baseline.bin : BIN;
      const args = name === 'help' ? ['--help'] : ['validate', '-f', MANIFEST];
      return { case: name, way, ...(await timed(process.execPath, [bin, ...args], way)) };
    }
    default:
      throw new Error(`unknown case ${name}`);
  }
}

function summary(xs: number[]): { median: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    median: Math.round(s[Math.floor(s.length / 2)] ?? NaN),
    min: Math.round(s[0] ?? NaN),
    max: Math.round(s.at(-1) ?? NaN),
  };
}

const BUNDLER = join(ROOT, 'packages/cli/bin/bundle.js');
let rebuilds = 0;

/** Rebuilds the bundle when the launcher would not use it (untimed). */
async function ensureFreshBundle(): Promise<void> {
  const fresh = await timed(process.execPath, [BIN, '--version'], 'bundle').then(
    () => true,
    () => false,
  );
  if (fresh) return;
  rebuilds++;
  await timed(process.execPath, [BUNDLER], 'source');
}

/** A bundle sample; if a source changed between the check and the run, rebuild and retry. */
async function bundleSample(name: string, way: 'bundle' | 'after'): Promise<Sample> {
  for (let attempt = 1; ; attempt++) {
    await ensureFreshBundle();
    try {
      return await sample(name, way);
    } catch (err: unknown) {
      if (attempt >= 3 || !String(err).includes('AGENT_SANDBOX_LAUNCH=bundle but')) throw err;
    }
  }
}

const baseRevision = values.base ?? defaultBaseRevision(ROOT);
console.error(`building the base bundle of ${baseRevision} in a git worktree (untimed)`);
const baseline = prepareBaseline(ROOT, baseRevision);
const MANIFEST = join(dataRoot, 'sandbox.yaml');
writeFileSync(
  MANIFEST,
  'apiVersion: agents.x-k8s.io/v1beta1\nkind: Sandbox\nmetadata:\n  name: ok\nspec:\n  podTemplate:\n    spec:\n      containers:\n        - name: main\n          image: busybox\n',
);

const loadBefore = loadavg();
const startedAt = new Date();
const plan: [string, Way][] = [
  ['version', 'bundle'],
  ['version', 'source'],
  ['start', 'bundle'],
  ['start', 'source'],
  ['npx --version', 'bundle'],
  ['help', 'before'],
  ['help', 'after'],
  ['validate', 'before'],
  ['validate', 'after'],
];
const samples: Sample[] = [];
try {
  for (let i = 0; i < runs; i++)
    for (const [name, way] of plan) {
      const s =
        way === 'bundle' || way === 'after'
          ? await bundleSample(name, way)
          : await sample(name, way);
      samples.push(s);
      console.error(
        `[${i + 1}/${runs}] ${name} (${way}): ${Math.round(s.wallMs)} ms${s.reportedMs !== undefined ? `, ready ${s.reportedMs} ms after process start` : ''}`,
      );
    }
} finally {
  // a failed sample must not leave the base worktree or the data dirs behind
  rmSync(dataRoot, { recursive: true, force: true });
  baseline.remove();
}
const loadAfter = loadavg();

const rows = plan.map(([name, way]) => {
  const mine = samples.filter((s) => s.case === name && s.way === way);
  const reported = mine.flatMap((s) => (s.reportedMs === undefined ? [] : [s.reportedMs]));
  const cpu = mine.flatMap((s) => (s.cpuMs === undefined ? [] : [s.cpuMs]));
  return {
    case: name,
    way,
    wallMs: summary(mine.map((s) => s.wallMs)),
    ...(reported.length > 0 ? { readyAfterProcessStartMs: summary(reported) } : {}),
    ...(cpu.length > 0 ? { cpuMsAtReady: summary(cpu) } : {}),
  };
});
const fmt = (s: { median: number; min: number; max: number } | undefined) =>
  s === undefined ? '—' : `${s.median} (${s.min}–${s.max})`;
const lines = [
  `startup benchmark: ${runs} runs per case; ${cpus().length} CPUs, Node ${process.version}, load average ${loadBefore[0]?.toFixed(1)} → ${loadAfter[0]?.toFixed(1)}; bundle rebuilt ${rebuilds}× (sources edited meanwhile)`,
  '',
  'ms: median (min–max)',
  '| case            | way    | spawn → exit or ready | ready after process start | CPU at ready |',
  '|-----------------|--------|----------------------:|--------------------------:|-------------:|',
  ...rows.map(
    (r) =>
      `| ${r.case.padEnd(15)} | ${r.way.padEnd(6)} | ${fmt(r.wallMs).padStart(21)} | ${fmt(r.readyAfterProcessStartMs).padStart(25)} | ${fmt(r.cpuMsAtReady).padStart(12)} |`,
  ),
];
for (const name of ['version', 'start']) {
  const b = rows.find((r) => r.case === name && r.way === 'bundle')?.wallMs.median;
  const s = rows.find((r) => r.case === name && r.way === 'source')?.wallMs.median;
  if (b && s) lines.push(`${name}: bundle ÷ source = ${(b / s).toFixed(2)}×`);
}
const ratios: Record<string, number> = {};
for (const name of ['help', 'validate']) {
  const before = rows.find((r) => r.case === name && r.way === 'before')?.wallMs.median;
  const after = rows.find((r) => r.case === name && r.way === 'after')?.wallMs.median;
  if (before && after) {
    ratios[name] = after / before;
    lines.push(
      `${name}: after ÷ before (${baseline.describe.slice(0, 60)}) = ${(after / before).toFixed(2)}×`,
    );
  }
}
console.log(lines.join('\n'));

const dir = fileURLToPath(new URL('../results/', import.meta.url));
mkdirSync(dir, { recursive: true });
const path = `${dir}startup-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`;
writeFileSync(
  path,
  JSON.stringify(
    {
      benchmark: 'startup',
      startedAt: startedAt.toISOString(),
      runs,
      rebuilds,
      base: { revision: baseRevision, commit: baseline.describe },
      afterOverBefore: ratios,
      machine: {
        cpus: cpus().length,
        node: process.version,
        loadavgBefore: loadBefore,
        loadavgAfter: loadAfter,
      },
      rows,
      samples,
    },
    null,
    2,
  ) + '\n',
);
console.log(`wrote ${path}`);
