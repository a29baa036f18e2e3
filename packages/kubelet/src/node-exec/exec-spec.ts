// What a node-exec start frame carries, from the container's own OCI process config (the bundle
// the agent wrote): env and working directory, as `runc exec` applies them to an exec, with the
// exec's own cwd and env over them (the same ExecProcess the runtime's exec gets). No uid or
// gid: the daemon already runs as the process user (the runtime's exec started it with the same
// config, supplementary groups included), and a setuid by the daemon would make libuv drop those
// groups (setgroups(0)) — the exec'd process would differ from the container's.
import type { NodeExecStart } from '@agent-sandbox/protocol/node-exec';
import { checkExecProcess, type ExecProcess } from '../runtime/container-runtime.ts';

/**
 * Pure: the start frame for `argv` in a container whose config.json `process` is `proc`.
 * Throws InvalidArgumentError naming `exec.cwd` / `exec.env` for a malformed `own`.
 */
export function execStart(
  proc: Record<string, unknown>,
  argv: readonly string[],
  own: ExecProcess = {},
): NodeExecStart {
  checkExecProcess(own);
  const env: Record<string, string> = {};
  for (const kv of Array.isArray(proc['env']) ? (proc['env'] as unknown[]) : []) {
    if (typeof kv !== 'string') continue;
    const at = kv.indexOf('=');
    if (at > 0) env[kv.slice(0, at)] = kv.slice(at + 1);
  }
  Object.assign(env, own.env);
  const cwd = typeof proc['cwd'] === 'string' && proc['cwd'].startsWith('/') ? proc['cwd'] : '/';
  return { argv: [...argv], env, cwd: own.cwd ?? cwd };
}
