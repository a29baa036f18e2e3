// The published package works outside this repository: bin/pack.js builds and packs it, a
// project in a temp directory installs the tarball (with only its one dependency beside it),
// type-checks a TypeScript consumer against the shipped declarations, and runs a JavaScript
// consumer that creates, lists, runs a command in, writes a file to and kills a sandbox on the
// embedded API server with a real sandboxd.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSdkWorld, type SdkWorld } from './testing/world.ts';
// eslint-disable-next-line no-restricted-imports -- the consumer's sandbox runs a real daemon
import { startSandboxd, type SandboxdHandle } from '@agent-sandbox/sandboxd';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const CONSUMER_TS = `
import { NotFoundError, Sandbox, SdkError, type SandboxInfo, type SdkErrorCode } from '@agent-sandbox/sdk';
export async function main(kubeconfig: string, namespace: string): Promise<SandboxInfo[]> {
  await using sandbox = await Sandbox.create({ kubeconfig, namespace, warmPool: 'pool', labels: { app: 'x' } });
  const code: SdkErrorCode = new NotFoundError('x').code;
  void code;
  void (sandbox.claimName satisfies string | undefined);
  const err: unknown = undefined;
  if (err instanceof SdkError) console.log(err.code);
  return Sandbox.list({ kubeconfig, namespace, labels: { app: 'x' } });
}
`;

const CONSUMER_JS = `
import { NotFoundError, Sandbox } from '@agent-sandbox/sdk';
const [kubeconfig, namespace, rest, grpc] = process.argv.slice(2);
const opts = { kubeconfig, namespace, hostEnv: {}, sandboxdPorts: { rest: Number(rest), grpc: Number(grpc) } };
const sandbox = await Sandbox.create({ ...opts, warmPool: 'pool', labels: { app: 'packed' } });
const listed = await Sandbox.list({ ...opts, labels: { app: 'packed' } });
const run = await sandbox.commands.run('echo packed');
await sandbox.files.write('packed.txt', 'file');
const file = await sandbox.files.read('packed.txt');
const killed = await sandbox.kill();
await sandbox.close();
const missing = await Sandbox.connect(sandbox.id, opts).catch((e) => e);
console.log(JSON.stringify({
  ids: listed.map((i) => i.id), id: sandbox.id, state: listed[0]?.state, killed, run, file,
  notFound: missing instanceof NotFoundError, code: missing.code,
}));
`;

describe('the packed @agent-sandbox/sdk outside the repository', () => {
  let world: SdkWorld;
  let project: string;
  let daemon: SandboxdHandle;
  beforeAll(async () => {
    world = await openSdkWorld();
    project = mkdtempSync(join(tmpdir(), 'sdk-consumer-'));
    daemon = await startSandboxd({
      rootDir: join(project, 'root'),
      listenHost: '127.0.0.1',
      restPort: 0,
      grpcPort: 0,
      legacyPort: -1,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    await world.createTemplate('tpl');
    await world.createPool('pool', 'tpl', 1);
    const out = join(project, 'pack');
    mkdirSync(out);
    const { stdout } = await run(process.execPath, [join(ROOT, 'packages/sdk/bin/pack.js'), out]);
    const tarball = stdout.trim().split('\n').pop() ?? '';
    const target = join(project, 'node_modules/@agent-sandbox/sdk');
    mkdirSync(target, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
    // The package's one dependency, and Node's types for the TypeScript consumer.
    for (const dep of ['@opentelemetry/api', '@types/node', 'undici-types'])
      cpSync(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep), {
        recursive: true,
        dereference: true,
      });
    writeFileSync(join(project, 'package.json'), '{"type":"module","private":true}\n');
  }, 300_000);
  afterAll(async () => {
    await daemon?.close();
    await world?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('type-checks a strict TypeScript consumer against the shipped declarations', async () => {
    writeFileSync(join(project, 'consumer.ts'), CONSUMER_TS);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          types: ['node'],
          lib: ['ES2023', 'ESNext.Disposable'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', project]).catch(
      (e: { stdout: string }) => ({ stdout: e.stdout, failed: true }),
    );
    expect(result.stdout).toBe('');
  });

  it('runs a JavaScript consumer against the embedded API server', async () => {
    writeFileSync(join(project, 'consumer.mjs'), CONSUMER_JS);
    const { stdout } = await run(
      process.execPath,
      [
        'consumer.mjs',
        world.kubeconfigPath,
        world.namespace,
        new URL(daemon.restUrl ?? '').port,
        daemon.grpcAddress?.split(':').pop() ?? '',
      ],
      { cwd: project },
    );
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toEqual({
      ids: [result['id']],
      id: expect.stringMatching(/^sandbox-/),
      state: 'Running',
      killed: true,
      run: { exitCode: 0, stdout: 'packed\n', stderr: '' },
      file: 'file',
      notFound: true,
      code: 'NotFound',
    });
  });
});
