// Event correlation (client-go's EventCorrelator, as the upstream recorder does it): repeats of an
// identical Sandbox event bump one Event's count and lastTimestamp; a different event, a repeat
// after the window, a forgotten (LRU-evicted) key or an Event the server dropped start a new one.
import { EVENTS, KubeClient, NAMESPACES, kubeConfigFromFile } from '@agent-sandbox/kube';
import type { Event, KubeObject } from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTarget, type TargetHandle, type TestTarget } from '../../testing/target.ts';
import { createNamespace, newSandbox } from '../../testing/harness.ts';
import { SandboxEventRecorder, type SandboxEvent } from '../events.ts';

type EventObject = Event & KubeObject;

const MULTIPLE_PODS: SandboxEvent = {
  type: 'Warning',
  reason: 'MultiplePods',
  action: 'Reconciling',
  note: 'found 2 Pods owned by Sandbox',
};
const T0 = Date.parse('2026-11-30T10:00:00Z');
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);

export function defineEventCorrelationScenarios(target: TestTarget): void {
  describe(`Sandbox event correlation (${target})`, () => {
    let handle: TargetHandle;
    let client: KubeClient;
    let ns: string;
    beforeAll(async () => {
      handle = await connectTarget(target);
      client = new KubeClient({ config: kubeConfigFromFile(handle.kubeconfigPath) });
      ns = `sbx-ev-${randomBytes(4).toString('hex')}`;
      await createNamespace(client, ns);
    });
    afterAll(async () => {
      await client?.delete(NAMESPACES, undefined, ns).catch(() => undefined);
      await client?.close();
      await handle?.close();
    });

    /** The Events about Sandbox `name`, by firstTimestamp (creationTimestamp has whole seconds). */
    async function eventsOf(name: string): Promise<EventObject[]> {
      const list = await client.list<EventObject>(EVENTS, ns);
      return list.items
        .filter((e) => e.involvedObject.name === name)
        .sort((a, b) => (a.firstTimestamp ?? '').localeCompare(b.firstTimestamp ?? ''));
    }

    /** A Sandbox with a uid, as the reconciler sees it (the Event only references it). */
    const sandboxNamed = (name: string) => {
      const s = newSandbox(ns, name);
      s.metadata.uid = randomBytes(16).toString('hex');
      return s;
    };

    it('folds identical repeats into one Event with a growing count and lastTimestamp', async () => {
      const recorder = new SandboxEventRecorder(client);
      const s = sandboxNamed('repeats');
      for (const second of [0, 5, 9]) {
        expect(await recorder.record(s, MULTIPLE_PODS, at(second))).toBeUndefined();
      }
      const events = await eventsOf('repeats');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        count: 3,
        firstTimestamp: '2026-11-30T10:00:00Z',
        lastTimestamp: '2026-11-30T10:00:09Z',
        reason: 'MultiplePods',
        message: MULTIPLE_PODS.note,
        type: 'Warning',
      });
    });

    it('folds repeats recorded at the same time into one Event', async () => {
      const recorder = new SandboxEventRecorder(client);
      const s = sandboxNamed('together');
      const errors = await Promise.all(
        [0, 1, 2, 3, 4].map((second) => recorder.record(s, MULTIPLE_PODS, at(second))),
      );
      expect(errors).toEqual([undefined, undefined, undefined, undefined, undefined]);
      const events = await eventsOf('together');
      expect(events.map((e) => [e.count, e.lastTimestamp])).toEqual([[5, '2026-11-30T10:00:04Z']]);
    });

    it('keeps a different message, reason or type, or another object, apart', async () => {
      const recorder = new SandboxEventRecorder(client);
      const s = sandboxNamed('distinct');
      const variants: SandboxEvent[] = [
        MULTIPLE_PODS,
        { ...MULTIPLE_PODS, note: 'found 3 Pods owned by Sandbox' },
        { ...MULTIPLE_PODS, reason: 'Other' },
        { ...MULTIPLE_PODS, type: 'Normal' },
      ];
      for (const [i, event] of variants.entries()) await recorder.record(s, event, at(i));
      await recorder.record(s, MULTIPLE_PODS, at(10));
      // Same name, new uid: a recreated Sandbox is another object.
      await recorder.record(sandboxNamed('distinct'), MULTIPLE_PODS, at(11));
      const counts = (await eventsOf('distinct')).map(
        (e) => `${e.type}/${e.reason}/${e.message}=${e.count}`,
      );
      expect(counts.sort()).toEqual(
        [
          `Normal/MultiplePods/${MULTIPLE_PODS.note}=1`,
          `Warning/MultiplePods/${MULTIPLE_PODS.note}=1`,
          `Warning/MultiplePods/${MULTIPLE_PODS.note}=2`,
          'Warning/MultiplePods/found 3 Pods owned by Sandbox=1',
          `Warning/Other/${MULTIPLE_PODS.note}=1`,
        ].sort(),
      );
    });

    it('starts a new Event after the window, measured from the previous repeat', async () => {
      const recorder = new SandboxEventRecorder(client, { windowMs: 60_000 });
      const s = sandboxNamed('window');
      await recorder.record(s, MULTIPLE_PODS, at(0));
      await recorder.record(s, MULTIPLE_PODS, at(50));
      await recorder.record(s, MULTIPLE_PODS, at(100)); // 50 s after the previous: same Event
      await recorder.record(s, MULTIPLE_PODS, at(161)); // 61 s: a new Event
      const events = await eventsOf('window');
      expect(events.map((e) => [e.count, e.firstTimestamp, e.lastTimestamp])).toEqual([
        [3, '2026-11-30T10:00:00Z', '2026-11-30T10:01:40Z'],
        [1, '2026-11-30T10:02:41Z', '2026-11-30T10:02:41Z'],
      ]);
    });

    it('remembers at most maxEntries events; a forgotten one starts a new Event', async () => {
      const recorder = new SandboxEventRecorder(client, { maxEntries: 2 });
      const s = sandboxNamed('lru');
      const a = MULTIPLE_PODS;
      const b = { ...a, note: 'b' };
      const c = { ...a, note: 'c' };
      await recorder.record(s, a, at(0));
      await recorder.record(s, b, at(1));
      await recorder.record(s, a, at(2)); // a is now the most recent
      await recorder.record(s, c, at(3)); // evicts b
      expect(recorder.size).toBe(2);
      await recorder.record(s, a, at(4)); // still remembered
      await recorder.record(s, b, at(5)); // forgotten: new Event
      const counts = (await eventsOf('lru')).map((e) => `${e.message}=${e.count}`);
      expect(counts.sort()).toEqual([`${a.note}=3`, 'b=1', 'b=1', 'c=1'].sort());
    });

    it('creates a new Event when the remembered one is gone (TTL or deleted)', async () => {
      const recorder = new SandboxEventRecorder(client);
      const s = sandboxNamed('gone');
      await recorder.record(s, MULTIPLE_PODS, at(0));
      const [first] = await eventsOf('gone');
      await client.delete(EVENTS, ns, first?.metadata.name ?? '');
      expect(await recorder.record(s, MULTIPLE_PODS, at(1))).toBeUndefined();
      await recorder.record(s, MULTIPLE_PODS, at(2));
      const events = await eventsOf('gone');
      expect(events.map((e) => [e.metadata.name === first?.metadata.name, e.count])).toEqual([
        [false, 2],
      ]);
    });

    it('rejects bad options naming the option and the fix', () => {
      expect(() => new SandboxEventRecorder(client, { windowMs: 0 })).toThrow(
        'event windowMs must be > 0 (got 0); omit it for 10 minutes',
      );
      expect(() => new SandboxEventRecorder(client, { maxEntries: 1.5 })).toThrow(
        'event maxEntries must be an integer >= 1 (got 1.5); omit it for 4096',
      );
    });

    it('reports a failed write instead of throwing', async () => {
      const recorder = new SandboxEventRecorder(client);
      const s = newSandbox(`no-such-${randomBytes(3).toString('hex')}`, 'x');
      const err = await recorder.record(s, MULTIPLE_PODS, at(0));
      expect(err).toBeInstanceOf(Error);
      expect(recorder.size).toBe(0);
    });
  });
}
