// How a runtime-path exec's host process reports its end: a signal that killed the process the
// node spawned is named beside 128 + its number, so a SIGKILL of bwrap or nsenter on the host
// reads apart from an exit status of 137 passed up from a command killed inside the sandbox.
import { describe, expect, it } from 'vitest';
import { PATH_ENV } from '../runtime/foreground-process.ts';
import { spawnStreamProcess } from './host-process.ts';

const NO_STREAMS = { stdin: false, stdout: false, stderr: false, tty: false } as const;

const exitOf = async (script: string) =>
  (await spawnStreamProcess({ file: '/bin/sh', args: ['-c', script], env: PATH_ENV }, NO_STREAMS))
    .exited;

describe('spawnStreamProcess exit', () => {
  it('names the signal that killed the host process', async () => {
    expect(await exitOf('kill -KILL $$')).toEqual({ exitCode: 137, signal: 'SIGKILL' });
  });

  it('counts any signal as 128 + its number, not only KILL and TERM', async () => {
    expect(await exitOf('kill -SEGV $$')).toEqual({ exitCode: 139, signal: 'SIGSEGV' });
  });

  it('reports an exit status of 137 as a plain exit, with no signal', async () => {
    expect(await exitOf('exit 137')).toEqual({ exitCode: 137 });
  });
});
