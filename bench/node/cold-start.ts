// One cold start, watched rather than polled: the Pod (or the Sandbox that makes it) is created,
// a watch on the Pod's name sees it bound and Running, then an exec's first output stops the
// clock. The node agent's own step timings (NodeAgentOptions.onPhase) are kept per Pod uid, so
// the bench can show where the time went.
import { SANDBOXES } from '@agent-sandbox/controllers';
import { PODS, type KubeClient } from '@agent-sandbox/kube';
import type { KubeObject, Pod, PodSpec } from '@agent-sandbox/kube-types';
import type { PodPhase } from '@agent-sandbox/kubelet';
import type { ApiTrace } from './trace.ts';

export interface ColdRound {
  /** What was created: the Pod itself or a Sandbox whose controller creates it. */
  kind: 'Pod' | 'Sandbox';
  /** ms from the create call to each event the bench saw (watch or exec). */
  marks: Record<string, number>;
  /** The agent's steps for this Pod, ms relative to the create call. */
  phases: { phase: string; startMs: number; endMs: number }[];
}

type PodObject = Pod & KubeObject;

/** Collects the agent's phase events by Pod uid. */
export class PhaseLog {
  readonly #byUid = new Map<string, PodPhase[]>();
  readonly #uidOf = new Map<string, string>();
  readonly sink = (p: PodPhase): void => {
    this.#uidOf.set(p.pod, p.uid);
    const list = this.#byUid.get(p.uid) ?? [];
    list.push(p);
    this.#byUid.set(p.uid, list);
  };
  /** Resolves once Pod `uid` reported `phase`, or after `ms` (a step that may end late). */
  async until(uid: string, phase: string, ms: number): Promise<void> {
    const end = performance.now() + ms;
    while (performance.now() < end && !this.#byUid.get(uid)?.some((p) => p.phase === phase))
      await new Promise((r) => setTimeout(r, 10));
  }

  /**
   * A step known by the Pod's `namespace/name` only (the in-sandbox daemon's log lines), kept
   * under the uid the agent last reported for that Pod; dropped before the agent reported any.
   */
  notePod(pod: string, phase: string, startMs: number, endMs: number): void {
    const uid = this.#uidOf.get(pod);
    if (uid !== undefined) this.sink({ pod, uid, phase, startMs, endMs });
  }

  take(uid: string): PodPhase[] {
    const list = this.#byUid.get(uid) ?? [];
    this.#byUid.delete(uid);
    return list;
  }
}

export interface ColdStartInput {
  client: KubeClient;
  phases: PhaseLog;
  kind: 'Pod' | 'Sandbox';
  name: string;
  spec: PodSpec;
  /** Runs an exec into the Running Pod; resolves at its first output. */
  exec(name: string): Promise<unknown>;
  /** With `--trace`: the API requests and informer deliveries of the round become steps too. */
  trace?: ApiTrace | undefined;
  /** Whether the Pod gets the in-sandbox daemon (its registration is then waited for). @default true */
  daemon?: boolean;
}

/** Watches Pod `name` until it runs; records when it was first seen, bound and Running. */
async function watchUntilRunning(
  client: KubeClient,
  name: string,
  t0: number,
  marks: Record<string, number>,
  signal: AbortSignal,
): Promise<string> {
  const stream = client.watch<PodObject>(PODS, 'default', {
    fieldSelector: `metadata.name=${name}`,
    signal,
  });
  for await (const ev of stream) {
    if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') continue;
    const p = ev.object;
    const now = performance.now() - t0;
    marks['pod seen'] ??= now;
    if (p.spec?.nodeName) marks['bound'] ??= now;
    if (p.status?.containerStatuses) marks['first status'] ??= now;
    if (p.status?.phase === 'Running') {
      marks['Running'] = now;
      return p.metadata.uid ?? '';
    }
  }
  throw new Error(`watch of pod ${name} ended before it ran`);
}

export async function coldStart(i: ColdStartInput): Promise<ColdRound> {
  const { client, name } = i;
  const marks: Record<string, number> = {};
  const abort = new AbortController();
  const timeout = setTimeout(() => abort.abort(), 60_000);
  const t0 = performance.now();
  const running = watchUntilRunning(client, name, t0, marks, abort.signal);
  try {
    if (i.kind === 'Pod')
      await client.create(PODS, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default' },
        spec: i.spec,
      } as PodObject);
    else
      await client.create(SANDBOXES, {
        apiVersion: 'agents.x-k8s.io/v1beta1',
        kind: 'Sandbox',
        metadata: { name, namespace: 'default' },
        spec: { podTemplate: { spec: i.spec } },
      } as KubeObject);
    marks['created'] = performance.now() - t0;
    const uid = await running;
    await i.exec(name);
    marks['first exec output'] = performance.now() - t0;
    // The daemon registers on its own time, maybe after the first exec: its step is kept too.
    if (i.daemon ?? true) {
      await i.phases.until(uid, 'daemon-registered', 3000);
      // Its `serving` and `node-exec registered` lines (daemon-timeline.ts).
      await i.phases.until(uid, 'daemon listening', 3000);
      await i.phases.until(uid, 'daemon dialled', 3000);
    }
    const phases = i.phases.take(uid).map((p) => ({
      phase: p.phase,
      startMs: p.startMs - t0,
      endMs: p.endMs - t0,
    }));
    phases.push(...(i.trace?.take(t0, performance.now()) ?? []));
    return { kind: i.kind, marks, phases };
  } finally {
    clearTimeout(timeout);
    abort.abort();
    await running.catch(() => undefined);
  }
}
