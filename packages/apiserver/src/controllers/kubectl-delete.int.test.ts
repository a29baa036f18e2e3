// kubectl's delete journeys that need the in-server controllers: `--cascade=foreground|background|
// orphan` and namespace deletion, each waiting (kubectl's default --wait) until the object is gone,
// and a watch seeing a namespace go Terminating, then DELETED.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../testing/test-server.ts';
import { ownerRef, TestClient } from './test-client.ts';

const run = promisify(execFile);

describe('kubectl delete with the in-server controllers', () => {
  let s: TestApiServer;
  let kube: TestClient;
  beforeAll(async () => {
    s = await startTestApiServer();
    kube = new TestClient(s.url);
  });
  afterAll(async () => {
    await s.close();
  });

  /** kubectl in a child process, asynchronously: the server runs in this process's event loop. */
  async function kubectl(args: string[]): Promise<string> {
    const { stdout } = await run('kubectl', [...args, '--request-timeout=20s'], {
      env: { ...process.env, KUBECONFIG: s.kubeconfigPath },
      encoding: 'utf8',
      timeout: 30_000,
    });
    return stdout;
  }

  async function family(ns: string, owner: string): Promise<void> {
    const o = await kube.create(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: owner },
    });
    await kube.create(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: {
        name: `${owner}-dep`,
        ownerReferences: [ownerRef(o, { blockOwnerDeletion: true })],
      },
    });
  }

  it('deletes with --cascade=foreground, background and orphan', async () => {
    await kube.createNamespace('kubectl-cascade');
    const cms = '/api/v1/namespaces/kubectl-cascade/configmaps';
    for (const cascade of ['foreground', 'background', 'orphan']) {
      await family('kubectl-cascade', cascade);
      const out = await kubectl([
        'delete',
        'configmap',
        cascade,
        '-n',
        'kubectl-cascade',
        `--cascade=${cascade}`,
      ]);
      expect(out).toContain(`configmap "${cascade}" deleted`);
      expect(await kube.exists(`${cms}/${cascade}`)).toBe(false);
    }
    // Foreground: the dependent went before the owner did.
    expect(await kube.exists(`${cms}/foreground-dep`)).toBe(false);
    const orphan = await kube.get(`${cms}/orphan-dep`);
    expect(orphan.status).toBe(200);
    expect(orphan.body.metadata.ownerReferences).toBeUndefined();
  });

  it('deletes a namespace and its content, watched from Terminating to DELETED', async () => {
    await kube.createNamespace('kubectl-ns');
    await family('kubectl-ns', 'owner');
    const watch = await fetch(
      `${s.url}/api/v1/namespaces?watch=true&fieldSelector=metadata.name%3Dkubectl-ns`,
    );
    const out = await kubectl(['delete', 'namespace', 'kubectl-ns']);
    expect(out).toContain('namespace "kubectl-ns" deleted');
    expect(await kube.exists('/api/v1/namespaces/kubectl-ns')).toBe(false);

    const reader = watch.body?.getReader();
    if (!reader) throw new Error('no watch body');
    const events: { type: string; phase?: string }[] = [];
    let text = '';
    while (!events.some((e) => e.type === 'DELETED')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const lines = text.split('\n');
      text = lines.pop() ?? '';
      for (const line of lines.filter((l) => l !== '')) {
        const e = JSON.parse(line) as { type: string; object: { status?: { phase?: string } } };
        events.push({
          type: e.type,
          ...(e.object.status?.phase ? { phase: e.object.status.phase } : {}),
        });
      }
    }
    await reader.cancel();
    expect(events[0]).toEqual({ type: 'ADDED', phase: 'Active' });
    expect(events[1]).toEqual({ type: 'MODIFIED', phase: 'Terminating' });
    expect(events.at(-1)?.type).toBe('DELETED');
  });
});
