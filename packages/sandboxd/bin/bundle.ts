// `npx tsx packages/sandboxd/bin/bundle.ts [out]`: writes dist/sandboxd.mjs (README "Packaging").
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleSandboxd } from '../src/bundle.ts';

const out = process.argv[2] ?? fileURLToPath(new URL('../dist/sandboxd.mjs', import.meta.url));
const bytes = await bundleSandboxd(path.resolve(out));
process.stdout.write(`${out} ${(bytes / 1024).toFixed(0)} KiB\n`);
