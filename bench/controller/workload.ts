// The load: N Sandboxes created (and deleted) at a fixed number of requests in flight, and a
// namespace watch that notes when each Sandbox first reports Ready=True.
import { performance } from 'node:perf_hooks';
import type { Client } from '../apiserver/client.ts';
import { summarize, type LatencySummary } from '../apiserver/stats.ts';
import type { Watcher, WatchHandle } from './watch.ts';

const SANDBOXES = '/apis/agents.x-k8s.io/v1beta1';

export const sandboxesPath = (ns: string): string => `${SANDBOXES}/namespaces/${ns}/sandboxes`;

export const sandboxName = (i: number): string => `sb-${String(i).padStart(5, '0')}`;

/** The smallest Sandbox that gets a Pod: kwok runs it, no grace period so deletes are quick. */
export function sandboxObject(name: string): object {
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: { name },
    spec: {
      podTemplate: {
        spec: {
          terminationGracePeriodSeconds: 0,
          containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
        },
      },
    },
  };
}

export interface RequestRun {
  ops: number;
  errors: number;
  firstError?: string;
  seconds: number;
  /** ops ÷ seconds (errors excluded) */
  perSecond: number;
  latencyMs: LatencySummary | undefined;
  /** ms since the run's time origin when each request was sent, by index (undefined: failed). */
  sentAt: (number | undefined)[];
}

/**
 * Runs `request(i)` for i in [0, n) with `concurrency` in flight; a request fails when it answers
 * with a status other than `ok` (or throws).
 */
