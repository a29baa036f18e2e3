// Leader-election scenarios as functions (STYLE "E2E cases are functions"): the same cases run
// on the embedded API server (leader-election.int.test.ts) and on the real control plane
// (leader-election.cluster.test.ts).
import { CONFIG_MAPS, LEASES, type KubeClient } from '@agent-sandbox/kube';
import type { Lease } from '@agent-sandbox/kube-types';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { Controller } from './controller.ts';
import { Manager } from './manager.ts';

export interface LeaderElectionTarget {
  client: KubeClient;
  /** A namespace the cases may use (Leases and ConfigMaps are created in it). */
  namespace: string;
}

// Short timings keep the cases fast; client-go's ratios are kept (lease > deadline > 1.2·retry).
const LEASE_MS = 3_000;
const RENEW_DEADLINE_MS = 2_000;
const RETRY_MS = 300;

interface Candidate {
  manager: Manager;
  reconciles: number;
  /** manager.start()'s promise */
  running: Promise<void>;
  stop(): Promise<void>;
}

function candidate(
  t: LeaderElectionTarget,
  lease: string,
  identity: string,
  release = true,
): Candidate {
  const manager = new Manager({
    client: t.client,
    logger: pino({ level: 'silent' }),
    namespace: t.namespace,
    leaderElection: {
      namespace: t.namespace,
      name: lease,
      identity,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: RENEW_DEADLINE_MS,
      retryPeriodMs: RETRY_MS,
      releaseOnCancel: release,
    },
  });
  const ac = new AbortController();
  const c: Candidate = {
    manager,
    reconciles: 0,
    running: Promise.resolve(),
    stop: async () => {
      ac.abort();
      await c.running;
    },
  };
  manager.add(
    new Controller({
      name: 'le-probe',
      for: CONFIG_MAPS,
      reconciler: { reconcile: async () => void c.reconciles++ },
    }),
  );
  c.running = manager.start(ac.signal);
  c.running.catch(() => undefined); // observed by the cases that expect a rejection
  return c;
}

async function until(cond: () => boolean, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

async function holder(t: LeaderElectionTarget, lease: string): Promise<string | undefined> {
  const l = await t.client.get<Lease & { metadata: object }>(LEASES, t.namespace, lease);
  return l.spec?.holderIdentity;
}

export function leaderElectionCases(target: () => LeaderElectionTarget): void {
  it('two managers: exactly one leads and only it reconciles', async () => {
    const t = target();
    await t.client.create(CONFIG_MAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'le-probe', namespace: t.namespace },
    });
    const a = candidate(t, 'one-leader', 'a');
    const b = candidate(t, 'one-leader', 'b');
    try {
      await until(() => a.manager.isLeader || b.manager.isLeader, 10_000);
      await new Promise((r) => setTimeout(r, 3 * RETRY_MS));
      expect([a.manager.isLeader, b.manager.isLeader].filter(Boolean)).toHaveLength(1);
      const [leader, standby] = a.manager.isLeader ? [a, b] : [b, a];
      await until(() => leader.reconciles > 0, 10_000);
      expect(standby.reconciles).toBe(0);
      expect(await holder(t, 'one-leader')).toBe(leader === a ? 'a' : 'b');
      const lease = await t.client.get<Lease & { metadata: object }>(
        LEASES,
        t.namespace,
        'one-leader',
      );
      expect(lease.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(lease.spec?.leaseDurationSeconds).toBe(LEASE_MS / 1000);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('a leader that stops without releasing is replaced within the lease duration', async () => {
    const t = target();
    const a = candidate(t, 'crash', 'a', false);
    await until(() => a.manager.isLeader, 10_000);
    const b = candidate(t, 'crash', 'b');
    try {
      await new Promise((r) => setTimeout(r, 2 * RETRY_MS)); // b observes a's renewals
      expect(b.manager.isLeader).toBe(false);
      await a.stop(); // no release: the Lease still names a
      expect(await holder(t, 'crash')).toBe('a');
      const elapsed = await until(() => b.manager.isLeader, 2 * LEASE_MS);
      // b waits out leaseDuration from the last renewal it saw (≤ one retry before the stop),
      // plus at most one jittered retry period (≤ 2.2 × retryPeriod) and request latency.
      expect(elapsed).toBeGreaterThanOrEqual(LEASE_MS - 2 * RETRY_MS);
      expect(elapsed).toBeLessThanOrEqual(LEASE_MS + 5 * RETRY_MS);
      expect(await holder(t, 'crash')).toBe('b');
    } finally {
      await b.stop();
    }
  });

  it('release on shutdown lets the standby take over at once', async () => {
    const t = target();
    const a = candidate(t, 'release', 'a');
    await until(() => a.manager.isLeader, 10_000);
    const b = candidate(t, 'release', 'b');
    try {
      await new Promise((r) => setTimeout(r, 2 * RETRY_MS));
      await a.stop();
      expect(await holder(t, 'release')).toBe('');
      const elapsed = await until(() => b.manager.isLeader, LEASE_MS);
      expect(elapsed).toBeLessThan(LEASE_MS / 2);
    } finally {
      await b.stop();
    }
  });

  it('a leader whose Lease is taken stops its controllers and start() rejects', async () => {
    const t = target();
    const a = candidate(t, 'stolen', 'a');
    await until(() => a.manager.isLeader, 10_000);
    const lease = await t.client.get<Lease & { metadata: object }>(LEASES, t.namespace, 'stolen');
    await t.client.update(LEASES, {
      ...lease,
      spec: { ...lease.spec, holderIdentity: 'intruder', leaseDurationSeconds: 3600 },
    });
    const start = Date.now();
    await expect(a.running).rejects.toMatchObject({ code: 'LeaderElectionLost' });
    expect(Date.now() - start).toBeLessThanOrEqual(RENEW_DEADLINE_MS + 5 * RETRY_MS);
    expect(a.manager.isLeader).toBe(false);
  });
}
