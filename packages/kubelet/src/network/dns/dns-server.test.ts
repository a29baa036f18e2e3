// The responder on a loopback port with a real UDP client: cluster names answered, other names
// relayed to an upstream (another responder here) or refused, junk ignored.
import { createSocket } from 'node:dgram';
import * as dns from 'dns-packet';
import { afterAll, describe, expect, it } from 'vitest';
import { startDnsServer, type DnsServerHandle } from './dns-server.ts';

const servers: DnsServerHandle[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));

function ask(port: number, name: string, type: 'A' | 'AAAA' = 'A'): Promise<dns.DecodedPacket> {
  const socket = createSocket('udp4');
  const q = dns.encode({
    type: 'query',
    id: 7,
    flags: dns.RECURSION_DESIRED,
    questions: [{ type, name }],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer for ${name}`)), 2_000);
    socket.once('message', (m) => {
      clearTimeout(timer);
      socket.close();
      resolve(dns.decode(m));
    });
    socket.send(q, port, '127.0.0.1');
  });
}

const rcode = (p: dns.DecodedPacket): string => (p as unknown as { rcode: string }).rcode;

describe('startDnsServer', () => {
  it('answers cluster names, relays the rest to the upstream or refuses, survives junk', async () => {
    const upstream = await startDnsServer({
      host: '127.0.0.1',
      port: 0,
      domain: 'example',
      answer: (name) => ({ rcode: 'NOERROR', answers: [{ type: 'A', name, data: '192.0.2.1' }] }),
    });
    servers.push(upstream);
    const answer = (name: string) =>
      name === 'web.ns.svc.cluster.local'
        ? { rcode: 'NOERROR' as const, answers: [{ type: 'A' as const, name, data: '10.88.0.2' }] }
        : { rcode: 'NXDOMAIN' as const, answers: [] };
    const s = await startDnsServer({
      host: '127.0.0.1',
      port: 0,
      answer,
      upstream: `127.0.0.1:${upstream.port}`,
    });
    const alone = await startDnsServer({ host: '127.0.0.1', port: 0, answer });
    servers.push(s, alone);

    const web = await ask(s.port, 'WEB.ns.svc.cluster.local.');
    expect(web).toMatchObject({ id: 7, type: 'response', flag_aa: true, flag_rd: true });
    expect(web.answers).toMatchObject([{ type: 'A', data: '10.88.0.2', ttl: 5 }]);
    expect(rcode(await ask(s.port, 'nope.ns.svc.cluster.local'))).toBe('NXDOMAIN');
    const relayed = await ask(s.port, 'host.example');
    expect(relayed.answers).toMatchObject([{ type: 'A', data: '192.0.2.1' }]);
    expect(rcode(await ask(alone.port, 'host.example'))).toBe('REFUSED');

    const junk = createSocket('udp4');
    await new Promise<void>((r) =>
      junk.send(Buffer.from('not dns'), s.port, '127.0.0.1', () => r()),
    );
    junk.close();
    expect((await ask(s.port, 'web.ns.svc.cluster.local')).answers).toHaveLength(1);
  });

  it('refuses an address it cannot bind with the address in the message', async () => {
    await expect(
      startDnsServer({
        host: '192.0.2.77',
        port: 0,
        answer: () => ({ rcode: 'NXDOMAIN', answers: [] }),
      }),
    ).rejects.toThrow(/cluster DNS cannot listen on 192\.0\.2\.77:0/);
  });
});
