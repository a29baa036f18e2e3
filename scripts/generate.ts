// `npm run generate`: regenerates every generated file from its source of truth.
//   packages/kube-types/src/core.gen.ts  <- packages/kube-types/openapi/k8s-openapi.json
//   packages/api/crds/*.yaml             <- packages/api (our types) + the same OpenAPI file
// `--check` writes nothing and exits 1 listing stale files (CI and a unit test use it).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { generatedFiles } from './generated-files.ts';

const check = process.argv.includes('--check');
const stale: string[] = [];
for (const { path, content } of generatedFiles()) {
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === content) continue;
  if (check) stale.push(path);
  else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
    console.log(`wrote ${path}`);
  }
}
if (check && stale.length > 0) {
  console.error(`stale generated files (run npm run generate):\n  ${stale.join('\n  ')}`);
  process.exit(1);
}
