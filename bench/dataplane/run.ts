// Benchmark: the data plane on loopback, in one run (issue 12 "Must show: bench/").
//
//   npx tsx bench/dataplane/run.ts [--requests 3000] [--concurrency 32] [--mb 100]
//
// sandboxd (the bundle) and the router (`agent-sandbox router`) run as their own processes; this
// process is only the client, with a keep-alive agent.
//   router overhead   GET / on the legacy port, direct vs through the router: p50/p99 of
//                     sequential requests and requests/s at --concurrency (target ≤ 1 ms p50)
//   exec round trip   POST /execute {"command":"true"} through router + daemon vs spawning
//                     `true` locally from this process (target ≤ 2× a local spawn); the same
//                     request straight to the daemon splits the cost between the two hops; the
//                     three are measured round-robin so a load swing cannot skew their ratio
//   file transfer     --mb MB upload (PUT /v1/files, chunked) and download through the daemon's
//                     REST port vs fs.copyFile of the same file
// Prints a table and writes bench/results/dataplane-<timestamp>.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleSandboxd } from '../../packages/sandboxd/src/bundle.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '32' },
    mb: { type: 'string', default: '100' },
  },
});
const N = Number(values.requests);
const C = Number(values.concurrency);
const MB = Number(values.mb);

async function startProcess(
  argv: string[],
  marker: string,
): Promise<{ child: ChildProcess; line: Record<string, string> }> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (b: Buffer) => (log += b.toString()));
  for (let i = 0; i < 400; i++) {
    const line = log.split('\n').find((l) => l.includes(marker));
    if (line) return { child, line: JSON.parse(line) as Record<string, string> };
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${argv.join(' ')} did not start: ${log}`);
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
function once(
  url: string,
  path: string,
  headers: Record<string, string>,
  method = 'GET',
  body?: string,
): Promise<number> {
  const u = new URL(url);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(performance.now() - t0)
          : reject(new Error(`HTTP ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function latency(fn: () => Promise<number>, n: number) {
  for (let i = 0; i < 200; i++) await fn(); // warm-up
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await fn());
  return { p50: pct(xs, 50), p99: pct(xs, 99) };
}

/** Round-robin over `fns`, so load swings hit each alike and their ratio holds. */
async function interleaved(fns: (() => Promise<number>)[], n: number) {
  for (let i = 0; i < 50; i++) for (const fn of fns) await fn(); // warm-up
  const xs = fns.map((): number[] => []);
  for (let i = 0; i < n; i++) for (const [j, fn] of fns.entries()) xs[j]!.push(await fn());
  return xs.map((v) => ({ p50: pct(v, 50), p99: pct(v, 99) }));
}

async function throughput(fn: () => Promise<number>, n: number, c: number) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next++ < n) await fn();
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

const base = await mkdtemp(join(tmpdir(), 'bench-dataplane-'));
const bundle = join(base, 'sandboxd.mjs');
await bundleSandboxd(bundle);
const daemon = await startProcess(
  [
    bundle,
    '--root-dir',
    join(base, 'root'),
    '--listen-host',
    '127.0.0.1',
    '--rest-port',
    '0',
    '--grpc-port',
    '-1',
    '--legacy-port',
    '0',
  ],
  '"serving"',
);
const router = await startProcess(
  [
    join(ROOT, 'packages/cli/bin/agent-sandbox.js'),
    'router',
    '--http-bind-address',
    '127.0.0.1:0',
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '0',
    '--allow-loopback-pod-ip',
    '--access-log=false',
  ],
  '"serving"',
);
const legacy = daemon.line.legacy!;
const rest = daemon.line.rest!;
const proxy = router.line.proxy!;
const route = {
  'x-sandbox-id': 'bench',
  'x-sandbox-pod-ip': '127.0.0.1',
  'x-sandbox-port': new URL(legacy).port,
};

