// Builds the daemon into one self-contained ESM file (no node_modules needed), which the node
// agent mounts read-only into every Pod. esbuild is a build-time tool: imported lazily.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const META_URL = ['import', 'meta', 'url'].join('.');

export const SANDBOXD_ENTRY = fileURLToPath(new URL('./main.ts', import.meta.url));
/** The code-cached launch's bundle exports runSandboxd and runs nothing (code-cache.ts). */
export const SANDBOXD_COMMONJS_ENTRY = fileURLToPath(new URL('./run.ts', import.meta.url));

/** Writes the bundle to `outFile`; resolves with its size in bytes. */
export function bundleSandboxd(outFile: string): Promise<number> {
  return bundle(SANDBOXD_ENTRY, outFile, 'esm');
}

/**
 * Writes the daemon as one CommonJS file exporting runSandboxd, for the code-cached launch (a
 * code cache needs a script vm.Script compiles, not an ES module); resolves with its size.
 */
export function bundleSandboxdCommonJs(outFile: string): Promise<number> {
  return bundle(SANDBOXD_COMMONJS_ENTRY, outFile, 'cjs');
}

async function bundle(entry: string, outFile: string, format: 'esm' | 'cjs'): Promise<number> {
  const { build } = await import('esbuild');
  await mkdir(path.dirname(outFile), { recursive: true });
  const result = await build({
    entryPoints: [entry],
    outfile: outFile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format,
    minify: true,
    metafile: true,
    legalComments: 'none',
    // CommonJS dependencies (grpc-js, busboy) call require(); give the ESM bundle one. The
    // banner spells import.meta.url in pieces: the CLI's bundler rewrites that token in source
    // text to this file's URL, which inside a string literal broke the CLI build.
    ...(format === 'esm'
      ? {
          banner: {
            js: `import { createRequire as __cr } from 'node:module'; const require = __cr(${META_URL});`,
          },
        }
      : {}),
    logLevel: 'error',
  });
  return Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
}
