// The bin launcher (bin/agent-sandbox.js, ADR 0013) on a private copy of the workspace, run the
// way users run it: from the bundle while it is fresh, from the sources (tsx) after a source
// edit, and from the bundle again once it is rebuilt; and a dist copied into another tree, judged
// by that tree's sources. A copy, because the test edits a source file and other sessions run the
// shared tree's bin meanwhile.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
let copy: string;

/** packages/ (without node_modules and dist) and a node_modules whose workspace links point here. */
function copyWorkspace(to: string): void {
  for (const file of ['package.json', 'tsconfig.json']) cpSync(join(ROOT, file), join(to, file));
  cpSync(join(ROOT, 'packages'), join(to, 'packages'), {
    recursive: true,
    filter: (src) => !/\/(node_modules|dist|coverage|\.test-results)$/.test(src),
  });
  linkNodeModules(to);
}

/** A node_modules in `to`: third-party packages from ROOT's, workspace links to `to`'s packages. */
function linkNodeModules(to: string): void {
  const modules = join(to, 'node_modules');
  mkdirSync(join(modules, '@agent-sandbox'), { recursive: true });
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry === '@agent-sandbox' || entry === '.bin') continue;
    symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry));
  }
  for (const pkg of readdirSync(join(to, 'packages')))
    symlinkSync(join(to, 'packages', pkg), join(modules, '@agent-sandbox', pkg));
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function bin(args: string[], env: Record<string, string> = {}, tree = copy): Run {
  const r = spawnSync(
    process.execPath,
    [join(tree, 'packages/cli/bin/agent-sandbox.js'), ...args],
    {
      cwd: tree,
      encoding: 'utf8',
      env: { ...process.env, AGENT_SANDBOX_LAUNCH_DEBUG: '1', ...env },
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function build(): string {
  const r = spawnSync(process.execPath, [join(copy, 'packages/cli/bin/bundle.js')], {
    cwd: copy,
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stderr;
}

/** `agent-sandbox start` until it prints its kubeconfig line, then SIGTERM. */
async function startUntilReady(env: Record<string, string>): Promise<Run> {
  const child = spawn(
    process.execPath,
    [
      join(copy, 'packages/cli/bin/agent-sandbox.js'),
      'start',
      '--data-dir',
      join(copy, 'state'),
      '--port',
      '0',
    ],
    { cwd: copy, env: { ...process.env, AGENT_SANDBOX_LAUNCH_DEBUG: '1', ...env } },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stdout = '';
  for await (const line of createInterface({ input: child.stdout })) {
    stdout += `${line}\n`;
    if (line.startsWith('kubeconfig: ')) break;
  }
  child.kill('SIGTERM');
  return { status: await exited, stdout, stderr };
}

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'launcher-'));
  copyWorkspace(copy);
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('the agent-sandbox launcher', () => {
  it('runs from the bundle, falls back to the edited sources, and uses the rebuilt bundle', async () => {
    // No bundle yet: the sources run, with no error.
    const none = bin(['--version']);
    expect(none).toMatchObject({ status: 0, stdout: '0.1.0\n' });
    expect(none.stderr).toMatch(/source through tsx: no bundle/);

    expect(build()).toMatch(/agent-sandbox bundle: .* from \d+ files/);
    const fresh = bin(['--help'], { AGENT_SANDBOX_LAUNCH: 'bundle' });
    expect(fresh.status, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(/launch: bundle .*dist\/agent-sandbox\.js/);
    expect(fresh.stdout).toMatch(/Isolated, stateful, singleton sandboxes/);
    // The real command from the bundle: the embedded API server and controller start.
    const started = await startUntilReady({ AGENT_SANDBOX_LAUNCH: 'bundle' });
    expect(started.status, started.stderr).toBe(0);
    expect(started.stderr).toMatch(/launch: bundle/);
    expect(started.stdout).toMatch(/^serving https:\/\/127\.0\.0\.1:\d+ .*ms after process start/);

    // A source edit: the bundle is stale, the edited sources run.
    const main = join(copy, 'packages/cli/src/main.ts');
    writeFileSync(
      main,
      readFileSync(main, 'utf8').replace('Isolated, stateful', 'EDITED: isolated, stateful'),
    );
    const edited = bin(['--help']);
    expect(edited.status, edited.stderr).toBe(0);
    expect(edited.stderr).toMatch(/source through tsx: .*packages\/cli\/src\/main\.ts changed/);
    expect(edited.stdout).toMatch(/EDITED: isolated/);
    const required = bin(['--help'], { AGENT_SANDBOX_LAUNCH: 'bundle' });
    expect(required.status).toBe(1);
    expect(required.stderr).toMatch(/AGENT_SANDBOX_LAUNCH=bundle but .*main\.ts changed/);

    // Rebuilt: the bundle runs again and carries the edit.
    build();
    const rebuilt = bin(['--help'], { AGENT_SANDBOX_LAUNCH: 'bundle' });
    expect(rebuilt.status, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/EDITED: isolated/);

    // A touch deep in a workspace dependency is an edit too (mtime), even with equal contents.
    const dep = join(copy, 'packages/apiserver/src/storage/sqlite/group-commit.ts');
    utimesSync(dep, new Date(), new Date(Date.now() + 5000));
    expect(bin(['--version']).stderr).toMatch(/source through tsx: .*group-commit\.ts changed/);
  });

  it("judges a dist copied into another tree by that tree's sources, and reads that tree's files", () => {
    build();
    const other = mkdtempSync(join(tmpdir(), 'launcher-other-'));
    const away = `${copy}-away`;
    try {
      // `cp -a` of a built tree: same sizes and mtimes (cpSync's are whole milliseconds), so the
      // bundle is fresh there too. With the tree it was built in moved away, it must still run,
      // reading nothing of that tree.
      for (const entry of ['package.json', 'tsconfig.json', 'packages']) {
        const cp = spawnSync('cp', ['-a', join(copy, entry), join(other, entry)]);
        expect(cp.status, String(cp.stderr)).toBe(0);
      }
      linkNodeModules(other);
      renameSync(copy, away);
      const moved = bin(['--version'], { AGENT_SANDBOX_LAUNCH: 'bundle' }, other);
      expect(moved, moved.stderr).toMatchObject({ status: 0, stdout: '0.1.0\n' });
      expect(moved.stderr).toContain(`launch: bundle ${join(other, 'packages/cli/dist')}`);
      renameSync(away, copy);

      // An edit in the copy, the tree it was built in untouched: the copy's sources run, or,
      // when the bundle is required, the launcher refuses naming the edited file.
      const main = join(other, 'packages/cli/src/main.ts');
      const text = readFileSync(main, 'utf8');
      writeFileSync(main, text.replace(/isolated, stateful/i, 'EDITED IN THE COPY: $&'));
      const edited = bin(['--help'], {}, other);
      expect(edited.status, edited.stderr).toBe(0);
      expect(edited.stderr).toMatch(/source through tsx: packages\/cli\/src\/main\.ts changed/);
      expect(edited.stdout).toMatch(/EDITED IN THE COPY: /);
      const required = bin(['--help'], { AGENT_SANDBOX_LAUNCH: 'bundle' }, other);
      expect(required.status).toBe(1);
      expect(required.stderr).toMatch(/AGENT_SANDBOX_LAUNCH=bundle but .*main\.ts changed/);

      // A manifest of an older bundle.js (absolute paths) is never trusted.
      const manifestPath = join(other, 'packages/cli/dist/agent-sandbox.manifest.json');
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
        inputs: Record<string, unknown>;
      };
      manifest.inputs = Object.fromEntries(
        Object.entries(manifest.inputs).map(([p, s]) => [join(copy, p), s]),
      );
      writeFileSync(manifestPath, JSON.stringify(manifest));
      const old = bin(['--version'], { AGENT_SANDBOX_LAUNCH: 'bundle' }, other);
      expect(old.status).toBe(1);
      expect(old.stderr).toMatch(/names \/\S+ by its absolute path \(an older build\)/);
    } finally {
      try {
        renameSync(away, copy);
      } catch {
        // already back
      }
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('rejects an unknown AGENT_SANDBOX_LAUNCH naming the variable', () => {
    const r = bin(['--version'], { AGENT_SANDBOX_LAUNCH: 'fast' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/AGENT_SANDBOX_LAUNCH=fast is not one of auto, bundle, source/);
  });
});