try {
  const directLat = await latency(() => once(legacy, '/', {}), N);
  const routedLat = await latency(() => once(proxy, '/', route), N);
  const directRps = await throughput(() => once(legacy, '/', {}), N, C);
  const routedRps = await throughput(() => once(proxy, '/', route), N, C);

  const execBody = JSON.stringify({ command: 'true' });
  const json = { 'content-type': 'application/json' };
  const execLats = await interleaved(
    [
      () => once(proxy, '/execute', { ...route, ...json }, 'POST', execBody),
      () => once(legacy, '/execute', json, 'POST', execBody),
      async () => {
        const t0 = performance.now();
        await new Promise<void>((resolve) => spawn('true').once('close', () => resolve()));
        return performance.now() - t0;
      },
    ],
    300,
  );
  const [execLat, execDirectLat, spawnLat] = [execLats[0]!, execLats[1]!, execLats[2]!];

  const src = join(base, 'src.bin');
  await writeFile(src, Buffer.alloc(MB * 1024 * 1024, 7));
  const t0 = performance.now();
  await copyFile(src, join(base, 'copy.bin'));
  const copyMs = performance.now() - t0;
  const u = new URL(rest);
  const t1 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: u.port, method: 'PUT', path: '/v1/files/big.bin', agent },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 204 ? resolve() : reject(new Error(`PUT ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    createReadStream(src).pipe(req);
  });
  const uploadMs = performance.now() - t1;
  const t2 = performance.now();
  await new Promise<void>((resolve, reject) => {
    request({ host: u.hostname, port: u.port, path: '/v1/files/big.bin', agent }, (res) => {
      pipeline(res, createWriteStream(join(base, 'down.bin'))).then(resolve, reject);
    })
      .on('error', reject)
      .end();
  });
  const downloadMs = performance.now() - t2;

  const result = {
    machine: { cpus: cpus().length, load: loadavg(), node: process.version },
    requests: N,
    concurrency: C,
    router: {
      directP50Ms: directLat.p50,
      directP99Ms: directLat.p99,
      routedP50Ms: routedLat.p50,
      routedP99Ms: routedLat.p99,
      overheadP50Ms: routedLat.p50 - directLat.p50,
      overheadP99Ms: routedLat.p99 - directLat.p99,
      directRps,
      routedRps,
    },
    exec: {
      routedP50Ms: execLat.p50,
      routedP99Ms: execLat.p99,
      directP50Ms: execDirectLat.p50,
      directP99Ms: execDirectLat.p99,
      localSpawnP50Ms: spawnLat.p50,
      localSpawnP99Ms: spawnLat.p99,
      ratioP50: execLat.p50 / spawnLat.p50,
      daemonRatioP50: execDirectLat.p50 / spawnLat.p50,
    },
    files: {
      mb: MB,
      uploadMs,
      downloadMs,
      localCopyMs: copyMs,
      uploadMBps: MB / (uploadMs / 1000),
      downloadMBps: MB / (downloadMs / 1000),
    },
  };
  const f = (n: number) => n.toFixed(3);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (${cpus().length} cpus)`,
  );
  console.log(
    `router  p50 direct ${f(directLat.p50)} ms  routed ${f(routedLat.p50)} ms  overhead ${f(result.router.overheadP50Ms)} ms (target ≤ 1)`,
  );
  console.log(
    `router  p99 direct ${f(directLat.p99)} ms  routed ${f(routedLat.p99)} ms  overhead ${f(result.router.overheadP99Ms)} ms`,
  );
  console.log(
    `router  req/s (c=${C}) direct ${directRps.toFixed(0)}  routed ${routedRps.toFixed(0)}`,
  );
  console.log(
    `exec    p50 router+daemon ${f(execLat.p50)} ms  local spawn ${f(spawnLat.p50)} ms  ratio ${result.exec.ratioP50.toFixed(2)}× (target ≤ 2); daemon alone ${f(execDirectLat.p50)} ms (${result.exec.daemonRatioP50.toFixed(2)}×)`,
  );
  console.log(
    `files   ${MB} MB upload ${uploadMs.toFixed(0)} ms  download ${downloadMs.toFixed(0)} ms  local copy ${copyMs.toFixed(0)} ms`,
  );
  await mkdir(join(ROOT, 'bench/results'), { recursive: true });
  const out = join(
    ROOT,
    `bench/results/dataplane-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  );
  await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(out);
} finally {
  daemon.child.kill('SIGTERM');
  router.child.kill('SIGTERM');
  agent.destroy();
  await rm(base, { recursive: true, force: true });
}
