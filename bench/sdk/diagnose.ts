// What a warm claim's POST waited for, per round of a `bench:sdk --diagnose` run: from up's CPU
// profile, what its event loop ran between create() and the POST's answer (self time per
// function and inclusive time per source module, the bundle's lines mapped back to the module
// esbuild marked them with), and from its audit log the writes served from 1.5 s before the
// create to the answer, and how old the pool status the round started on was (the bench waits for
// readyReplicas = pool size; Sandbox patches since then are members adopted meanwhile, which that
// status did not show). Rounds whose POST took over twice the median are summed apart.
//
//   npx tsx bench/sdk/diagnose.ts bench/results/sdk-<timestamp>.json
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Timeline } from './timeline.ts';

interface Round {
  startedAt: { epochMs: number; monoUs: number };
  timeline: Timeline;
}
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface AuditLine {
  verb: string;
  userAgent?: string;
  objectRef: { resource: string; subresource?: string; name?: string };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

const file = process.argv[2];
if (file === undefined || !file.endsWith('.json'))
  throw new Error('usage: npx tsx bench/sdk/diagnose.ts bench/results/sdk-<timestamp>.json');
const base = file.slice(0, -'.json'.length);
const run = JSON.parse(readFileSync(file, 'utf8')) as { upPid?: number; warmRounds?: Round[] };
const rounds = run.warmRounds ?? [];
if (rounds.length === 0 || run.upPid === undefined)
  throw new Error(`${file} has no warm rounds or up pid: run bench:sdk with --diagnose`);
const profDir = `${base}-prof`;
const profName = readdirSync(profDir).find((n) => n.includes(`.${run.upPid}.`));
if (profName === undefined) throw new Error(`no profile of up (pid ${run.upPid}) in ${profDir}`);
const profile = JSON.parse(readFileSync(join(profDir, profName), 'utf8')) as CpuProfile;
const audit = readFileSync(`${base}.audit.log`, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as AuditLine);

/** Source module of a bundle line: the last `// packages/…` marker esbuild put above it. */
const moduleOf = (() => {
  const markers = new Map<string, [number, string][]>();
  return (url: string, line: number): string => {
    if (!url.endsWith('.js') || !url.startsWith('file://')) return url || '(native)';
    let m = markers.get(url);
    if (m === undefined) {
      m = [];
      const lines = readFileSync(new URL(url), 'utf8').split('\n');
      lines.forEach((l, i) => {
        const hit = /^\/\/ ((?:packages|node_modules)\/\S+)$/.exec(l);
        if (hit?.[1] !== undefined) m?.push([i, hit[1]]);
      });
      markers.set(url, m);
    }
    let found = basename(url);
    for (const [at, name] of m) {
      if (at > line) break;
      found = name;
    }
    return found;
  };
})();

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const times: number[] = [];
let t = profile.startTime;
for (const d of profile.timeDeltas) times.push((t += d));

/** Self ms per function and inclusive ms per module in [fromUs, toUs] of up's CPU profile. */
function cpuIn(fromUs: number, toUs: number) {
  const self = new Map<string, number>();
  const modules = new Map<string, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const at = times[i] ?? 0;
    if (at < fromUs || at > toUs) continue;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const node = byId.get(profile.samples[i] ?? -1);
    if (node === undefined || node.callFrame.functionName === '(idle)') continue;
    busy += ms;
    const f = node.callFrame;
    const label = `${f.functionName || '(anonymous)'} ${moduleOf(f.url, f.lineNumber)}`;
    self.set(label, (self.get(label) ?? 0) + ms);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const cf = byId.get(id)?.callFrame;
      if (cf === undefined) continue;
      const mod = cf.url === '' ? cf.functionName : moduleOf(cf.url, cf.lineNumber);
      if (!seen.has(mod)) modules.set(mod, (modules.get(mod) ?? 0) + ms);
      seen.add(mod);
    }
  }
  return { busy, self, modules };
}

const top = (m: Map<string, number>, n: number): string =>
  [...m]
    .sort(([, a], [, b]) => b - a)
    .slice(0, n)
    .map(([k, v]) => `${k} ${v.toFixed(1)}`)
    .join('; ');
const postOf = (r: Round): number => r.timeline['claim POST answered'] ?? NaN;
const sorted = rounds.map(postOf).sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
const sums = { slow: new Map<string, number>(), fast: new Map<string, number>() };
const counts = { slow: 0, fast: 0 };

rounds.forEach((r, i) => {
  const post = postOf(r);
  const { busy, self, modules } = cpuIn(r.startedAt.monoUs, r.startedAt.monoUs + post * 1000);
  const kind = post > 2 * median ? 'slow' : 'fast';
  counts[kind]++;
  for (const [k, v] of modules) sums[kind].set(k, (sums[kind].get(k) ?? 0) + v);
  const writes = audit
    .filter((e) => {
      const d = Date.parse(e.stageTimestamp) - r.startedAt.epochMs;
      return d >= -1500 && d <= post;
    })
    .map((e) => {
      const d = Date.parse(e.requestReceivedTimestamp) - r.startedAt.epochMs;
      const took = Date.parse(e.stageTimestamp) - Date.parse(e.requestReceivedTimestamp);
      const sub = e.objectRef.subresource ? `/${e.objectRef.subresource}` : '';
      return `${d >= 0 ? '+' : ''}${d}(${took}) ${e.verb} ${e.objectRef.resource}${sub}`;
    });
  const t0 = r.startedAt.epochMs;
  const isPoolStatus = (e: AuditLine): boolean =>
    e.objectRef.resource === 'sandboxwarmpools' && e.objectRef.subresource === 'status';
  const before = audit.filter((e) => Date.parse(e.stageTimestamp) < t0);
  const poolAt = Math.max(...before.filter(isPoolStatus).map((e) => Date.parse(e.stageTimestamp)));
  const since = before.filter(
    (e) =>
      Date.parse(e.stageTimestamp) > poolAt &&
      e.verb === 'patch' &&
      e.objectRef.resource === 'sandboxes' &&
      e.objectRef.subresource === undefined,
  ).length;
  console.log(
    `#${i} ${kind} POST ${post.toFixed(1)} ms, up busy ${busy.toFixed(1)} ms, ` +
      `pool status of ${poolAt - t0} ms (${since} Sandbox patches since)\n` +
      `  self: ${top(self, 6)}\n  modules: ${top(modules, 8)}\n  writes (received ms(took)): ${writes.join(', ')}`,
  );
});
for (const kind of ['slow', 'fast'] as const) {
  const n = counts[kind];
  if (n === 0) continue;
  const avg = new Map([...sums[kind]].map(([k, v]) => [k, v / n]));
  console.log(
    `\n${kind} rounds (${n}, median POST ${median.toFixed(1)} ms), inclusive ms per round: ${top(avg, 15)}`,
  );
}
