// The legacy /execute semantics (dataplane §5, §13.4): shlex-split, no shell, cwd = root, its own
// session; every failure is a 200 result with exit_code 1 and the reason in stderr, the way
// python-runtime words it. A timeout kills the process group and sets `timed_out`.
import type { ExecutionResult } from '@agent-sandbox/protocol';
import { LegacyMessage } from '@agent-sandbox/protocol';
import { errnoCode, SandboxdError } from './errors.ts';
import { runToCompletion } from './exec.ts';
import { ShlexError, shlexSplit } from './shlex.ts';

export interface LegacyExecuteOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutSeconds: number;
  signal?: AbortSignal;
}

/** Python's repr of a float (`1` → `1.0`) and of a list of strings. */
const pyFloat = (n: number) => (Number.isInteger(n) ? `${n}.0` : String(n));
const pyList = (xs: string[]) =>
  `[${xs.map((x) => `'${x.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`;

const failed = (reason: string, timedOut = false): ExecutionResult => ({
  stdout: '',
  stderr: LegacyMessage.executeFailed(reason),
  exit_code: 1,
  timed_out: timedOut,
});

function startFailure(err: unknown, argv0: string): string {
  const cause = err instanceof SandboxdError ? err.cause : err;
  switch (errnoCode(cause)) {
    case 'ENOENT':
      return `[Errno 2] No such file or directory: '${argv0}'`;
    case 'EACCES':
      return `[Errno 13] Permission denied: '${argv0}'`;
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

export async function legacyExecute(o: LegacyExecuteOptions): Promise<ExecutionResult> {
  let argv: string[];
  try {
    argv = shlexSplit(o.command);
  } catch (err: unknown) {
    if (err instanceof ShlexError) return failed(err.message);
    throw err;
  }
  const argv0 = argv[0];
  if (argv0 === undefined) return failed('list index out of range');
  try {
    const r = await runToCompletion({
      argv,
      cwd: o.cwd,
      env: o.env,
      timeoutMs: o.timeoutSeconds * 1000,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    if (r.timedOut) {
      return failed(
        `Command '${pyList(argv)}' timed out after ${pyFloat(o.timeoutSeconds)} seconds`,
        true,
      );
    }
    return {
      stdout: r.stdout.toString('utf8'),
      stderr: r.stderr.toString('utf8'),
      exit_code: r.signal === undefined ? r.exitCode : -r.signal,
      timed_out: false,
    };
  } catch (err: unknown) {
    return failed(startFailure(err, argv0));
  }
}
