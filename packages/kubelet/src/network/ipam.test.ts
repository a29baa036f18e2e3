import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Ipam, macOfIp } from './ipam.ts';

describe('Ipam', () => {
  const dirs: string[] = [];
  const ipam = (cidr: string): Ipam => {
    const dir = mkdtempSync(join(tmpdir(), 'ipam-'));
    dirs.push(dir);
    return new Ipam(join(dir, 'ipam.json'), cidr);
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('hands out addresses round-robin: a released one comes back after the rest of the range', () => {
    const a = ipam('10.1.0.0/29'); // .2 to .6
    expect(['p1', 'p2', 'p3'].map((u) => a.allocate(u))).toEqual([
      '10.1.0.2',
      '10.1.0.3',
      '10.1.0.4',
    ]);
    a.release('p1');
    expect(a.allocate('p4')).toBe('10.1.0.5');
    expect(a.allocate('p5')).toBe('10.1.0.6');
    expect(a.allocate('p6')).toBe('10.1.0.2'); // wrapped past the broadcast to the freed one
    expect(a.allocate('p6')).toBe('10.1.0.2'); // a Pod keeps its address
    expect(() => a.allocate('p7')).toThrow('pod CIDR 10.1.0.0/29 has no free address left');
  });

  it('continues after the last address across a restart (the state file keeps it)', () => {
    const a = ipam('10.1.0.0/24');
    a.allocate('p1');
    a.allocate('p2');
    a.release('p1');
    const restarted = new Ipam(a.file, '10.1.0.0/24');
    expect(restarted.allocate('p3')).toBe('10.1.0.4');
  });

  it('hands an address to another key (a Pod taking a network made ahead), persisted', () => {
    const a = ipam('10.1.0.0/24');
    const ip = a.allocate('pool-x');
    expect(a.rekey('pool-x', 'pod')).toBe(true);
    expect(new Ipam(a.file, '10.1.0.0/24').entries()).toEqual([['pod', ip]]);
    expect(a.rekey('pool-x', 'other')).toBe(false); // gone
    a.allocate('busy');
    expect(a.rekey('pod', 'busy')).toBe(false); // never two addresses for one key
    expect(a.lookup('pod')).toBe(ip);
  });
});

describe('macOfIp', () => {
  it('is locally administered unicast with the address bytes', () => {
    expect(macOfIp('10.88.0.2')).toBe('0a:58:0a:58:00:02');
    expect(macOfIp('192.168.255.254')).toBe('0a:58:c0:a8:ff:fe');
  });
});
