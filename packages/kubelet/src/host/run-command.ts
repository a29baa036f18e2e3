// One way to run a short host command (ip, runc state, mount) and collect its output.
import { spawn } from 'node:child_process';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file args` to completion; a missing binary resolves with code 127, never rejects. */
export function runCommand(
  file: string,
  args: readonly string[],
  options: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.env ? { env: options.env } : {}),
      timeout: options.timeoutMs ?? 30_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => resolve({ code: 127, stdout, stderr: stderr + e.message }));
    child.on('close', (code, signal) =>
      resolve({ code: code ?? (signal ? 128 + signalNumber(signal) : 1), stdout, stderr }),
    );
    child.stdin.on('error', () => undefined); // the command may exit before reading stdin
    child.stdin.end(options.input ?? '');
  });
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

export function signalNumber(signal: NodeJS.Signals): number {
  return SIGNALS[signal] ?? 1;
}
