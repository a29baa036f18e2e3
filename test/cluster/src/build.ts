import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ClusterError } from './errors.ts';
import { HARNESS_DIR } from './options.ts';

/**
 * Runs test/cluster/build.sh (a no-op while the pins are unchanged) and returns the bin
 * directory it prints last. Build progress goes to our stderr.
 */
export async function buildBinaries(cacheDir: string): Promise<string> {
  const script = join(HARNESS_DIR, 'build.sh');
  const child = spawn('bash', [script], {
    env: { ...process.env, AGENT_SANDBOX_CLUSTER_CACHE: cacheDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code === 3) {
    throw new ClusterError(
      'TOOLCHAIN_MISSING',
      'a build tool is missing (the message above names it and how to install it); install it and retry',
    );
  }
  if (code !== 0) {
    throw new ClusterError(
      'BUILD_FAILED',
      `test/cluster/build.sh exited with ${code} (see its output above); fix the cause and rerun ` +
        '`npm run cluster -- up`, or point AGENT_SANDBOX_CLUSTER_BIN at prebuilt binaries',
    );
  }
  const binDir = stdout.trim().split('\n').at(-1);
  if (!binDir) throw new ClusterError('BUILD_FAILED', 'build.sh printed no bin directory');
  return binDir;
}
