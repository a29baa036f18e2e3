// ip, nft and sysctl calls with errors that name the command and the fix.
import { writeFile } from 'node:fs/promises';
import { KubeletError } from '../errors.ts';
import { runCommand } from '../host/run-command.ts';

export async function ip(args: string[], what: string): Promise<string> {
  const r = await runCommand('ip', args);
  if (r.code !== 0)
    throw new KubeletError(
      'Network',
      `cannot ${what}: ip ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}` +
        (r.code === 127 ? ' (install iproute2)' : ''),
    );
  return r.stdout;
}

/**
 * Runs `lines` (ip commands without the leading `ip`) in one `ip -batch` process, inside `netns`
 * when given: one process instead of one per command, which is most of a Pod network's setup
 * time on a loaded machine. ip stops at the first failing line; the error names it.
 */
export async function ipBatch(
  lines: readonly string[],
  what: string,
  netns?: string,
): Promise<void> {
  const args = [...(netns ? ['-n', netns] : []), '-batch', '-'];
  const r = await runCommand('ip', args, { input: `${lines.join('\n')}\n` });
  if (r.code === 0) return;
  const n = Number(/Command failed -:(\d+)/.exec(r.stderr)?.[1] ?? NaN);
  const line = lines[n - 1];
  throw new KubeletError(
    'Network',
    `cannot ${what}: ip ${args.join(' ')} exited ${r.code}` +
      (line ? ` at "${line}"` : '') +
      `: ${r.stderr.replace(/Command failed -:\d+/, '').trim()}` +
      (r.code === 127 ? ' (install iproute2)' : ''),
  );
}

/** Runs an nft script as one transaction (all or nothing). */
export async function nft(script: string, what: string): Promise<void> {
  const r = await runCommand('nft', ['-f', '-'], { input: script });
  if (r.code !== 0)
    throw new KubeletError(
      'Network',
      `cannot ${what}: nft exited ${r.code}: ${r.stderr.trim()}` +
        (r.code === 127 ? ' (install nftables)' : ''),
    );
}

export async function nftTables(): Promise<string[]> {
  const r = await runCommand('nft', ['list', 'tables']);
  return r.code === 0
    ? r.stdout
        .split('\n')
        .map((l) => l.replace(/^table /, '').trim())
        .filter((l) => l !== '')
    : [];
}

export async function sysctl(path: string, value: string): Promise<void> {
  try {
    await writeFile(`/proc/sys/${path}`, value);
  } catch (err: unknown) {
    throw new KubeletError(
      'Network',
      `cannot set ${path.replaceAll('/', '.')}=${value}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}
