// A node-exec TTY session (ADR 0037): the command runs on a pseudo-terminal that util-linux
// `script` allocates (as the process API's PTY does, process/pty.ts), sized before the command
// starts, so `stty size` in its first line already sees the client's terminal. Resizes and
// signals go to the session on the pty, the leader `script` forked.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import type { NodeExecStart, TerminalSize } from '@agent-sandbox/protocol/node-exec';
import { ptyChildPid, shellQuote } from '../process/pty.ts';

/** The helpers a TTY session needs, as the daemon was told (--pty-command, --stty-command). */
export interface TtyCommands {
  ptyCommand: string[];
  sttyCommand: string[];
}

/** `script` runs its command line with $SHELL, else /bin/sh. */
const SHELL = '/bin/sh';

/**
 * Pure: what to spawn for a TTY exec of `spec`: `script` running the argv on a pty, sized first
 * when a size is known. `script` picks the shell from SHELL: when the container's env has none,
 * /bin/sh is named for it and unset again before the command, so its env is the container's.
 */
export function ttyLaunch(
  commands: TtyCommands,
  spec: NodeExecStart,
): { argv: string[]; env: Record<string, string> } {
  const parts: string[] = [];
  const named = spec.env['SHELL'] === undefined;
  if (named) parts.push('unset SHELL');
  const size: TerminalSize | undefined = spec.size;
  if (size && size.cols > 0 && size.rows > 0)
    parts.push(
      `${commands.sttyCommand.map(shellQuote).join(' ')} cols ${size.cols} rows ${size.rows} 2>/dev/null`,
    );
  parts.push(`exec ${spec.argv.map(shellQuote).join(' ')}`);
  return {
    argv: [...commands.ptyCommand, '-qfec', parts.join('; '), '/dev/null'],
    env: named ? { ...spec.env, SHELL } : spec.env,
  };
}

/** Why a TTY session cannot start here, or undefined (the agent then takes the runtime's exec). */
export function ttyUnavailable(commands: TtyCommands, spec: NodeExecStart): string | undefined {
  const shell = spec.env['SHELL'] ?? SHELL;
  if (commands.ptyCommand.length === 0) return 'no pty helper (--pty-command)';
  if (!existsSync(shell)) return `no ${shell} in the container for the pty helper`;
  return undefined;
}

/**
 * The pid of the session leader on `script`'s pty: its child, from /proc/<pid>/task/<pid>/children
 * where the kernel has it, else by scanning /proc for the process whose parent it is (gVisor's
 * /proc has no `children`).
 */
export async function ttyLeader(scriptPid: number): Promise<number | undefined> {
  const direct = await ptyChildPid(scriptPid);
  if (direct !== undefined) return direct;
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Fields after the command's closing parenthesis: state, ppid, ...
    const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    if (ppid === String(scriptPid)) return Number(entry);
  }
  return undefined;
}
