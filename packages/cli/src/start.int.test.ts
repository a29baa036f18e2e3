// `agent-sandbox start` (what `npm start` runs): the embedded mode serves the API and runs the
// Sandbox controller in one process; a Sandbox applied with kubectl gets its Pod.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SANDBOX = `apiVersion: agents.x-k8s.io/v1beta1
kind: Sandbox
metadata:
  name: ok
spec:
  podTemplate:
    spec:
      containers:
        - name: main
          image: busybox
`;

const TEMPLATE = `apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: { name: tpl, namespace: default }
spec:
  podTemplate:
    spec:
      containers: [{ name: main, image: busybox }]
`;

function tempDir(_files: Record<string, string>): string {
  return mkdtempSync(join(tmpdir(), 'agent-sandbox-start-'));
}

describe('agent-sandbox start', () => {
  it('starts the embedded mode: API server plus the Sandbox and extension controllers', async () => {
    const dir = tempDir({});
    const abort = new AbortController();
    const io = { stdout: '', stderr: '' };
    const { runStart } = await import('./commands/start.ts');
    const done = runStart(
      { dataDir: join(dir, 'state'), port: 0 },
      {
        stdout: (t) => void (io.stdout += t),
        stderr: (t) => void (io.stderr += t),
        stdin: () => '',
      },
      { signal: abort.signal },
    );
    await expect.poll(() => io.stdout, { timeout: 20_000 }).toMatch(/kubeconfig: /);
    const kubeconfig = join(dir, 'state', 'kubeconfig');
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const kubectl = (args: string[], input?: string) => {
      const p = promisify(execFile)('kubectl', args, {
        env: { ...process.env, KUBECONFIG: kubeconfig },
      });
      if (input !== undefined) p.child.stdin?.end(input);
      return p;
    };
    await kubectl(['apply', '-f', '-'], SANDBOX);
    // The controller runs in the same process and creates the Sandbox's Pod.
    await expect
      .poll(
        async () =>
          (await kubectl(['get', 'pods', '-o', 'name']).catch(() => ({ stdout: '' }))).stdout,
        { timeout: 30_000 },
      )
      .toMatch(/pod\/ok/);
    // The extension controllers are on: a SandboxTemplate gets its NetworkPolicy.
    await kubectl(['apply', '-f', '-'], TEMPLATE);
    await expect
      .poll(
        async () =>
          (await kubectl(['get', 'networkpolicies', '-o', 'name']).catch(() => ({ stdout: '' })))
            .stdout,
        { timeout: 30_000 },
      )
      .toMatch(/networkpolicy.networking.k8s.io\/tpl-network-policy/);
    abort.abort();
    expect(await done).toBe(0);
    expect(io.stderr).toMatch(
      /running the Sandbox, SandboxClaim, SandboxWarmPool and SandboxTemplate controllers/,
    );
  }, 60_000);
});
