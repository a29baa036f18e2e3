// KubeClient against the real embedded API server (STYLE: no fake client).
import type { ConfigMap, KubeObject } from '@agent-sandbox/kube-types';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from './client.ts';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  KubeError,
} from './errors.ts';
import { kubeConfigFromFile } from './kubeconfig.ts';
import { CONFIG_MAPS } from './resources.ts';
import { configMap } from './testing/builders.ts';
import type { WatchEvent } from './types.ts';

let server: TestApiServer;
let client: KubeClient;

beforeAll(async () => {
  server = await startTestApiServer();
  client = new KubeClient({ config: kubeConfigFromFile(server.kubeconfigPath) });
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe('KubeClient verbs', () => {
  it('creates, gets, lists, updates and deletes with exact errors', async () => {
    const created = await client.create(
      CONFIG_MAPS,
      configMap('default', 'a', { data: { k: 'v' } }),
    );
    expect(created.metadata.resourceVersion).toBeTruthy();
    await expect(client.create(CONFIG_MAPS, configMap('default', 'a'))).rejects.toSatisfy(
      isAlreadyExists,
    );
    const got = await client.get<ConfigMap & KubeObject>(CONFIG_MAPS, 'default', 'a');
    expect(got.data).toEqual({ k: 'v' });
    const list = await client.list(CONFIG_MAPS, 'default');
    expect(list.items.map((i) => i.metadata.name)).toContain('a');
    expect(list.metadata.resourceVersion).toBeTruthy();

    const updated = await client.update(CONFIG_MAPS, { ...got, data: { k: 'w' } });
    expect(updated.metadata.resourceVersion).not.toBe(got.metadata.resourceVersion);
    const stale = client.update(CONFIG_MAPS, { ...got, data: { k: 'x' } });
    await expect(stale).rejects.toSatisfy(isConflict);

    await client.delete(CONFIG_MAPS, 'default', 'a');
    const missing = client.get(CONFIG_MAPS, 'default', 'a');
    await expect(missing).rejects.toBeInstanceOf(ApiError);
    await expect(missing).rejects.toSatisfy(isNotFound);
    await expect(missing).rejects.toThrow('get configmaps default/a: configmaps "a" not found');
  });

  it('patches with merge, JSON patch and server-side apply', async () => {
    await client.create(CONFIG_MAPS, configMap('default', 'p', { data: { a: '1' } }));
    const merged = await client.patch<ConfigMap & KubeObject>(CONFIG_MAPS, 'default', 'p', {
      type: 'merge',
      body: { data: { b: '2' } },
    });
    expect(merged.data).toEqual({ a: '1', b: '2' });
    const jsonPatched = await client.patch<ConfigMap & KubeObject>(CONFIG_MAPS, 'default', 'p', {
      type: 'json',
      ops: [{ op: 'remove', path: '/data/a' }],
    });
    expect(jsonPatched.data).toEqual({ b: '2' });
    const applied = await client.patch<ConfigMap & KubeObject>(
      CONFIG_MAPS,
      'default',
      'p',
      {
        type: 'apply',
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' }, data: { c: '3' } },
      },
      { fieldManager: 'test', force: true },
    );
    expect(applied.data).toMatchObject({ b: '2', c: '3' });
    expect(applied.metadata.managedFields?.some((f) => f.manager === 'test')).toBe(true);
    const bad = client.patch(CONFIG_MAPS, 'default', 'p', {
      type: 'json',
      ops: [{ op: 'test', path: '/data/b', value: 'nope' }],
    });
    await expect(bad).rejects.toBeInstanceOf(ApiError);
  });

  it('deletes with preconditions', async () => {
    const cm = await client.create(CONFIG_MAPS, configMap('default', 'd'));
    const wrong = client.delete(CONFIG_MAPS, 'default', 'd', {
      preconditions: { uid: 'not-the-uid' },
      propagationPolicy: 'Background',
    });
    await expect(wrong).rejects.toSatisfy(isConflict);
    await client.delete(CONFIG_MAPS, 'default', 'd', {
      preconditions: {
        uid: cm.metadata.uid ?? '',
        resourceVersion: cm.metadata.resourceVersion ?? '',
      },
    });
    await expect(client.get(CONFIG_MAPS, 'default', 'd')).rejects.toSatisfy(isNotFound);
  });

  it('reports Invalid and wraps network failures in KubeError', async () => {
    const invalid = client.create(CONFIG_MAPS, configMap('default', 'Bad_Name'));
    await expect(invalid).rejects.toSatisfy(isInvalid);
    const dead = new KubeClient({
      config: { server: 'http://127.0.0.1:1', namespace: 'default', insecureSkipTlsVerify: false },
    });
    await expect(dead.get(CONFIG_MAPS, 'default', 'x')).rejects.toMatchObject({ code: 'Network' });
    await expect(dead.get(CONFIG_MAPS, 'default', 'x')).rejects.toBeInstanceOf(KubeError);
    await dead.close();
  });
});

describe('KubeClient watch', () => {
  it('streams events from a resourceVersion and ends on abort', async () => {
    const list = await client.list(CONFIG_MAPS, 'default');
    const ac = new AbortController();
    const seen: WatchEvent<ConfigMap & KubeObject>[] = [];
    const done = (async () => {
      for await (const ev of client.watch<ConfigMap & KubeObject>(CONFIG_MAPS, 'default', {
        resourceVersion: list.metadata.resourceVersion ?? '',
        signal: ac.signal,
      })) {
        seen.push(ev);
        if (seen.length === 3) ac.abort();
      }
    })();
    await client.create(CONFIG_MAPS, configMap('default', 'w'));
    await client.patch(CONFIG_MAPS, 'default', 'w', { type: 'merge', body: { data: { x: 'y' } } });
    await client.delete(CONFIG_MAPS, 'default', 'w');
    await done;
    expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('yields the initial-events-end BOOKMARK of a watch-list', async () => {
    await client.create(CONFIG_MAPS, configMap('default', 'bm'));
    const ac = new AbortController();
    const types: string[] = [];
    for await (const ev of client.watch(CONFIG_MAPS, 'default', {
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
      signal: ac.signal,
    })) {
      types.push(ev.type);
      if (ev.type === 'BOOKMARK') {
        expect(ev.object.metadata.annotations?.['k8s.io/initial-events-end']).toBe('true');
        expect(ev.object.metadata.resourceVersion).toMatch(/^\d+$/);
        ac.abort();
      }
    }
    expect(types.at(-1)).toBe('BOOKMARK');
    expect(types).toContain('ADDED');
  });
});
