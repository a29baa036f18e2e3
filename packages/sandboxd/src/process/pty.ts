// PTY without a native module: util-linux `script` allocates the pseudo-terminal and relays it
// over pipes (node-pty needs a compiler at install time and cannot go into a single-file bundle;
// ADR 0017). The command runs in `script`'s new session with the PTY as controlling terminal,
// so signals go to that session's process group and resizes use `stty -F <pty>`.
import { execFile } from 'node:child_process';
import { readFile, readlink } from 'node:fs/promises';

/** POSIX shell single-quoting. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** argv for `script` running `command` on a PTY, sized first when cols and rows are > 0. */
export function ptyArgv(script: string[], command: string[], cols: number, rows: number): string[] {
  const size = cols > 0 && rows > 0 ? `stty cols ${cols} rows ${rows} 2>/dev/null; ` : '';
  const line = `${size}exec ${command.map(shellQuote).join(' ')}`;
  return [...script, '-qfec', line, '/dev/null'];
}

/** The pid of `script`'s child (the session leader on the PTY), once it exists. */
export async function ptyChildPid(scriptPid: number): Promise<number | undefined> {
  try {
    const children = await readFile(`/proc/${scriptPid}/task/${scriptPid}/children`, 'utf8');
    const first = children.trim().split(/\s+/)[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

/** Sets the PTY's window size (the kernel then sends SIGWINCH to its foreground group). */
export async function resizePty(
  stty: string[],
  childPid: number,
  cols: number,
  rows: number,
): Promise<void> {
  const tty = await readlink(`/proc/${childPid}/fd/0`);
  if (!tty.startsWith('/dev/pts/'))
    throw new Error(`process ${childPid} has no pty on stdin (${tty})`);
  const [cmd = 'stty', ...pre] = stty;
  await new Promise<void>((resolve, reject) =>
    execFile(cmd, [...pre, '-F', tty, 'cols', String(cols), 'rows', String(rows)], (err) =>
      err ? reject(err) : resolve(),
    ),
  );
}