export async function runRequests(
  n: number,
  concurrency: number,
  ok: readonly number[],
  request: (i: number) => Promise<{ status: number; body: unknown }>,
): Promise<RequestRun> {
  const latencies: number[] = [];
  const sentAt: (number | undefined)[] = new Array<number | undefined>(n);
  let next = 0;
  let errors = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      const t0 = performance.now();
      try {
        const res = await request(i);
        if (!ok.includes(res.status)) throw new Error(`HTTP ${res.status}: ${brief(res.body)}`);
        latencies.push(performance.now() - t0);
        sentAt[i] = t0;
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  const seconds = (performance.now() - start) / 1000;
  const done = n - errors;
  return {
    ops: done,
    errors,
    ...(firstError !== undefined ? { firstError } : {}),
    seconds: round(seconds, 3),
    perSecond: round(done / seconds, 1),
    latencyMs: summarize(latencies),
    sentAt,
  };
}

function brief(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

interface Watched {
  metadata?: { name?: string; resourceVersion?: string };
  spec?: { nodeName?: string };
  status?: { conditions?: { type?: string; status?: string }[] };
}

const readyCondition = (o: Watched): boolean =>
  (o.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Sandbox stages: Ready. */
export const SANDBOX_STAGES = { ready: readyCondition };
/** Pod stages: created (first seen), bound by the scheduler, Ready (kwok's status). */
export const POD_STAGES = {
  created: (): boolean => true,
  bound: (o: Watched): boolean => Boolean(o.spec?.nodeName),
  ready: readyCondition,
};

/**
 * Watches one kind in a namespace and notes when each object first reached each stage
 * (performance.now() ms of the event's arrival). A closed watch is reopened from the last
 * resourceVersion seen; only 410 Gone (or a failed reopen) costs a list, paginated.
 */
export class StageTracker<S extends string> {
  readonly at: Record<S, Map<string, number>>;
  /** Watch events by type (for Sandboxes: every write to one shows up as one). */
  readonly eventTypes: Record<string, number> = {};
  /** Times the watch was reopened, and how many of those needed a list. */
  reopens = 0;
  relists = 0;
  #handle: WatchHandle | undefined;
  #rv = '0';
  #stopped = false;

  constructor(
    private readonly client: Client,
    private readonly watcher: Watcher,
    private readonly path: string,
    private readonly stages: Record<S, (o: Watched) => boolean>,
    private readonly log: (msg: string) => void,
  ) {
    this.at = Object.fromEntries(
      Object.keys(stages).map((k) => [k, new Map<string, number>()]),
    ) as Record<S, Map<string, number>>;
  }

  get events(): number {
    return Object.values(this.eventTypes).reduce((a, b) => a + b, 0);
  }

  /** Lists, then watches from the list's resourceVersion. */
  async start(): Promise<void> {
    this.#rv = await this.#list();
    this.#watch();
  }

  #watch(): void {
    let gone = false;
    this.#handle = this.watcher.watch(
      `${this.path}?watch=1&allowWatchBookmarks=true&timeoutSeconds=3600&resourceVersion=${this.#rv}`,
      (event, at) => {
        this.eventTypes[event.type] = (this.eventTypes[event.type] ?? 0) + 1;
        const obj = event.object as Watched & { code?: number };
        if (event.type === 'ERROR') {
          gone = obj.code === 410;
          return;
        }
        this.#rv = obj.metadata?.resourceVersion ?? this.#rv;
        if (event.type === 'ADDED' || event.type === 'MODIFIED') this.#observe(obj, at);
      },
      (err) => {
        if (this.#stopped) return;
        this.reopens++;
        this.log(
          `watch ${this.path} ended (${err?.message ?? (gone ? '410 Gone' : 'closed')}); reopening`,
        );
        void this.#reopen(gone || err !== undefined);
      },
    );
  }

  async #reopen(relist: boolean): Promise<void> {
    for (let attempt = 0; !this.#stopped; attempt++) {
      try {
        if (relist) {
          this.relists++;
          this.#rv = await this.#list();
        }
        this.#watch();
        return;
      } catch (err) {
        this.log(`relist ${this.path} failed (${String(err)}); retrying`);
        await new Promise((r) => setTimeout(r, Math.min(10_000, 500 * 2 ** attempt)));
        relist = true;
      }
    }
  }

  /** Lists in pages of 500 (each page well inside the request timeout); returns the list's RV. */
  async #list(): Promise<string> {
    let cont = '';
    let rv: string | undefined;
    do {
      const q = `limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`;
      const res = await this.client.request('GET', `${this.path}?${q}`);
      if (res.status !== 200) throw new Error(`list ${this.path}: HTTP ${res.status}`);
      const list = res.body as {
        metadata?: { resourceVersion?: string; continue?: string };
        items?: Watched[];
      };
      const at = performance.now();
      for (const item of list.items ?? []) this.#observe(item, at);
      rv ??= list.metadata?.resourceVersion;
      cont = list.metadata?.continue ?? '';
    } while (cont);
    return rv ?? '0';
  }

  #observe(obj: Watched, at: number): void {
    const name = obj.metadata?.name;
    if (name === undefined) return;
    for (const stage of Object.keys(this.stages) as S[]) {
      const seen = this.at[stage];
      if (!seen.has(name) && this.stages[stage](obj)) seen.set(name, at);
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#handle?.close();
  }
}

/**
 * Latency from one stamp to the next, per object, for each consecutive pair of stages given as
 * [label, map]; the first map is the start (e.g. create sent).
 */
export function stageLatencies(
  steps: readonly [string, ReadonlyMap<string, number>][],
): Record<string, LatencySummary | undefined> {
  const out: Record<string, LatencySummary | undefined> = {};
  for (let i = 1; i < steps.length; i++) {
    const [label, to] = steps[i]!;
    const from = steps[i - 1]![1];
    const xs: number[] = [];
    for (const [name, t] of to) {
      const f = from.get(name);
      if (f !== undefined) xs.push(t - f);
    }
    out[label] = summarize(xs);
  }
  return out;
}

/** Polls until the namespace holds no Sandboxes, or throws after `timeoutMs`. */
export async function waitEmpty(client: Client, ns: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.request('GET', `${sandboxesPath(ns)}?limit=1`);
    const items = (res.body as { items?: unknown[] }).items ?? [];
    if (res.status === 200 && items.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${ns}: Sandboxes still present after deletion`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
