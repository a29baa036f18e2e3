// The router's header contract (dataplane §2.2, §2.10) and the per-sandbox host names.
import { describe, expect, it } from 'vitest';
import { hostRoute, isAllowedPodIp, parseRoute } from './routing.ts';

const route = (headers: Record<string, string>, allowLoopbackPodIp = false) =>
  parseRoute((n) => headers[n], { allowLoopbackPodIp });

describe('parseRoute', () => {
  it('applies the defaults', () => {
    expect(route({ 'x-sandbox-id': 'sb-1' })).toEqual({
      ok: true,
      target: { id: 'sb-1', namespace: 'default', port: 8888 },
    });
    expect(
      route({
        'x-sandbox-id': 'a',
        'x-sandbox-namespace': '',
        'x-sandbox-port': '',
        'x-sandbox-pod-ip': '',
      }),
    ).toMatchObject({ ok: true, target: { namespace: 'default', port: 8888 } });
  });
  it.each([
    [{}, 'X-Sandbox-ID header is required.'],
    [{ 'x-sandbox-id': 'Bad_ID' }, 'Invalid sandbox ID format.'],
    [{ 'x-sandbox-id': '-a' }, 'Invalid sandbox ID format.'],
    [{ 'x-sandbox-id': 'a'.repeat(64) }, 'Invalid sandbox ID format.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-namespace': 'NS' }, 'Invalid namespace format.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-port': '0' }, 'Invalid port format.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-port': '65536' }, 'Invalid port format.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-port': '80x' }, 'Invalid port format.'],
    [{ 'x-sandbox-id': 'a', 'x-sandbox-pod-ip': 'not-an-ip' }, 'Invalid target IP address.'],
    [{ 'x-sandbox-id': 'Bad', 'x-sandbox-namespace': 'NS' }, 'Invalid sandbox ID format.'],
  ])('%j → %s', (headers, detail) => expect(route(headers)).toMatchObject({ ok: false, detail }));
});

describe('isAllowedPodIp', () => {
  it.each(['10.0.0.5', '192.168.1.2', '2001:db8::1', 'fd00::1', 'fd00:ec2::23', '64:ff9b::a00:5'])(
    'allows %s',
    (ip) => expect(isAllowedPodIp(ip, false)).toBe(true),
  );
  it.each([
    '0.0.0.0',
    '::',
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    '224.0.0.1',
    '239.1.2.3',
    'ff02::1',
    'ff05::2',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '127.0.0.1',
    '::1',
    '::ffff:127.0.0.1',
    'fd00:ec2::254x',
    'fd00:ec2::254',
    'fd00:ec2:0::0254',
    '100.100.100.200',
    '192.0.0.192',
    '64:ff9b::169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::7f00:1',
  ])('refuses %s', (ip) => expect(isAllowedPodIp(ip, false)).toBe(false));
  it('allows loopback only with --allow-loopback-pod-ip; never link-local or metadata', () => {
    expect(isAllowedPodIp('127.0.0.1', true)).toBe(true);
    expect(isAllowedPodIp('::1', true)).toBe(true);
    expect(isAllowedPodIp('169.254.169.254', true)).toBe(false);
  });
});

describe('hostRoute', () => {
  it('maps <port>-<sandbox>.<namespace>.<domain> to routing headers', () => {
    expect(hostRoute('3000-my-app.team-a.sandboxes.local:8080', 'sandboxes.local')).toEqual({
      'x-sandbox-port': '3000',
      'x-sandbox-id': 'my-app',
      'x-sandbox-namespace': 'team-a',
    });
    expect(hostRoute('router.local', 'sandboxes.local')).toBeUndefined();
    expect(hostRoute('x.team.sandboxes.local', 'sandboxes.local')).toBeUndefined();
    expect(hostRoute('3000-a.b.sandboxes.local', undefined)).toBeUndefined();
  });
});
