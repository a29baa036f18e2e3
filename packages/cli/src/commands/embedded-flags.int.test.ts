// The API server flags of `apiserver`, `start` and `up`: `--pod-security <level>`, the level
// namespaces without pod-security.kubernetes.io labels get (ADR 0026; bad values fail before
// anything serves, the level chosen is what admission enforces on a real data dir), and
// `--no-audit-log` (ADR 0031).
import { KubeClient, PODS, kubeConfigFromFile } from '@agent-sandbox/kube';
import type { KubeObject } from '@agent-sandbox/kube-types';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandIO } from '../io.ts';
import { runCli } from '../testing.ts';
import { runApiserver } from './apiserver.ts';
import { runStart } from './start.ts';

const COMMANDS = ['apiserver', 'start', 'up'];

function dataDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'agent-sandbox-pod-security-')), 'state');
}

function pod(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
  } as KubeObject;
}
const PRIVILEGED = {
  containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }],
};

/** Runs `serve` until the kubeconfig is written, hands a client to `use`, then stops it. */
async function serving(
  serve: (io: CommandIO, signal: AbortSignal) => Promise<number>,
  use: (client: KubeClient) => Promise<void>,
): Promise<void> {
  let stdout = '';
  const io: CommandIO = {
    stdout: (t) => void (stdout += t),
    stderr: () => undefined,
    stdin: () => '',
  };
  const stopper = new AbortController();
  const done = serve(io, stopper.signal);
  let client: KubeClient | undefined;
  try {
    await expect.poll(() => stdout, { timeout: 30_000 }).toMatch(/kubeconfig: /);
    const path = /kubeconfig: (\S+)/.exec(stdout)?.[1] ?? '';
    client = new KubeClient({ config: kubeConfigFromFile(path) });
    await use(client);
  } finally {
    await client?.close();
    stopper.abort();
  }
  expect(await done).toBe(0);
}

const refusal = (name: string, level: string, detail: string): string =>
  `pods "${name}" is forbidden: violates PodSecurity "${level}:latest": ${detail}`;

describe('--pod-security', () => {
  it('is listed on apiserver, start and up, and refuses unknown levels naming the flag', async () => {
    for (const command of COMMANDS) {
      const help = await runCli([command, '--help']);
      expect(help.stdout).toMatch(/--pod-security <level>/);
      const bad = await runCli([command, '--data-dir', dataDir(), '--pod-security', 'strict']);
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain(
        `--pod-security must be one of privileged, baseline, restricted, got "strict"`,
      );
    }
  });

  it('apiserver: baseline by default, restricted when asked', async () => {
    await serving(
      (io, signal) => runApiserver({ dataDir: dataDir(), port: 0 }, io, { signal }),
      async (client) => {
        await client.create(PODS, pod('plain'));
        await expect(client.create(PODS, pod('priv', PRIVILEGED))).rejects.toMatchObject({
          status: {
            code: 403,
            message: refusal(
              'priv',
              'baseline',
              'privileged (container "c" must not set securityContext.privileged=true)',
            ),
          },
        });
      },
    );
    await serving(
      (io, signal) =>
        runApiserver({ dataDir: dataDir(), port: 0, podSecurity: 'restricted' }, io, { signal }),
      async (client) => {
        await expect(client.create(PODS, pod('plain'))).rejects.toMatchObject({
          status: {
            code: 403,
            message: expect.stringContaining(
              refusal('plain', 'restricted', 'allowPrivilegeEscalation != false'),
            ),
          },
        });
      },
    );
  }, 60_000);

  it('start: privileged admits what baseline refuses', async () => {
    await serving(
      (io, signal) =>
        runStart({ dataDir: dataDir(), port: 0, podSecurity: 'privileged' }, io, { signal }),
      async (client) => {
        const created = await client.create(PODS, pod('priv', PRIVILEGED));
        expect(created.metadata.name).toBe('priv');
      },
    );
  }, 60_000);
});

describe('--no-audit-log', () => {
  it('is listed on apiserver, start and up; DIR/audit.log is kept unless it is given', async () => {
    for (const command of COMMANDS)
      expect((await runCli([command, '--help'])).stdout).toMatch(/--no-audit-log/);
    const on = dataDir();
    await serving(
      (io, signal) => runApiserver({ dataDir: on, port: 0 }, io, { signal }),
      async (client) => void (await client.create(PODS, pod('plain'))),
    );
    expect(existsSync(join(on, 'audit.log'))).toBe(true);
    const off = dataDir();
    await serving(
      (io, signal) => runApiserver({ dataDir: off, port: 0, auditLog: false }, io, { signal }),
      async (client) => void (await client.create(PODS, pod('plain'))),
    );
    expect(existsSync(join(off, 'audit.log'))).toBe(false);
  }, 60_000);
});
