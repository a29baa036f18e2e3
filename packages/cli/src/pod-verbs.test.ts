// The pure parts of exec, cp and port-forward: exit codes from the exec Status, which side of
// cp is the sandbox, and port specs.
import { describe, expect, it } from 'vitest';
import { parseCopyEnd } from './commands/cp.ts';
import { parsePortMappings } from './commands/port-forward.ts';
import { FlagError } from './errors.ts';
import { exitCodeOfStatus } from './pod-streams/remote-command.ts';

describe('exitCodeOfStatus', () => {
  it('reads 0 from Success and the code from NonZeroExitCode', () => {
    expect(exitCodeOfStatus('{"metadata":{},"status":"Success"}')).toBe(0);
    expect(
      exitCodeOfStatus(
        JSON.stringify({
          status: 'Failure',
          reason: 'NonZeroExitCode',
          details: { causes: [{ reason: 'ExitCode', message: '42' }] },
        }),
      ),
    ).toBe(42);
  });

  it('turns any other Status or text into an error with its message', () => {
    expect(
      exitCodeOfStatus('{"status":"Failure","reason":"InternalError","message":"no such file"}'),
    ).toEqual({ error: 'no such file' });
    expect(exitCodeOfStatus('container not found\n')).toEqual({ error: 'container not found' });
  });
});

describe('parseCopyEnd', () => {
  it('is a sandbox path for ID:PATH and a local path otherwise', () => {
    expect(parseCopyEnd('demo:/workspace/a')).toEqual({ sandbox: 'demo', path: '/workspace/a' });
    expect(parseCopyEnd('demo:')).toEqual({ sandbox: 'demo', path: '.' });
    expect(parseCopyEnd('./demo:x')).toEqual({ local: './demo:x' });
    expect(parseCopyEnd('/tmp/file')).toEqual({ local: '/tmp/file' });
    expect(parseCopyEnd('Demo:/x')).toEqual({ local: 'Demo:/x' });
  });
});

describe('parsePortMappings', () => {
  it('takes REMOTE, LOCAL:REMOTE and :REMOTE', () => {
    expect(parsePortMappings(['8000', '9000:80', ':3000'])).toEqual([
      { local: 8000, remote: 8000 },
      { local: 9000, remote: 80 },
      { local: 0, remote: 3000 },
    ]);
  });

  it('refuses anything else with a FlagError naming the port and the forms', () => {
    for (const bad of ['abc', '0', '70000', '1:2:3', 'x:80', '80:']) {
      expect(() => parsePortMappings([bad])).toThrow(FlagError);
      expect(() => parsePortMappings([bad])).toThrow(`port "${bad}" must be REMOTE, LOCAL:REMOTE`);
    }
    expect(() => parsePortMappings([])).toThrow('port-forward needs at least one');
  });
});
