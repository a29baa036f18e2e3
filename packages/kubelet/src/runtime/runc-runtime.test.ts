import { describe, expect, it } from 'vitest';
import { runcRuntime, runscRuntime } from './runc-runtime.ts';

describe.each([
  { name: 'runc', runtime: runcRuntime('/state/runc'), global: [] as string[] },
  {
    name: 'runsc',
    runtime: runscRuntime('/state/runsc'),
    global: ['--platform=ptrace', '--network=sandbox'],
  },
])('$name execCommand', ({ runtime, global }) => {
  const head = ['--root', expect.stringMatching(/^\/state\//), ...global, 'exec'];

  it("leaves the container's cwd and env to the runtime when the exec sets none", () => {
    const cmd = runtime.execCommand('c1', ['sh', '-c', 'pwd'], { tty: false });
    expect(cmd.args).toEqual([...head, 'c1', 'sh', '-c', 'pwd']);
  });

  it("passes the exec's own cwd and env (over the container's) before the id", () => {
    const cmd = runtime.execCommand('c1', ['env'], {
      tty: true,
      cwd: '/work dir',
      env: { A: 'x=y', EMPTY: '' },
    });
    expect(cmd.args).toEqual([
      ...head,
      '--cwd=/work dir',
      '--env=A=x=y',
      '--env=EMPTY=',
      '-t',
      'c1',
      'env',
    ]);
  });

  it('refuses a relative cwd or a malformed variable name, naming the field', () => {
    expect(() => runtime.execCommand('c1', ['env'], { tty: false, cwd: 'work' })).toThrow(
      'exec.cwd: must be an absolute path, not "work"',
    );
    for (const name of ['', 'A=B', 'A\0'])
      expect(() =>
        runtime.execCommand('c1', ['env'], { tty: false, env: { [name]: 'v' } }),
      ).toThrow(/^exec\.env: /);
    expect(() => runtime.execCommand('c1', ['env'], { tty: false, env: { A: 'v\0' } })).toThrow(
      'exec.env.A: must be a string without NUL',
    );
  });
});
