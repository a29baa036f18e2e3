// The CLI as it was before a given commit, for before/after start-time cases in one run: a
// detached `git worktree` of the base revision under the temp dir, a node_modules beside it
// whose third-party entries link to this checkout's and whose @agent-sandbox/* entries link to
// the base's own packages, and the base's own bundle built there (untimed).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Baseline {
  /** The base revision, as a short hash and subject. */
  describe: string;
  /** Its packages/cli/bin/agent-sandbox.js. */
  bin: string;
  remove(): void;
}

/**
 * The revision before the CLI's lazy verbs: the parent of the commit that added
 * packages/local/src/embedded.ts (the composition root landed with them).
 */
export function defaultBaseRevision(root: string): string {
  const added = execFileSync(
    'git',
    ['log', '--diff-filter=A', '--format=%H', '--', 'packages/local/src/embedded.ts'],
    { cwd: root, encoding: 'utf8' },
  )
    .trim()
    .split('\n')
    .at(-1);
  if (!added) throw new Error('cannot find the commit that added packages/local; pass --base REV');
  return `${added}^`;
}

export function prepareBaseline(root: string, revision: string): Baseline {
  const dir = join(mkdtempSync(join(tmpdir(), 'bench-startup-base-')), 'tree');
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  git('worktree', 'add', '--detach', dir, revision);
  const remove = (): void => {
    git('worktree', 'remove', '--force', dir);
    rmSync(join(dir, '..'), { recursive: true, force: true });
  };
  try {
    const modules = join(dir, 'node_modules');
    mkdirSync(join(modules, '@agent-sandbox'), { recursive: true });
    for (const entry of readdirSync(join(root, 'node_modules'))) {
      if (entry === '@agent-sandbox' || entry === '.bin') continue;
      symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
    }
    for (const pkg of readdirSync(join(dir, 'packages')))
      symlinkSync(join(dir, 'packages', pkg), join(modules, '@agent-sandbox', pkg));
    const built = spawnSync(process.execPath, [join(dir, 'packages/cli/bin/bundle.js')], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`building the base bundle failed:\n${built.stderr}`);
    return {
      describe: git('log', '-1', '--format=%h %s', revision),
      bin: join(dir, 'packages/cli/bin/agent-sandbox.js'),
      remove,
    };
  } catch (err: unknown) {
    remove();
    throw err;
  }
}
