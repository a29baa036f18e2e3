// What the e2e journeys share: the template and warm pool they claim from (the demo image with a
// PVC at /workspace, the sandbox's root, so suspend and resume keep what was written), and the
// `agent-sandbox` CLI run as a user runs it, in its own process.
import { CLI_BIN } from '@agent-sandbox/local/testing';
import { spawn, type ChildProcess } from 'node:child_process';

export const E2E_POOL = 'e2e';

/**
 * A CLI journey starts about fifteen `agent-sandbox` processes one after another; each is a
 * Node start (seconds on the shared, loaded machine, more when the bundle is stale and the
 * sources run through tsx), so the journey gets more than the project's per-test default.
 */
export const CLI_JOURNEY_TIMEOUT_MS = 240_000;

const WORKSPACE_CLAIM = `
  volumeClaimTemplates:
    - metadata: { name: workspace }
      spec:
        accessModes: [ReadWriteOnce]
        resources: { requests: { storage: 1Gi } }`;
const WORKSPACE_MOUNT = `
          volumeMounts: [{ name: workspace, mountPath: /workspace }]`;

/**
 * A SandboxTemplate and a warm pool of `replicas` for it, as YAML for `kubectl apply`; `disk`
 * puts a PVC at /workspace (the harness has no volume provisioner: it gets none).
 */
export function poolManifest(o: {
  image: string;
  replicas: number;
  namespace: string;
  disk: boolean;
}): string {
  return `apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxTemplate
metadata: { name: ${E2E_POOL}, namespace: ${o.namespace} }
spec:${o.disk ? WORKSPACE_CLAIM : ''}
  podTemplate:
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: sandbox
          image: ${o.image}
          imagePullPolicy: Never
          command: [sleep, infinity]
          workingDir: /workspace${o.disk ? WORKSPACE_MOUNT : ''}
---
apiVersion: extensions.agents.x-k8s.io/v1beta1
kind: SandboxWarmPool
metadata: { name: ${E2E_POOL}, namespace: ${o.namespace} }
spec: { replicas: ${o.replicas}, sandboxTemplateRef: { name: ${E2E_POOL} } }
`;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end with `env` added to the test's, feeding it `input`. */
export function runProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(input);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Resolves once the e2e pool has `n` ready members (a claim made earlier may go cold). */
export async function untilPoolReady(
  kubeconfig: string,
  namespace: string,
  n: number,
): Promise<void> {
  const end = Date.now() + 300_000;
  for (;;) {
    const r = await runProcess(
      'kubectl',
      [
        'get',
        'sandboxwarmpool',
        E2E_POOL,
        '-n',
        namespace,
        '-o',
        'jsonpath={.status.readyReplicas}',
      ],
      { KUBECONFIG: kubeconfig },
    );
    if (Number(r.stdout) >= n) return;
    if (Date.now() > end)
      throw new Error(
        `warm pool ${namespace}/${E2E_POOL} has not ${n} ready members: ${r.stdout}${r.stderr}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** `agent-sandbox ARGS` against the kubeconfig, to its end. */
export function agentSandbox(kubeconfig: string, args: string[]): Promise<Ran> {
  return runProcess(process.execPath, [CLI_BIN, ...args], { KUBECONFIG: kubeconfig });
}

/** `agent-sandbox ARGS` left running (a server in the sandbox, in another terminal). */
export function agentSandboxBackground(kubeconfig: string, args: string[]): ChildProcess {
  return spawn(process.execPath, [CLI_BIN, ...args], {
    env: { ...process.env, KUBECONFIG: kubeconfig },
    stdio: 'ignore',
  });
}

/** Polls `url` until it answers 200 and returns the body (the server may still be starting). */
export async function fetchWhenUp(url: string, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(url).catch((err: unknown) => err as Error);
    if (!(res instanceof Error) && res.ok) return res.text();
    if (Date.now() > end)
      throw new Error(
        `${url} did not answer 200 in ${timeoutMs} ms: ${String(res instanceof Error ? res : res.status)}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}
