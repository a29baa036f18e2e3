// The workloads, identical for every target: create and update at several concurrencies, list
// one page and in pages of 500, and watch fan-out. Every loop is bounded by a count and by
// `phaseSeconds`; a phase that runs out of time reports what it completed (ops < planned).
import { performance } from 'node:perf_hooks';
import type { Client, WatchEvent, WatchStream } from './client.ts';
import { summarize, type Result } from './stats.ts';

export interface Sizes {
  /** Objects created (then updated) per kind and concurrency level. */
  n: number;
  concurrency: number[];
  /** Watcher counts for the fan-out workload. */
  watchers: number[];
  /** Writes (ConfigMap creates) per fan-out run. */
  writes: number;
  /** In-flight writes during fan-out. */
  fanoutConcurrency: number;
  /** Traversals per list workload. */
  listRepeats: number;
  pageSize: number;
  /** Objects per kind created (at concurrency 8) before measuring, in a namespace of its own. */
  warmup: number;
  /** Upper bound on one workload on one target (one round). */
  phaseSeconds: number;
  /**
   * Rounds of each create and update workload, interleaved across targets; the table shows the
   * median round's throughput. Each round creates `n` new objects.
   */
  rounds: number;
}

export const QUICK: Sizes = {
  n: 100,
  concurrency: [1, 8],
  watchers: [1, 10],
  writes: 50,
  fanoutConcurrency: 4,
  listRepeats: 3,
  pageSize: 500,
  warmup: 30,
  phaseSeconds: 10,
  rounds: 1,
};

export const DEFAULT: Sizes = {
  n: 250,
  concurrency: [1, 8, 32],
  watchers: [1, 10, 50],
  writes: 200,
  fanoutConcurrency: 4,
  listRepeats: 10,
  pageSize: 500,
  warmup: 100,
  phaseSeconds: 40,
  rounds: 3,
};

export type Kind = 'configmaps' | 'sandboxes';
export const KINDS: Kind[] = ['configmaps', 'sandboxes'];

type Obj = Record<string, unknown> & {
  metadata: { name: string; resourceVersion?: string; annotations?: Record<string, string> };
};

function collection(kind: Kind, ns: string): string {
  return kind === 'configmaps'
    ? `/api/v1/namespaces/${ns}/configmaps`
    : `/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxes`;
}

function sample(kind: Kind, name: string, i: number): Obj {
  const metadata = { name, labels: { 'bench.agent-sandbox.dev/run': 'apiserver' } };
  if (kind === 'configmaps')
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata,
      data: { index: String(i), payload: 'x'.repeat(256) },
    };
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata,
    spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } } },
  };
}

/** The update: an annotation on both kinds, and new data on ConfigMaps. */
function mutate(kind: Kind, obj: Obj): Obj {
  const next = structuredClone(obj);
  next.metadata.annotations = { ...next.metadata.annotations, 'bench.agent-sandbox.dev/step': '2' };
  if (kind === 'configmaps')
    next['data'] = { ...(next['data'] as object), payload: 'y'.repeat(256) };
  return next;
}

function describeFailure(status: number, body: unknown): string {
  const message =
    typeof body === 'object' && body !== null && 'message' in body
      ? String((body as { message: unknown }).message)
      : String(body).slice(0, 200);
  return `HTTP ${status}: ${message}`;
}

interface PoolOutcome {
  latencies: number[];
  done: number;
  errors: number;
  firstError?: string;
  seconds: number;
}

/**
 * Runs op(0..n-1) with at most `c` in flight, starting no new op after `deadline`. An op returns
 * an error message or undefined.
 */
async function pool(
  n: number,
  c: number,
  seconds: number,
  op: (i: number) => Promise<string | undefined>,
): Promise<PoolOutcome> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (next < n && performance.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      const error = await op(i).catch((err: unknown) => String(err));
      if (error === undefined) latencies.push(performance.now() - t0);
      else {
        errors++;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(c, n) }, worker));
  const outcome: PoolOutcome = {
    latencies,
    done: latencies.length,
    errors,
    seconds: (performance.now() - start) / 1000,
  };
  if (firstError !== undefined) outcome.firstError = firstError;
  return outcome;
}

