// Must-show (issue 3): the machine's kubectl works with the written kubeconfig: get nodes,
// apply, get --watch.
import { CoreV1Api } from '@kubernetes/client-node';
import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectTarget } from '../support/target.ts';
import { createTestNamespace } from './testing.ts';

const run = promisify(execFile);
// The machine's kubectl; KUBECTL overrides it (tests read env only to find tools).
const KUBECTL = process.env.KUBECTL ?? 'kubectl';

let kubeconfig: string;
let namespace: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const target = await connectTarget();
  kubeconfig = target.kubeconfigPath;
  const core = target.kubeConfig.makeApiClient(CoreV1Api);
  ({ namespace, cleanup } = await createTestNamespace(core, 'kubectl'));
});

afterAll(async () => cleanup?.());

async function kubectl(args: string[], stdin?: string): Promise<string> {
  const child = run(KUBECTL, ['--kubeconfig', kubeconfig, ...args]);
  if (stdin !== undefined) child.child.stdin?.end(stdin);
  return (await child).stdout;
}

const configMap = (value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: watched
  namespace: ${namespace}
data:
  v: "${value}"
`;

it('lists the kwok nodes', async () => {
  const out = await kubectl(['get', 'nodes', '-o', 'name']);
  expect(out).toContain('node/kwok-node-0000');
});

it('applies a manifest and watches it change', async () => {
  expect(await kubectl(['apply', '-f', '-'], configMap('one'))).toContain('created');

  const watch = spawn(KUBECTL, [
    '--kubeconfig',
    kubeconfig,
    '-n',
    namespace,
    'get',
    'configmap',
    'watched',
    '--watch',
    '-o',
    'jsonpath={.data.v}{"\\n"}',
  ]);
  try {
    const lines = createInterface({ input: watch.stdout })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('one');
    expect(await kubectl(['apply', '-f', '-'], configMap('two'))).toContain('configured');
    expect((await lines.next()).value).toBe('two');
  } finally {
    watch.kill();
  }
});
