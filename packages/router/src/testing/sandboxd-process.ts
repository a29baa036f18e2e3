// The router tests' backend: the real sandboxd, run as its own process from its entry point (the
// router's layer may not import sandboxd), serving only its legacy port on loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SANDBOXD_MAIN = fileURLToPath(new URL('../../../sandboxd/src/main.ts', import.meta.url));

/** Starts sandboxd over `root`; resolves once it logs "serving", with its legacy URL. */
export async function startSandboxdProcess(
  root: string,
): Promise<{ child: ChildProcess; legacyUrl: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      SANDBOXD_MAIN,
      '--root-dir',
      root,
      '--listen-host',
      '127.0.0.1',
      '--rest-port',
      '-1',
      '--grpc-port',
      '-1',
      '--legacy-port',
      '0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (b: Buffer) => (log += b.toString()));
  for (let i = 0; i < 200 && !log.includes('"serving"'); i++)
    await new Promise((r) => setTimeout(r, 50));
  const line = log.split('\n').find((l) => l.includes('"serving"'));
  if (!line) throw new Error(`sandboxd did not start: ${log}`);
  return { child, legacyUrl: (JSON.parse(line) as { legacy: string }).legacy };
}