function result(
  workload: string,
  target: string,
  planned: number,
  unit: string,
  o: PoolOutcome,
): Result {
  const r: Result = {
    workload,
    target,
    ops: o.done,
    planned,
    errors: o.errors,
    seconds: Math.round(o.seconds * 1000) / 1000,
    throughput: o.seconds > 0 ? Math.round((o.done / o.seconds) * 10) / 10 : 0,
    unit,
    latencyMs: summarize(o.latencies),
    samplesMs: o.latencies,
  };
  if (o.firstError !== undefined) r.firstError = o.firstError;
  return r;
}

export async function createNamespace(client: Client, name: string): Promise<void> {
  const res = await client.request('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'bench.agent-sandbox.dev/run': 'apiserver' } },
  });
  if (res.status !== 201)
    throw new Error(
      `${client.name}: create namespace ${name}: ${describeFailure(res.status, res.body)}`,
    );
}

export async function deleteNamespace(client: Client, name: string): Promise<void> {
  await client.request('DELETE', `/api/v1/namespaces/${name}`).catch(() => undefined);
}

/** Names of the objects one create round makes, e.g. cm-r0-c8-00042. */
function prefix(kind: Kind, round: number, c: number): string {
  return `${kind === 'configmaps' ? 'cm' : 'sb'}-r${round}-c${c}-`;
}

/** Per-target state the create, update and list workloads share. */
export interface Dataset {
  client: Client;
  namespace: string;
  /** Objects as the server returned them, per kind, in creation order. */
  objects: Record<Kind, Obj[]>;
}

export async function createWorkload(
  d: Dataset,
  kind: Kind,
  c: number,
  sizes: Sizes,
  round = 0,
): Promise<Result> {
  const path = collection(kind, d.namespace);
  const created: Obj[] = [];
  const outcome = await pool(sizes.n, c, sizes.phaseSeconds, async (i) => {
    const name = `${prefix(kind, round, c)}${String(i).padStart(5, '0')}`;
    const res = await d.client.request('POST', path, sample(kind, name, i));
    if (res.status !== 201) return describeFailure(res.status, res.body);
    created.push(res.body as Obj);
    return undefined;
  });
  d.objects[kind].push(...created);
  return result(`create ${kind} c=${c}`, d.client.name, sizes.n, 'ops/s', outcome);
}

export async function updateWorkload(
  d: Dataset,
  kind: Kind,
  c: number,
  sizes: Sizes,
  round = 0,
): Promise<Result> {
  const path = collection(kind, d.namespace);
  const start = prefix(kind, round, c);
  const targets = d.objects[kind].filter((o) => o.metadata.name.startsWith(start));
  const outcome = await pool(targets.length, c, sizes.phaseSeconds, async (i) => {
    const obj = targets[i]!;
    // PUT with the resourceVersion the create returned: optimistic concurrency, as controllers do.
    const res = await d.client.request('PUT', `${path}/${obj.metadata.name}`, mutate(kind, obj));
    if (res.status !== 200) return describeFailure(res.status, res.body);
    return undefined;
  });
  return result(`update ${kind} c=${c}`, d.client.name, targets.length, 'ops/s', outcome);
}

export async function listWorkload(
  d: Dataset,
  kind: Kind,
  paged: boolean,
  sizes: Sizes,
): Promise<Result> {
  const path = collection(kind, d.namespace);
  const expected = d.objects[kind].length;
  const outcome = await pool(sizes.listRepeats, 1, sizes.phaseSeconds, async () => {
    let items = 0;
    let token: string | undefined;
    do {
      const query = paged
        ? `?limit=${sizes.pageSize}${token ? `&continue=${encodeURIComponent(token)}` : ''}`
        : '';
      const res = await d.client.request('GET', path + query);
      if (res.status !== 200) return describeFailure(res.status, res.body);
      const body = res.body as { items: unknown[]; metadata: { continue?: string } };
      items += body.items.length;
      token = body.metadata.continue || undefined;
    } while (token);
    // kube-controller-manager adds a ConfigMap (kube-root-ca.crt) to every namespace: at least.
    return items >= expected ? undefined : `listed ${items} ${kind}, expected ${expected}`;
  });
  const how = paged ? `limit=${sizes.pageSize}` : 'one page';
  return result(
    `list ${expected} ${kind} (${how})`,
    d.client.name,
    sizes.listRepeats,
    'lists/s',
    outcome,
  );
}

