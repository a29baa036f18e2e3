// Runs the CLI in-process with captured streams, for tests.
import type { CommandIO } from './io.ts';
import { main } from './main.ts';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], stdin = ''): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    stdin: () => stdin,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
