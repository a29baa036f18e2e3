import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../errors.ts';
import { mmdebstrapArgs, recipeKey, DEMO_RECIPE, ensureDemoImage } from './demo-image.ts';
import { demoTemplate, demoWarmPool } from './demo-objects.ts';
import { nextSteps, prepareDemo } from './demo.ts';
import type { RunHostCommand } from './system-packages.ts';
import { waitingReason } from './warm-pool-progress.ts';

const dirs: string[] = [];
async function temp(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'cli-demo-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('prepareDemo', () => {
  it('names each missing tool, its package and the command when it cannot install', async () => {
    const err = await prepareDemo({
      dataDir: await temp(),
      report: () => undefined,
      has: (b) => b === 'apt-get',
      isRoot: false,
      run: async () => ({ code: 0, output: '' }),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toBe(
      'agent-sandbox up needs runc (runc: runs sandbox containers), ip (iproute2: creates each Pod network namespace), nft (nftables: enforces NetworkPolicy on the pod bridge); as root: apt-get install -y runc iproute2 nftables runsc bubblewrap mmdebstrap, then run npm start again',
    );
  });

  it('runs without the demo when only mmdebstrap is missing and it cannot be installed', async () => {
    const lines: string[] = [];
    const r = await prepareDemo({
      dataDir: await temp(),
      report: (l) => lines.push(l),
      has: (b) => b !== 'mmdebstrap',
      isRoot: false,
    });
    expect(r).toEqual({});
    expect(lines).toEqual([
      'setup: running without mmdebstrap (mmdebstrap: builds the demo image from Debian packages) (as root: apt-get install -y mmdebstrap)',
      'demo image: skipped, mmdebstrap is missing (as root: apt-get install -y mmdebstrap); no demo template or warm pool',
    ]);
  });

  it('reports apt-get failing with its last lines', async () => {
    const run: RunHostCommand = async (_f, args) =>
      args[0] === 'update'
        ? { code: 0, output: '' }
        : { code: 100, output: 'E: Unable to locate package runc\n' };
    await expect(
      prepareDemo({
        dataDir: await temp(),
        report: () => undefined,
        has: (b) => b !== 'runc',
        isRoot: true,
        run,
      }),
    ).rejects.toThrow('setup: apt-get could not install runc: E: Unable to locate package runc');
  });
});

describe('the demo image recipe', () => {
  it('keys the cache by the recipe, not the package order', () => {
    const a = recipeKey(DEMO_RECIPE);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(recipeKey({ ...DEMO_RECIPE, packages: [...DEMO_RECIPE.packages].reverse() })).toBe(a);
    expect(recipeKey({ ...DEMO_RECIPE, suite: 'trixie' })).not.toBe(a);
  });

  it('builds python3 on Debian without docs, with /workspace', () => {
    const args = mmdebstrapArgs(DEMO_RECIPE, '/tmp/x.tar');
    expect(args[0]).toBe('--variant=essential');
    expect(args[1]).toMatch(/^--include=python3,/);
    expect(args).toContain('--dpkgopt=path-exclude=/usr/share/doc/*');
    expect(args).toContain('--customize-hook=mkdir -p "$1/workspace"');
    expect(args.slice(-2)).toEqual(['bookworm', '/tmp/x.tar']);
  });

  it('says how to get mmdebstrap, or shows its last lines, when the build fails', async () => {
    const cacheDir = await temp();
    const missing: RunHostCommand = async () => ({ code: 127, output: 'spawn mmdebstrap ENOENT' });
    await expect(
      ensureDemoImage({ cacheDir, run: missing, report: () => undefined }),
    ).rejects.toThrow('mmdebstrap is not installed (as root: apt-get install -y mmdebstrap)');
    const failing: RunHostCommand = async () => ({
      code: 1,
      output: 'I: a\nE: apt-get update failed\n',
    });
    await expect(
      ensureDemoImage({ cacheDir, run: failing, report: () => undefined }),
    ).rejects.toThrow('mmdebstrap exited 1: I: a | E: apt-get update failed');
  });
});

describe('the demo objects', () => {
  it('are a never-pulled template and a warm pool of two on it', () => {
    const t = demoTemplate('img:1') as unknown as {
      spec: { podTemplate: { spec: { containers: { image: string; imagePullPolicy: string }[] } } };
    };
    expect(t.spec.podTemplate.spec.containers[0]).toMatchObject({
      image: 'img:1',
      imagePullPolicy: 'Never',
    });
    expect(demoWarmPool()).toMatchObject({
      kind: 'SandboxWarmPool',
      metadata: { name: 'python', namespace: 'default' },
      spec: { replicas: 2, sandboxTemplateRef: { name: 'python' } },
    });
  });

  it('prints the next commands with the kubeconfig', () => {
    expect(nextSteps('/d/kubeconfig')).toContain('export KUBECONFIG=/d/kubeconfig');
    expect(nextSteps('/d/kubeconfig')).toContain(
      "agent-sandbox exec demo -- python3 -c 'print(6*7)'",
    );
  });

  it('shows why a member Pod waits, skipping a plain ContainerCreating', () => {
    const pod = (reason: string, message?: string) => ({
      status: {
        containerStatuses: [{ state: { waiting: { reason, ...(message ? { message } : {}) } } }],
      },
    });
    expect(waitingReason([pod('ContainerCreating')] as never)).toBeUndefined();
    expect(
      waitingReason([pod('ContainerCreating'), pod('ErrImageNeverPull', 'not present')] as never),
    ).toBe('ErrImageNeverPull: not present');
    // A sandbox being retried: the node keeps ContainerCreating and says why.
    expect(
      waitingReason([pod('ContainerCreating', 'Failed to create pod sandbox: no bridge')] as never),
    ).toBe('ContainerCreating: Failed to create pod sandbox: no bridge');
  });
});
