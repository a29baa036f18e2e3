// The composition root on a real data dir: the embedded API server and the controller manager in
// one process; a Sandbox gets its Pod; stop() releases the data dir; a failing component ends the
// mode with a LocalError naming it.
import { SANDBOXES } from '@agent-sandbox/controllers';
import { KubeClient, PODS } from '@agent-sandbox/kube';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LocalError, startEmbedded, type ApiServerEvent } from './index.ts';

const silent = pino({ level: process.env['DEBUG_LOCAL'] ? 'debug' : 'silent' });

function dataDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'agent-sandbox-local-')), 'state');
}

describe('startEmbedded', () => {
  it('serves the API, runs the Sandbox controller, and stops releasing the data dir', async () => {
    const dir = dataDir();
    const events: ApiServerEvent[] = [];
    const handle = await startEmbedded({
      apiServer: { dataDir: dir, port: 0, onEvent: (e) => events.push(e) },
      controllerManager: { logger: silent, controllers: ['sandbox'] },
    });
    expect(handle.components).toEqual(['controller-manager']);
    expect(events.filter((e) => e.type === 'file-written').length).toBeGreaterThan(0);
    const client = new KubeClient({ config: handle.apiServer.kubeConfig });
    try {
      await client.create(SANDBOXES, {
        apiVersion: 'agents.x-k8s.io/v1beta1',
        kind: 'Sandbox',
        metadata: { name: 'ok', namespace: 'default' },
        spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } },
      });
      await expect
        .poll(async () => (await client.list(PODS, 'default')).items.length, {
          timeout: 20_000,
        })
        .toBe(1);
    } finally {
      await client.close();
      await handle.stop();
    }
    await handle.stop(); // idempotent
    // The store's lock is released: the same data dir serves again, with no new credentials.
    const again = await startEmbedded({ apiServer: { dataDir: dir, port: 0 } });
    expect(again.components).toEqual([]);
    await again.stop();
  }, 60_000);

  it('ends with a LocalError naming the component that failed, and stops the rest', async () => {
    const dir = dataDir();
    const handle = await startEmbedded({
      apiServer: { dataDir: dir, port: 0 },
      // The metrics server cannot bind: the manager fails after the API server serves.
      controllerManager: {
        logger: silent,
        controllers: ['sandbox'],
        metricsBindAddress: 'not-an-address',
      },
    });
    const failure = await handle.done.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(LocalError);
    expect(failure).toMatchObject({
      code: 'ComponentFailed',
      message: expect.stringMatching(/^controller-manager: .*not-an-address/),
    });
    await handle.stop();
    const again = await startEmbedded({ apiServer: { dataDir: dir, port: 0 } });
    await again.stop();
  });

  it('refuses a data dir another server holds, with the fix', async () => {
    const dir = dataDir();
    const first = await startEmbedded({ apiServer: { dataDir: dir, port: 0 } });
    try {
      await expect(startEmbedded({ apiServer: { dataDir: dir, port: 0 } })).rejects.toMatchObject({
        code: 'DataDirInUse',
        message: `another agent-sandbox apiserver is using ${dir}; stop it or pick another --data-dir`,
      });
    } finally {
      await first.stop();
    }
  });
});
