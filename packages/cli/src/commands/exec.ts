// `agent-sandbox exec ID -- COMMAND...`: the command runs in the sandbox's Pod through the API
// server's pods/exec (ADR 0029: any image, any cluster, what kubectl does), streaming stdout and
// stderr; -i forwards stdin, -t asks for a terminal (raw mode and resize when this is one). The
// exit code is the command's.
import type { ClusterOptions } from '../cluster-options.ts';
import { FlagError } from '../errors.ts';
import { withStreams, type CommandIO } from '../io.ts';
import { execInPod } from '../pod-streams/remote-command.ts';
import { sandboxPod } from './sandbox-pod.ts';
import { sandboxBoundary } from './sdk-connection.ts';

export interface ExecFlags extends ClusterOptions {
  stdin?: boolean;
  tty?: boolean;
  container?: string;
}

export function runExec(
  id: string,
  command: string[],
  opts: ExecFlags,
  io: CommandIO,
): Promise<number> {
  if (command.length === 0)
    throw new FlagError('exec needs a command after the id, e.g. agent-sandbox exec ID -- ls -l');
  const full = withStreams(io);
  const tty = opts.tty === true;
  return sandboxBoundary(async () => {
    const pod = await sandboxPod(id, opts);
    const raw = tty && full.terminal.isTTY;
    if (raw) full.terminal.setRawMode(true);
    try {
      const { columns, rows, onResize } = full.terminal;
      return await execInPod(pod.config, {
        pod,
        container: opts.container ?? pod.container,
        command,
        tty,
        ...(opts.stdin ? { stdin: full.stdinStream } : {}),
        stdout: full.stdoutStream,
        stderr: full.stderrStream,
        ...(raw && columns && rows ? { size: { width: columns, height: rows } } : {}),
        ...(raw && onResize
          ? {
              onResize: (send) => onResize((s) => send({ width: s.columns, height: s.rows })),
            }
          : {}),
      });
    } finally {
      if (raw) full.terminal.setRawMode(false);
    }
  });
}
