import type { Pod, PodStatus } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { initialRecord, type ContainerRecord } from '../lifecycle/container-record.ts';
import type { PodNetworkStatus } from '../network/pod-network.ts';
import type { NodeLogger } from './node-context.ts';
import { PodStatusWriter } from './pod-status-writer.ts';

const POD: Pod = {
  metadata: { name: 'a', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'main', image: 'busybox:v1' }] },
};

/** A writer whose writes are recorded (the seam NodeAgent fills with the API server's status PUT). */
function writer(): {
  w: PodStatusWriter;
  writes: PodStatus[];
  record: ContainerRecord;
  net: { v?: PodNetworkStatus };
} {
  const writes: PodStatus[] = [];
  const record = initialRecord('main', 'busybox:v1', false);
  const net: { v?: PodNetworkStatus } = {};
  let pod = POD;
  const log: NodeLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const w = new PodStatusWriter(
    {
      nodeIP: '10.0.0.1',
      log,
      writeStatus: (p, status) => {
        writes.push(status);
        return Promise.resolve({ ...p, status });
      },
    },
    {
      pod: () => pod,
      records: () => ({ init: [], containers: [record] }),
      network: () => net.v,
      gone: () => false,
      written: (p) => (pod = p),
    },
    '2026-12-02T00:00:00Z',
    () => 'default/a',
  );
  return { w, writes, record, net };
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 10));

async function until(f: () => boolean): Promise<void> {
  const end = Date.now() + 10_000;
  while (!f()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('PodStatusWriter.publishWithin', () => {
  it('folds the early statuses into a write asked before their deadline', async () => {
    const { w, writes, record, net } = writer();
    w.publishWithin(60_000); // accepted
    await tick(); // the set-up takes a while: a write asked at once would go out here
    net.v = { netnsPath: '/run/netns/x', ips: ['10.1.0.2'] };
    w.publishWithin(60_000); // sandbox ready
    await tick();
    record.state = { kind: 'running', startedAt: '2026-12-02T00:00:01Z' };
    await w.publish(); // running
    expect(writes).toHaveLength(1);
    expect(writes[0]?.phase).toBe('Running');
    expect(writes[0]?.podIP).toBe('10.1.0.2');
    expect(writes[0]?.conditions?.find((c) => c.type === 'PodReadyToStartContainers')?.status).toBe(
      'True',
    );
  });

  it('writes an early status at its deadline when nothing else was asked', async () => {
    const { w, writes } = writer();
    w.publishWithin(20);
    await until(() => writes.length === 1);
    expect(writes[0]?.phase).toBe('Pending');
    expect(writes[0]?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ContainerCreating');
  });

  it('keeps the first deadline: a later early ask does not push the write back', async () => {
    const { w, writes } = writer();
    w.publishWithin(20);
    w.publishWithin(60_000);
    await until(() => writes.length === 1);
  });

  it('writes nothing after a terminal write cancelled a pending early one', async () => {
    const { w, writes, record } = writer();
    w.publishWithin(30);
    record.state = {
      kind: 'terminated',
      exitCode: 0,
      reason: 'Completed',
      startedAt: '2026-12-02T00:00:01Z',
      finishedAt: '2026-12-02T00:00:02Z',
      containerID: 'runc://x',
    };
    await w.publish(true);
    const after = writes.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(writes).toHaveLength(after);
  });
});
