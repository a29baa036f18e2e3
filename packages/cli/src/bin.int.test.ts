// `npm install` links the CLI: `npx agent-sandbox` runs from the repository root in a real process.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');

describe('the agent-sandbox bin', () => {
  it('runs through npx from the repository root', () => {
    const out = execFileSync('npx', ['--no-install', 'agent-sandbox', '--version'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('0.1.0');
  });

  it('exits 1 with a problem line for an invalid manifest on stdin', () => {
    const manifest =
      'apiVersion: agents.x-k8s.io/v1beta1\nkind: Sandbox\nmetadata: {name: x}\nspec: {}\n';
    let status = 0;
    let stdout = '';
    try {
      execFileSync('npx', ['--no-install', 'agent-sandbox', 'validate', '-f', '-'], {
        cwd: ROOT,
        input: manifest,
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    } catch (err: unknown) {
      const e = err as { status: number; stdout: string };
      status = e.status;
      stdout = e.stdout;
    }
    expect(status).toBe(1);
    expect(stdout).toBe('<stdin>#1 Sandbox/x: spec.podTemplate: Required value\n');
  });
});
