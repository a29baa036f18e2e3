import { describe, expect, it } from 'vitest';
import { RuntimeError } from './errors.ts';
import { parseBindAddress, runChecks } from './http-server.ts';

describe('parseBindAddress', () => {
  it('reads controller-runtime address forms; 0 disables', () => {
    expect(parseBindAddress(':8080')).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(parseBindAddress('127.0.0.1:0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseBindAddress('[::1]:9090')).toEqual({ host: '::1', port: 9090 });
    expect(parseBindAddress('0')).toBeUndefined();
    expect(() => parseBindAddress('8080')).toThrow(RuntimeError);
  });
});

describe('runChecks', () => {
  it('answers ok, or 500 naming the failed check', async () => {
    const ok = await runChecks(new Map([['ping', () => undefined]]), false);
    expect([ok.status, await ok.text()]).toEqual([200, 'ok']);
    const failing = new Map<string, () => void>([
      ['ping', () => undefined],
      [
        'informers-synced',
        () => {
          throw new Error('not synced: /v1/pods');
        },
      ],
    ]);
    const bad = await runChecks(failing, false);
    expect(bad.status).toBe(500);
    expect(await bad.text()).toBe(
      '[+]ping ok\n[-]informers-synced failed: not synced: /v1/pods\ncheck failed\n',
    );
  });
});
