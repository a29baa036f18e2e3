// `agent-sandbox controller` in-process: help, version, and the fail-fast paths (no API server).
import { describe, expect, it } from 'vitest';
import { runCli } from '../testing.ts';
import { CONTROLLER_NAMES } from './controller-flags.ts';
import { CONTROLLERS } from './controller.ts';

describe('agent-sandbox controller (in-process)', () => {
  it('is listed in the program help and prints its own flag help', async () => {
    expect((await runCli(['--help'])).stdout).toMatch(/controller/);
    const help = await runCli(['controller', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: agent-sandbox controller \[flags\]/);
    expect(help.stdout).toMatch(/--kube-api-qps <value> +.*\(default -1\)/);
    expect(help.stdout).toMatch(/--leader-elect +.*\(default true\)/);
  });

  it('prints a version block for --version', async () => {
    const v = await runCli(['controller', '--version']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^agent-sandbox controller\n {2}version: 0\.1\.0\n/);
  });

  it('fails fast with exit 2 and the message on unknown and invalid flags', async () => {
    const unknown = await runCli(['controller', '--metrics-addr=:8080']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/^error: unknown flag --metrics-addr/);
    const invalid = await runCli(['controller', '--kube-api-qps', 'fast']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toBe(
      'error: invalid value "fast" for flag --kube-api-qps: "fast" is not a number (default -1)\n',
    );
  });

  it('refuses --controllers naming extension controllers without --extensions, and nothing to run', async () => {
    const r = await runCli(['controller', '--controllers=sandbox,sandboxclaim']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe(
      'error: --controllers: sandboxclaim run only with --extensions; add --extensions or drop them from --controllers\n',
    );
    const idle = await runCli(['controller', '--controllers=none', '--enable-webhook=false']);
    expect(idle.code).toBe(2);
    expect(idle.stderr).toMatch(/^error: --controllers=none with --enable-webhook=false leaves/);
  });

  it('registers the Sandbox controller and the three extension controllers', () => {
    expect(Object.keys(CONTROLLERS)).toEqual([
      'sandbox',
      'sandboxclaim',
      'sandboxwarmpool',
      'sandboxtemplate',
    ]);
    expect(CONTROLLER_NAMES).toEqual(Object.keys(CONTROLLERS));
    expect(CONTROLLERS['sandbox']?.create).toBeTypeOf('function');
    expect(Object.values(CONTROLLERS).every((c) => c.create !== undefined)).toBe(true);
    expect(
      Object.entries(CONTROLLERS)
        .filter(([, c]) => c.extension)
        .map(([n]) => n),
    ).toEqual(['sandboxclaim', 'sandboxwarmpool', 'sandboxtemplate']);
  });
});
