import { describe, expect, it } from 'vitest';
import { stalledStart } from './commands.ts';

describe('stalledStart: what a Start with no init frame waited for', () => {
  const target = { address: '10.0.0.4:9090', sandboxName: 'box', connectTimeoutMs: 10_000 };
  const tail = `(echo hi); check it with sandbox.info() or agent-sandbox get box, or raise connectTimeoutMs`;

  it.each([
    [undefined, 'no connection to its daemon at 10.0.0.4:9090 within 10000 ms'],
    [0, 'its daemon at 10.0.0.4:9090 is connected but did not start the command within 10000 ms'],
    [
      9_200,
      'its daemon at 10.0.0.4:9090 connected after 9200 ms but did not start the command within 10000 ms',
    ],
  ])('connected after %s ms', (connectedAfterMs, what) => {
    expect(stalledStart(target, 'echo hi', connectedAfterMs)).toBe(`sandbox box: ${what} ${tail}`);
  });

  it("names the channel's state when it never connected", () => {
    expect(stalledStart(target, 'echo hi', undefined, 'TRANSIENT_FAILURE')).toBe(
      `sandbox box: no connection to its daemon at 10.0.0.4:9090 within 10000 ms (channel TRANSIENT_FAILURE) ${tail}`,
    );
  });
});
