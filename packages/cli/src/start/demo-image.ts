// The demo image `npm start` runs: a small Debian root with python3 and the usual shell tools,
// built from Debian's packages by mmdebstrap (no registry, no Docker), as a one-layer OCI
// layout in the machine's cache. The cache key is the recipe, so a changed recipe rebuilds and
// an unchanged one is reused; a build lands in a temporary directory and is renamed into
// place, so an interrupted build never looks cached.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CliError } from '../errors.ts';
import { writeSingleLayerLayout } from './oci-layout-writer.ts';
import type { RunHostCommand } from './system-packages.ts';

export const DEMO_IMAGE_TAG = 'bookworm-python3';
/** The name the image is loaded under (a registry that never exists, so nothing is pulled). */
export const DEMO_IMAGE = `localhost/agent-sandbox/demo:${DEMO_IMAGE_TAG}`;

export interface DemoRecipe {
  suite: string;
  variant: string;
  packages: readonly string[];
}

export const DEMO_RECIPE: DemoRecipe = {
  suite: 'bookworm',
  variant: 'essential',
  packages: ['python3', 'procps', 'curl', 'ca-certificates', 'less', 'iproute2'],
};

const PATH_ENV = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Pure: the cache key of a recipe (first 16 hex digits of its hash). */
export function recipeKey(recipe: DemoRecipe): string {
  const text = JSON.stringify({ v: 1, ...recipe, packages: [...recipe.packages].sort() });
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Pure: mmdebstrap's argv for a recipe, writing a tarball to `out`. */
export function mmdebstrapArgs(recipe: DemoRecipe, out: string): string[] {
  const exclude = ['doc', 'man', 'info', 'locale'].map(
    (d) => `--dpkgopt=path-exclude=/usr/share/${d}/*`,
  );
  return [
    `--variant=${recipe.variant}`,
    `--include=${recipe.packages.join(',')}`,
    ...exclude,
    // sandboxd serves /workspace; the image has it so the daemon's root exists from the start.
    '--customize-hook=mkdir -p "$1/workspace"',
    recipe.suite,
    out,
  ];
}

export interface DemoImageOptions {
  /** Cache directory; the layout lands in `<cacheDir>/<key>/oci`. */
  cacheDir: string;
  run: RunHostCommand;
  /** One line per step (mmdebstrap's own progress lines included). */
  report: (line: string) => void;
  recipe?: DemoRecipe;
}

/** The layout directory of the demo image, built when not cached. */
export async function ensureDemoImage(o: DemoImageOptions): Promise<{
  layoutDir: string;
  cached: boolean;
}> {
  const recipe = o.recipe ?? DEMO_RECIPE;
  const dir = join(o.cacheDir, recipeKey(recipe));
  const layoutDir = join(dir, 'oci');
  if (existsSync(join(layoutDir, 'index.json'))) {
    o.report(`demo image: cached in ${layoutDir}`);
    return { layoutDir, cached: true };
  }
  const work = `${dir}.partial-${process.pid}`;
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  try {
    const tar = join(work, 'rootfs.tar');
    o.report(
      `demo image: building Debian ${recipe.suite} (${recipe.variant}) with ${recipe.packages.join(', ')} via mmdebstrap (about a minute, once)`,
    );
    const r = await o.run('mmdebstrap', mmdebstrapArgs(recipe, tar), {
      onLine: (line) => o.report(`demo image: ${line.replace(/^I: /, '')}`),
    });
    if (r.code !== 0)
      throw new CliError(
        'Failed',
        r.code === 127
          ? 'cannot build the demo image: mmdebstrap is not installed (as root: apt-get install -y mmdebstrap)'
          : `cannot build the demo image: mmdebstrap exited ${r.code}: ${r.output.trim().split('\n').slice(-5).join(' | ')}`,
      );
    await writeSingleLayerLayout(
      join(work, 'oci'),
      tar,
      { env: [PATH_ENV], cmd: ['/bin/bash'], workingDir: '/' },
      DEMO_IMAGE_TAG,
    );
    await rm(dir, { recursive: true, force: true });
    await rename(work, dir);
    o.report(`demo image: built into ${layoutDir}`);
    return { layoutDir, cached: false };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
