// Must show (issue 4): the upstream Python `kubernetes` client from PyPI lists and watches
// against the embedded API server. The client lives in a venv outside the repo, created once and
// reused (python/list_and_watch.py does the listing and watching and prints JSON).
import { readOurCrds } from '@agent-sandbox/apiserver/testing';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runProgram, startServerOn, uniqueName, type RunningServer } from './support.ts';

/** kubernetes-client/python, latest on PyPI on 2026-11-30; supports Python 3.9+ (tested with 3.11). */
const PIN = '37.0.2';
const PYTHON = process.env.PYTHON ?? 'python3';
const VENV =
  process.env.AGENT_SANDBOX_PYCLIENT_VENV ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'agent-sandbox', `pyclient-${PIN}`);
const VENV_PYTHON = join(VENV, 'bin', 'python');
const script = (name: string): string =>
  fileURLToPath(new URL(`./python/${name}`, import.meta.url));

async function installedVersion(): Promise<string | undefined> {
  if (!existsSync(VENV_PYTHON)) return undefined;
  const r = await runProgram(VENV_PYTHON, [
    '-c',
    'import kubernetes; print(kubernetes.__version__)',
  ]);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** Creates the venv and installs the pinned client unless it is already there. */
async function ensureClient(): Promise<void> {
  if ((await installedVersion()) === PIN) return;
  mkdirSync(join(VENV, '..'), { recursive: true });
  const venv = await runProgram(PYTHON, ['-m', 'venv', VENV], { timeoutMs: 120_000 });
  if (venv.code !== 0)
    throw new Error(
      `\`${PYTHON} -m venv ${VENV}\` failed (exit ${venv.code}):\n${venv.stderr}\n` +
        'On Debian/Ubuntu install the venv module first: `apt-get install -y python3-venv`.',
    );
  const pip = await runProgram(
    join(VENV, 'bin', 'pip'),
    ['install', '--disable-pip-version-check', '-q', `kubernetes==${PIN}`],
    { timeoutMs: 540_000 },
  );
  if (pip.code !== 0)
    throw new Error(
      `pip could not install kubernetes==${PIN} from PyPI into ${VENV} (exit ${pip.code}):\n` +
        `${pip.stderr}\n` +
        'This test needs the Python client from PyPI. Either give pip network access (or a mirror ' +
        'through PIP_INDEX_URL), or install it once by hand: ' +
        `\`${PYTHON} -m venv ${VENV} && ${VENV}/bin/pip install kubernetes==${PIN}\`, ` +
        'or point AGENT_SANDBOX_PYCLIENT_VENV at a venv that already has it.',
    );
  const version = await installedVersion();
  if (version !== PIN) throw new Error(`venv ${VENV} has kubernetes ${version}, want ${PIN}`);
}

interface ScriptOutput {
  clientVersion: string;
  namespaces: string[];
  configmaps: string[];
  configmapData: Record<string, Record<string, string> | null>;
  pages: string[][];
  labelled: string[];
  sandboxes: string[];
  sandboxImages: Record<string, string>;
  configmapEvents: [string, string, Record<string, string> | null][];
  sandboxEvents: [string, string, Record<string, string> | null][];
}

let s: RunningServer;
const ns = uniqueName('python');

beforeAll(async () => {
  await ensureClient();
  s = await startServerOn(':memory:', 0, readOurCrds());
  const api = s.api;
  await api.create('/api/v1/namespaces', { metadata: { name: ns } });
  for (const [name, labels] of [
    ['cm-a', { journey: 'python' }],
    ['cm-b', {}],
    ['cm-c', { journey: 'python' }],
  ] as const)
    await api.create(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name, labels },
      data: { name },
    });
  await api.create(`/apis/agents.x-k8s.io/v1beta1/namespaces/${ns}/sandboxes`, {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: { name: 'listed' },
    spec: { podTemplate: { spec: { containers: [{ name: 'agent', image: 'alpine:3.20' }] } } },
  });
});

afterAll(async () => {
  await s?.stop();
});

async function runScript(name: string, ...args: string[]): Promise<unknown> {
  const r = await runProgram(VENV_PYTHON, [script(name), s.kubeconfigPath, ...args], {
    timeoutMs: 50_000,
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

it('lists namespaces, ConfigMaps and Sandboxes, and watches ConfigMaps and Sandboxes', async () => {
  const out = (await runScript('list_and_watch.py', ns)) as ScriptOutput;
  expect(out.clientVersion).toBe(PIN);

  expect(out.namespaces).toEqual(expect.arrayContaining(['default', 'kube-system', ns]));
  // Every namespace gets the kube-root-ca.crt ConfigMap on kube-apiserver; ours may or may not.
  const ours = out.configmaps.filter((n) => n.startsWith('cm-'));
  expect(ours).toEqual(['cm-a', 'cm-b', 'cm-c']);
  expect(out.configmapData['cm-b']).toEqual({ name: 'cm-b' });
  expect(out.pages.flat()).toEqual(out.configmaps);
  expect(out.pages.every((p) => p.length === 1)).toBe(true);
  expect(out.labelled).toEqual(['cm-a', 'cm-c']);
  expect(out.sandboxes).toEqual(['listed']);
  expect(out.sandboxImages).toEqual({ listed: 'alpine:3.20' });

  expect(out.configmapEvents).toEqual([
    ['ADDED', 'py-watched', { v: '1' }],
    ['MODIFIED', 'py-watched', { v: '2' }],
    ['DELETED', 'py-watched', { v: '2' }],
  ]);
  expect(out.sandboxEvents).toEqual([
    ['ADDED', 'py-sandbox', null],
    ['MODIFIED', 'py-sandbox', { seen: 'yes' }],
    ['DELETED', 'py-sandbox', { seen: 'yes' }],
  ]);
});

it('gets 410 Expired when watching from a compacted resourceVersion, then relists', async () => {
  const watchNs = uniqueName('python-410');
  await s.api.create('/api/v1/namespaces', { metadata: { name: watchNs } });
  const cms = `/api/v1/namespaces/${watchNs}/configmaps`;
  const first = await s.api.create(cms, { metadata: { name: 'first' } });
  await s.api.create(cms, { metadata: { name: 'second' } });
  await s.api.request('DELETE', `${cms}/first`);
  const compacted = s.store.compact(0);
  const rv = first.metadata?.resourceVersion ?? '';
  const out = (await runScript('watch_expired.py', watchNs, rv)) as {
    events: unknown[];
    error?: { status: number; reason: string };
    relisted: string[];
    afterRelist: unknown[];
  };
  expect(out.events).toEqual([]);
  expect(out.error).toEqual({
    status: 410,
    reason: `Expired: too old resource version: ${rv} (${compacted})`,
  });
  expect(out.relisted).toEqual(['second']);
  expect(out.afterRelist).toEqual([]);
});
