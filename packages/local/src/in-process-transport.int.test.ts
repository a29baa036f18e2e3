// The in-process transport `up` gives its components (apiserver in-process.ts) against the same
// server over HTTPS: writes are acknowledged once durable (a restart still has them), watches
// deliver what another client writes and end when their caller aborts. Who may do what over it
// is in identities.int.test.ts, which runs every case over both transports.
import { CONFIG_MAPS, KubeClient } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmbeddedApiServer } from './api-server.ts';

const configMap = (name: string, value: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default' },
    data: { value },
  }) as KubeObject;

describe('the in-process transport', () => {
  it('acknowledges a write once durable: the next start of the data dir has it', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'agent-sandbox-inproc-')), 'state');
    const first = await startEmbeddedApiServer({ dataDir, port: 0 });
    const client = new KubeClient({ config: first.kubeConfig, fetch: first.fetch });
    await client.create(CONFIG_MAPS, configMap('kept', 'v1'));
    await client.close();
    await first.stop();
    const again = await startEmbeddedApiServer({ dataDir, port: 0 });
    try {
      const over = new KubeClient({ config: again.kubeConfig });
      const got = (await over.get(CONFIG_MAPS, 'default', 'kept')) as KubeObject & {
        data?: Record<string, string>;
      };
      expect(got.data).toEqual({ value: 'v1' });
      await over.close();
    } finally {
      await again.stop();
    }
  });

  it('watches what an HTTPS client writes, and ends when the caller aborts', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'agent-sandbox-inproc-')), 'state');
    const server = await startEmbeddedApiServer({ dataDir, port: 0 });
    const inProcess = new KubeClient({ config: server.kubeConfig, fetch: server.fetch });
    const https = new KubeClient({ config: server.kubeConfig });
    try {
      const abort = new AbortController();
      const seen: string[] = [];
      const watching = (async () => {
        const stream = inProcess.watch<KubeObject>(CONFIG_MAPS, 'default', {
          fieldSelector: 'metadata.name=watched',
          signal: abort.signal,
        });
        for await (const ev of stream) {
          seen.push(ev.type); // the field selector names the one object
          if (ev.type === 'MODIFIED') abort.abort();
        }
      })();
      await https.create(CONFIG_MAPS, configMap('watched', 'a'));
      await https.patch(CONFIG_MAPS, 'default', 'watched', {
        type: 'merge',
        body: { data: { value: 'b' } },
      });
      await watching.catch((err: unknown) => {
        if (!abort.signal.aborted) throw err;
      });
      expect(seen).toEqual(['ADDED', 'MODIFIED']);
      // The transport still serves after the aborted watch.
      expect((await inProcess.get(CONFIG_MAPS, 'default', 'watched')).metadata.name).toBe(
        'watched',
      );
    } finally {
      await inProcess.close();
      await https.close();
      await server.stop();
    }
  });
});
