import { describe, expect, it } from 'vitest';
import { HOST_TOOLS, installPackages, planSetup, type RunHostCommand } from './system-packages.ts';

const without =
  (...missing: string[]) =>
  (b: string): boolean =>
    !missing.includes(b);

describe('planSetup', () => {
  it('is ready when every tool is on PATH', () => {
    expect(planSetup(() => true, { isRoot: false, hasApt: true })).toEqual({ kind: 'ready' });
  });

  it('installs the missing packages as root with apt', () => {
    const plan = planSetup(without('runc', 'mmdebstrap'), { isRoot: true, hasApt: true });
    expect(plan).toMatchObject({ kind: 'install', packages: ['runc', 'mmdebstrap'] });
  });

  it('says what is missing and the command to run when it cannot install', () => {
    const plan = planSetup(without('nft', 'runsc'), { isRoot: false, hasApt: true });
    expect(plan).toMatchObject({
      kind: 'missing',
      required: [{ binary: 'nft' }],
      optional: [{ binary: 'runsc' }],
      hint: 'as root: apt-get install -y nftables runsc',
    });
    const noApt = planSetup(without('runc'), { isRoot: true, hasApt: false });
    expect(noApt).toMatchObject({
      kind: 'missing',
      hint: "install runc with this system's package manager (Debian package names)",
    });
  });

  it('covers what the node agent and the demo image run', () => {
    expect(HOST_TOOLS.map((t) => t.binary)).toEqual([
      'runc',
      'ip',
      'nft',
      'runsc',
      'bwrap',
      'mmdebstrap',
    ]);
  });
});

describe('installPackages', () => {
  it('runs apt-get update once, then install, and reports each package set up', async () => {
    const calls: string[] = [];
    const lines: string[] = [];
    const run: RunHostCommand = async (file, args, o) => {
      calls.push(`${file} ${args.join(' ')} ${o?.env?.['DEBIAN_FRONTEND'] ?? ''}`);
      o?.onLine?.('Setting up runc (1.1.5) ...');
      o?.onLine?.('Unpacking runc');
      return { code: 0, output: '' };
    };
    const plan = planSetup(without('runc'), { isRoot: true, hasApt: true });
    if (plan.kind !== 'install') throw new Error('expected an install plan');
    expect(await installPackages(plan, run, (l) => lines.push(l))).toEqual({
      ok: true,
      output: '',
    });
    expect(calls).toEqual([
      'apt-get update -qq noninteractive',
      'apt-get install -y -qq --no-install-recommends runc noninteractive',
    ]);
    expect(lines).toEqual([
      'setup: installing runc with apt-get, for runc (runc: runs sandbox containers)',
      'setup: Setting up runc (1.1.5) ...',
    ]);
  });

  it('stops at a failed update', async () => {
    const run: RunHostCommand = async () => ({ code: 100, output: 'E: no network' });
    const plan = planSetup(without('runc'), { isRoot: true, hasApt: true });
    if (plan.kind !== 'install') throw new Error('expected an install plan');
    expect(await installPackages(plan, run, () => undefined)).toEqual({
      ok: false,
      output: 'E: no network',
    });
  });
});