/**
 * W watchers on a fresh namespace, then `writes` ConfigMap creates. Latency per delivered event:
 * from the write's response (ack) and from the moment the write was sent, to the event's arrival
 * at each watcher. Throughput: delivered events / (first write sent → last event received).
 */
export async function fanoutWorkload(
  client: Client,
  namespace: string,
  watchers: number,
  sizes: Sizes,
): Promise<Result> {
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  const list = await client.request('GET', `${path}?limit=1`);
  if (list.status !== 200) throw new Error(`${client.name}: list ${path}: ${list.status}`);
  const rv = (list.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  const planned = watchers * sizes.writes;
  const arrivals: { name: string; at: number }[] = [];
  let allArrived: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (allArrived = resolve));
  const onEvent = (event: WatchEvent, at: number): void => {
    const name = event.object.metadata?.name;
    if (event.type !== 'ADDED' || !name?.startsWith('fan-')) return;
    arrivals.push({ name, at });
    if (arrivals.length >= planned) allArrived();
  };
  const streams: WatchStream[] = [];
  for (let i = 0; i < watchers; i++)
    streams.push(
      client.watch(`${path}?watch=1&resourceVersion=${rv}&allowWatchBookmarks=false`, onEvent),
    );
  try {
    await Promise.all(streams.map((s) => s.ready));

    const writes = new Map<string, { sent: number; ack: number }>();
    const firstSent = performance.now();
    const writeOutcome = await pool(
      sizes.writes,
      sizes.fanoutConcurrency,
      sizes.phaseSeconds,
      async (i) => {
        const name = `fan-${String(i).padStart(5, '0')}`;
        const sent = performance.now();
        const res = await client.request('POST', path, sample('configmaps', name, i));
        if (res.status !== 201) return describeFailure(res.status, res.body);
        writes.set(name, { sent, ack: performance.now() });
        return undefined;
      },
    );
    // Wait for the stragglers, bounded by what is left of the phase (at least 5 s).
    const waitMs = Math.max(5000, sizes.phaseSeconds * 1000 - (performance.now() - firstSent));
    if (arrivals.length < watchers * writes.size) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        arrived,
        new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
      ]);
      clearTimeout(timer);
    }

    const fromAck: number[] = [];
    const fromSend: number[] = [];
    let last = firstSent;
    for (const a of arrivals) {
      const w = writes.get(a.name);
      if (!w) continue;
      fromAck.push(a.at - w.ack);
      fromSend.push(a.at - w.sent);
      if (a.at > last) last = a.at;
    }
    const seconds = (last - firstSent) / 1000;
    const missing = watchers * writes.size - fromAck.length;
    const r: Result = {
      workload: `watch fan-out w=${watchers} (${sizes.writes} writes)`,
      target: client.name,
      ops: fromAck.length,
      planned,
      errors: writeOutcome.errors + Math.max(0, missing),
      seconds: Math.round(seconds * 1000) / 1000,
      throughput: seconds > 0 ? Math.round((fromAck.length / seconds) * 10) / 10 : 0,
      unit: 'events/s',
      latencyMs: summarize(fromAck),
      extraLatencyMs: { fromSend: summarize(fromSend), write: summarize(writeOutcome.latencies) },
    };
    const firstError =
      writeOutcome.firstError ?? (missing > 0 ? `${missing} events not delivered` : undefined);
    if (firstError !== undefined) r.firstError = firstError;
    return r;
  } finally {
    for (const s of streams) s.close();
  }
}
