// The documented Kubernetes patterns for sandboxd (packages/sandboxd/deploy) pass
// `agent-sandbox validate`, run the way a user runs it.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const cli = `${repo}packages/cli/bin/agent-sandbox.js`;

function validate(file: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [cli, 'validate', '-f', file],
      { cwd: repo },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

describe('sandboxd deployment manifests', () => {
  it.each(['sidecar.yaml', 'init-container.yaml'])('%s validates', async (name) => {
    const r = await validate(`${repo}packages/sandboxd/deploy/${name}`);
    expect(r.out).toContain('1 valid, 0 invalid');
    expect(r.code).toBe(0);
  });
});
