// A small DNS responder over UDP (dns-packet for the wire format): names under the cluster
// domain are answered authoritatively by `answer` (cluster-records.ts); other names are relayed
// to the host's resolver when one is given, else refused. Malformed packets are dropped: a
// request can never crash the server.
import { createSocket, type Socket } from 'node:dgram';
import * as dns from 'dns-packet';
import { KubeletError } from '../../errors.ts';
import type { DnsResult } from './cluster-records.ts';

export interface DnsServerOptions {
  /** Address to listen on (the bridge's gateway address). */
  host: string;
  /** @default 53 */
  port?: number;
  /** @default 'cluster.local' */
  domain?: string;
  /** Answers a name under the domain (lower-case, no trailing dot). */
  answer(name: string, type: string): DnsResult;
  /** Resolver (`ip` or `ip:port`) for every other name; absent → REFUSED. */
  upstream?: string;
  /** @default 2_000 */
  upstreamTimeoutMs?: number;
  /** @default 5 */
  ttlSeconds?: number;
}

export interface DnsServerHandle {
  /** The bound port (53 unless options.port said otherwise). */
  port: number;
  close(): Promise<void>;
}

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

function reply(
  query: dns.DecodedPacket,
  rcode: keyof typeof RCODE,
  answers: dns.Answer[],
  authoritative: boolean,
): Buffer {
  const flags =
    (authoritative ? dns.AUTHORITATIVE_ANSWER : 0) |
    (query.flag_rd ? dns.RECURSION_DESIRED : 0) |
    dns.RECURSION_AVAILABLE |
    RCODE[rcode];
  return dns.encode({
    type: 'response',
    ...(query.id !== undefined ? { id: query.id } : {}),
    flags,
    questions: query.questions ?? [],
    answers,
  });
}

function relay(packet: Buffer, upstream: string, timeoutMs: number): Promise<Buffer | undefined> {
  const [host, port] = upstream.includes(':') ? upstream.split(':') : [upstream, '53'];
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const done = (b: Buffer | undefined): void => {
      clearTimeout(timer);
      socket.close();
      resolve(b);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.once('message', (m) => done(m));
    socket.once('error', () => done(undefined));
    socket.send(packet, Number(port), host);
  });
}

export async function startDnsServer(o: DnsServerOptions): Promise<DnsServerHandle> {
  const domain = (o.domain ?? 'cluster.local').toLowerCase();
  const ttl = o.ttlSeconds ?? 5;
  const socket: Socket = createSocket('udp4');
  const respond = async (msg: Buffer, to: { address: string; port: number }): Promise<void> => {
    let query: dns.DecodedPacket;
    try {
      query = dns.decode(msg);
    } catch {
      return; // not DNS
    }
    const q = query.questions?.[0];
    if (query.type !== 'query' || !q) return;
    const name = q.name.toLowerCase().replace(/\.$/, '');
    let out: Buffer | undefined;
    if (name === domain || name.endsWith(`.${domain}`)) {
      const r = o.answer(name, q.type);
      const answers = r.answers.map((a): dns.Answer => ({
        type: a.type,
        name: a.name,
        ttl,
        class: 'IN',
        data: a.data,
      }));
      out = reply(query, r.rcode, answers, true);
    } else if (o.upstream) {
      out =
        (await relay(msg, o.upstream, o.upstreamTimeoutMs ?? 2_000)) ??
        reply(query, 'SERVFAIL', [], false);
    } else out = reply(query, 'REFUSED', [], false);
    socket.send(out, to.port, to.address);
  };
  socket.on('message', (msg, rinfo) => {
    respond(msg, rinfo).catch(() => undefined);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', (err) => {
      socket.close();
      reject(
        new KubeletError(
          'Network',
          `cluster DNS cannot listen on ${o.host}:${o.port ?? 53}: ${err.message}`,
          { cause: err },
        ),
      );
    });
    socket.bind(o.port ?? 53, o.host, () => resolve());
  });
  socket.on('error', () => undefined);
  return {
    port: socket.address().port,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
