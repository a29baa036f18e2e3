// Regenerates packages/apiserver/src/protobuf/testdata/golden.json: every object in
// testdata/objects.json run through the real Kubernetes Go types (k8s.io/api etc. at the pinned
// version) to get the protobuf body client-go sends and the JSON kube-apiserver prints.
// Run: `npx tsx scripts/protobuf/golden.ts` (needs `go` and the Go module proxy).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from './capture-k8s-proto.ts';

const testdata = fileURLToPath(
  new URL('../../packages/apiserver/src/protobuf/testdata/', import.meta.url),
);

function main(): void {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-proto-golden-'));
  try {
    copyFileSync(fileURLToPath(new URL('golden/main.go', import.meta.url)), join(dir, 'main.go'));
    writeFileSync(join(dir, 'go.mod'), 'module golden\n\ngo 1.24\n');
    const go = (...args: string[]): string =>
      execFileSync('go', args, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 });
    for (const m of ['k8s.io/api', 'k8s.io/apimachinery', 'k8s.io/apiextensions-apiserver']) {
      go('get', `${m}@${VERSION}`);
    }
    go('mod', 'tidy');
    const out = execFileSync('go', ['run', '.'], {
      cwd: dir,
      input: readFileSync(join(testdata, 'objects.json')),
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    const target = join(testdata, 'golden.json');
    writeFileSync(target, out);
    execFileSync('npx', ['prettier', '--write', target], { stdio: 'inherit' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
