// The pod streaming seam: kubectl logs reaches the PodStreams implementation for a scheduled
// Pod, and gets kube's error for a Pod without a node.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, type TestApiServer } from '../../testing/test-server.ts';
import type { PodStreams } from './pod-streams.ts';

const run = promisify(execFile);

/** Serves logs from the Pod's own annotation: the smallest honest node agent for the seam. */
const annotationLogs: PodStreams = {
  serve(subresource, pod) {
    if (subresource !== 'log')
      return Promise.resolve(new Response('not served here', { status: 501 }));
    const text = pod.metadata.annotations?.['test/log'] ?? '';
    return Promise.resolve(new Response(text, { headers: { 'Content-Type': 'text/plain' } }));
  },
};

describe('pod streaming subresources', () => {
  let s: TestApiServer;
  const kubectl = async (...args: string[]) =>
    run('kubectl', args, { env: { ...process.env, KUBECONFIG: s.kubeconfigPath } });
  beforeAll(async () => {
    s = await startTestApiServer({ podStreams: annotationLogs });
  });
  afterAll(async () => s.close());

  async function pod(name: string, nodeName?: string): Promise<void> {
    const body = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, annotations: { 'test/log': `hello from ${name}\n` } },
      spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'main', image: 'busybox' }] },
    };
    const res = await fetch(`${s.url}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(201);
  }

  it('hands logs of a scheduled Pod to the node agent', async () => {
    await pod('scheduled', 'node-1');
    expect((await kubectl('logs', 'scheduled')).stdout).toBe('hello from scheduled\n');
  });

  it('refuses a Pod without a node the way kube-apiserver does', async () => {
    await pod('pending');
    const err = await kubectl('logs', 'pending').catch((e: unknown) => e as { stderr: string });
    expect((err as { stderr: string }).stderr).toMatch(/pod pending does not have a host assigned/);
  });
});
