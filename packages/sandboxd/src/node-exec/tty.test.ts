// What a node-exec TTY session spawns: `script` with the command sized first, and the
// container's env kept (SHELL named for `script` only when the env has none, unset again).
import { describe, expect, it } from 'vitest';
import { ttyLaunch, ttyUnavailable } from './tty.ts';

const commands = { ptyCommand: ['/.sbx/script'], sttyCommand: ['/.sbx/ld.so', '/.sbx/stty'] };

describe('ttyLaunch', () => {
  it('sizes the pty before the command and restores the env', () => {
    const spec = { argv: ['sh', '-c', 'echo $0'], env: { A: '1' }, cwd: '/', tty: true };
    expect(ttyLaunch(commands, { ...spec, size: { cols: 80, rows: 24 } })).toEqual({
      argv: [
        '/.sbx/script',
        '-qfec',
        `unset SHELL; /.sbx/ld.so /.sbx/stty cols 80 rows 24 2>/dev/null; exec sh -c 'echo $0'`,
        '/dev/null',
      ],
      env: { A: '1', SHELL: '/bin/sh' },
    });
  });

  it("keeps the container's own SHELL and skips an unknown size", () => {
    const spec = { argv: ['bash'], env: { SHELL: '/bin/bash' }, cwd: '/', tty: true };
    expect(ttyLaunch(commands, { ...spec, size: { cols: 0, rows: 0 } })).toEqual({
      argv: ['/.sbx/script', '-qfec', 'exec bash', '/dev/null'],
      env: { SHELL: '/bin/bash' },
    });
  });

  it('says why a session cannot start here', () => {
    const spec = { argv: ['sh'], env: {}, cwd: '/' };
    expect(ttyUnavailable({ ...commands, ptyCommand: [] }, spec)).toBe(
      'no pty helper (--pty-command)',
    );
    expect(ttyUnavailable(commands, { ...spec, env: { SHELL: '/no/such/shell' } })).toBe(
      'no /no/such/shell in the container for the pty helper',
    );
  });
});
