// A Pod's warnings through the node's Event sink on the embedded API server: every repeat of an
// earlier (reason, message) — not only of the last one — bumps that Event's count, as client-go's
// EventCorrelator does; an Event deleted meanwhile is written again; the cache stays bounded.
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { EVENTS, KubeClient, kubeConfigFromFile } from '@agent-sandbox/kube';
import type { Event, KubeObject, Pod } from '@agent-sandbox/kube-types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kubeEventSink, POD_EVENT_CACHE_SIZE, PodEvents } from './pod-events.ts';

let api: TestApiServer;
let client: KubeClient;

beforeAll(async () => {
  api = await startTestApiServer();
  client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
});

afterAll(async () => {
  await client.close();
  await api.close();
});

const pod = (name: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
});

async function eventsAbout(name: string): Promise<(Event & KubeObject)[]> {
  const list = await client.list<Event & KubeObject>(EVENTS, 'default');
  return list.items.filter((e) => e.involvedObject.name === name);
}

/** The Events about Pod `name`: `reason: message` → count (each pair on one Event). */
async function counts(name: string): Promise<Record<string, number | undefined>> {
  const ours = await eventsAbout(name);
  const byKey = Object.fromEntries(ours.map((e) => [`${e.reason}: ${e.message}`, e.count]));
  expect(Object.keys(byKey)).toHaveLength(ours.length);
  return byKey;
}

it('counts each (reason, message) on its own Event, even when causes alternate', async () => {
  const events = new PodEvents(kubeEventSink(client), 'node-a');
  const p = pod('alternating');
  for (const cause of ['bridge gone', 'configmap missing', 'bridge gone', 'configmap missing'])
    expect(await events.warn(p, 'FailedCreatePodSandBox', cause)).toBeUndefined();
  expect(await events.warn(p, 'Failed', 'bridge gone')).toBeUndefined(); // another reason
  expect(await counts('alternating')).toEqual({
    'FailedCreatePodSandBox: bridge gone': 2,
    'FailedCreatePodSandBox: configmap missing': 2,
    'Failed: bridge gone': 1,
  });
});

it('writes an Event again once it was deleted, and counts from one', async () => {
  const events = new PodEvents(kubeEventSink(client), 'node-a');
  const p = pod('deleted');
  await events.warn(p, 'FailedCreatePodSandBox', 'x');
  const list = await client.list<Event & KubeObject>(EVENTS, 'default');
  const first = list.items.find((e) => e.involvedObject.name === 'deleted');
  await client.delete(EVENTS, 'default', first?.metadata.name ?? '');
  await events.warn(p, 'FailedCreatePodSandBox', 'x');
  await events.warn(p, 'FailedCreatePodSandBox', 'x');
  expect(await counts('deleted')).toEqual({ 'FailedCreatePodSandBox: x': 2 });
});

it('forgets the least recently seen pair past its cache size: a message that always changes', async () => {
  const events = new PodEvents(kubeEventSink(client), 'node-a');
  const p = pod('bounded');
  await events.warn(p, 'FailedCreatePodSandBox', 'kept');
  for (let i = 0; i < POD_EVENT_CACHE_SIZE; i++) {
    await events.warn(p, 'FailedCreatePodSandBox', `attempt ${i}`);
    if (i === POD_EVENT_CACHE_SIZE - 2) await events.warn(p, 'FailedCreatePodSandBox', 'kept');
  }
  // The last attempt pushed out 'attempt 0' (the oldest once 'kept' was seen again): its repeat
  // is a new Event. 'kept' is still counted on its first one.
  await events.warn(p, 'FailedCreatePodSandBox', 'attempt 0');
  await events.warn(p, 'FailedCreatePodSandBox', 'kept');
  const all = await eventsAbout('bounded');
  expect(all.filter((e) => e.message === 'attempt 0').map((e) => e.count)).toEqual([1, 1]);
  expect(all.filter((e) => e.message === 'kept').map((e) => e.count)).toEqual([3]);
  expect(all).toHaveLength(POD_EVENT_CACHE_SIZE + 2);
});

it('answers a write error instead of throwing', async () => {
  const gone = await startTestApiServer();
  const offline = new KubeClient({ config: kubeConfigFromFile(gone.kubeconfigPath) });
  await gone.close();
  const events = new PodEvents(kubeEventSink(offline), 'node-a');
  expect(await events.warn(pod('x'), 'Failed', 'y')).toBeInstanceOf(Error);
  await offline.close();
});
