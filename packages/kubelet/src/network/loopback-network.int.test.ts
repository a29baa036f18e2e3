import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../host/run-command.ts';
import { LoopbackPodNetwork } from './loopback-network.ts';

/** This run's own: list() sees every netns with the prefix, another run's too. */
const PREFIX = `asb-lotest-${process.pid}-`;

describe('LoopbackPodNetwork', () => {
  it('gives a pod its own netns with lo up and no IP, idempotently, and tears it down', async () => {
    const net = new LoopbackPodNetwork({ prefix: PREFIX });
    const pod = { namespace: 'default', name: 'p', uid: randomUUID(), labels: {}, hostname: 'p' };
    const first = await net.setUp(pod);
    try {
      expect(first.ips).toEqual([]);
      expect(existsSync(first.netnsPath)).toBe(true);
      expect(await net.setUp(pod)).toEqual(first);
      expect(await net.list()).toContain(pod.uid);
      const links = await runCommand('ip', ['-n', `${PREFIX}${pod.uid}`, '-o', 'link']);
      expect(links.stdout).toMatch(/lo: <LOOPBACK,UP/);
      expect(links.stdout.trim().split('\n')).toHaveLength(1);
    } finally {
      await net.tearDown(pod);
    }
    expect(existsSync(first.netnsPath)).toBe(false);
    expect(await net.list()).not.toContain(pod.uid);
    await net.tearDown(pod);
  });
});
