// A daemon address whose TCP SYN is never answered (a blackholed Pod IP; here an nft rule in a
// table of this run's own drops it): close() and keepOnly() end the connection attempt, where
// grpc-js alone left its socket in SYN_SENT for the kernel's retries (~2 min after the handle
// closed), holding the process open. The kernel's own table of sockets says whether it is there.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, until } from '../testing/loopback.ts';
import { DaemonClients } from './daemon-clients.ts';

const TABLE = `asb_sdk_syn_${process.pid}`;

function nft(...args: string[]): void {
  const r = spawnSync('nft', args, { encoding: 'utf8' });
  if (r.error) throw new Error('nft is missing: apt-get install nftables (CI must have it)');
  if (r.status !== 0) throw new Error(`nft ${args.join(' ')}: ${r.stderr}`);
}

/** This host's TCP sockets in SYN_SENT (state 02 in /proc/net/tcp) to `port`. */
function synSent(port: number): number {
  const remote = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[3] === '02' && f[2]?.endsWith(remote)).length;
}

describe('a daemon whose SYN is never answered', () => {
  let blackholed: number[] = [];
  beforeAll(async () => {
    blackholed = [await closedPort(), await closedPort()];
    nft('add', 'table', 'inet', TABLE);
    nft('add', 'chain', 'inet', TABLE, 'out', '{ type filter hook output priority 0; }');
    for (const port of blackholed)
      nft(
        'add',
        'rule',
        'inet',
        TABLE,
        'out',
        'ip',
        'daddr',
        '127.0.0.1',
        'tcp',
        'dport',
        String(port),
        'drop',
      );
  });
  afterAll(() => {
    nft('delete', 'table', 'inet', TABLE);
    const tables = spawnSync('nft', ['list', 'tables'], { encoding: 'utf8' }).stdout;
    expect(tables).not.toContain(TABLE);
  });

  it('close() ends the connection attempt', async () => {
    const [port = 0] = blackholed;
    const clients = new DaemonClients();
    clients.dial(`127.0.0.1:${port}`, 60_000);
    await until('the SYN is sent', () => synSent(port) === 1);
    clients.close();
    await until('the attempt is gone', () => synSent(port) === 0);
  });

  it('keepOnly() ends the attempt of an address it drops, not the one it keeps', async () => {
    const [kept = 0, dropped = 0] = blackholed;
    const clients = new DaemonClients();
    try {
      clients.dial(`127.0.0.1:${kept}`, 60_000);
      clients.dial(`127.0.0.1:${dropped}`, 60_000);
      await until('both SYNs are sent', () => synSent(kept) === 1 && synSent(dropped) === 1);
      clients.keepOnly(`127.0.0.1:${kept}`);
      await until('the dropped attempt is gone', () => synSent(dropped) === 0);
      expect(synSent(kept)).toBe(1);
    } finally {
      clients.close();
    }
    await until('the kept attempt is gone after close()', () => synSent(kept) === 0);
  });
});
