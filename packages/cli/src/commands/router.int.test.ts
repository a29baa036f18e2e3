// `agent-sandbox router` in-process: upstream's flags, a serving proxy, clear flag errors.
import { describe, expect, it } from 'vitest';
import { memoryIO } from '../io.ts';
import { runRouter } from './router.ts';

const LOCAL = [
  '--http-bind-address',
  '127.0.0.1:0',
  '--metrics-bind-address',
  '127.0.0.1:0',
  '--health-probe-bind-address',
  '127.0.0.1:0',
];

describe('agent-sandbox router', () => {
  it('serves the proxy, probes and metrics until stopped; access log on stderr', async () => {
    const io = memoryIO();
    const stop = new AbortController();
    const urls = await new Promise<{ proxy: string; probe?: string; metrics?: string }>(
      (resolve, reject) => {
        runRouter(LOCAL, io, { signal: stop.signal, onReady: resolve }).then(
          (code) => code !== 0 && reject(new Error(io.err())),
          reject,
        );
      },
    );
    expect(await (await fetch(`${urls.proxy}/healthz`)).text()).toBe('{"status":"ok"}');
    const bad = await fetch(`${urls.proxy}/execute`, {
      headers: { 'x-sandbox-id': 'a', 'x-sandbox-pod-ip': '169.254.169.254' },
    });
    expect([bad.status, await bad.text()]).toEqual([
      400,
      '{"detail":"Invalid target IP address."}\n',
    ]);
    expect(await (await fetch(`${urls.probe}/readyz`)).text()).toBe('ok');
    expect(await (await fetch(`${urls.metrics}/metrics`)).text()).toContain(
      'sandbox_router_requests_total{method="GET",code="400",sandbox_namespace="default"} 1',
    );
    stop.abort();
    await new Promise((r) => setTimeout(r, 50));
    expect(io.err()).toContain('"logger":"sandbox-router.access"');
  });
  it.each([
    [['--authz-mode', 'open'], /authz-mode/],
    [['--authz-mode', 'scoped-token'], /--authz-scoped-token-secret-file is required/],
    [['--upstream-max-retries', '-1'], /upstream-max-retries/],
    [['--no-such-flag'], /no-such-flag/],
  ])('%j exits 2 naming the flag', async (argv, message) => {
    const io = memoryIO();
    expect(await runRouter([...LOCAL, ...argv], io, { signal: AbortSignal.abort() })).toBe(2);
    expect(io.err()).toMatch(message);
  });
  it('--help lists upstream flags', async () => {
    const io = memoryIO();
    expect(await runRouter(['--help'], io)).toBe(0);
    expect(io.out()).toContain('--authz-tokenreview-require-token');
  });
});
