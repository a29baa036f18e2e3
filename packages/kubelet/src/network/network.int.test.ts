// The bridge Pod network and NetworkPolicy enforcement with real network namespaces, veths, a
// bridge and nftables (root). A test "internet" is one more namespace we create, routed through
// the host, that also answers on the metadata address 169.254.169.254. Every test ends with a leak
// check: no namespace, link, nft table or routing rule of ours is left.
// Names, subnets and the routing table are this run's own (by pid, as upNetwork): two runs at
// once must not share a bridge, an address or the host's one route to 169.254.169.254.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { KubeClient, kubeConfigFromFile, PODS } from '@agent-sandbox/kube';
// eslint-disable-next-line no-restricted-imports -- tests run on the embedded apiserver (our envtest)
import { startTestApiServer, type TestApiServer } from '@agent-sandbox/apiserver/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BridgePodNetwork, type BridgePodNetworkOptions } from './bridge-network.ts';
import { nftTables } from './host-commands.ts';
import { ipToNumber, numberToIp } from './ipam.ts';
import { NETWORK_POLICIES, PolicyEnforcer } from './policy/policy-enforcer.ts';

const run = promisify(execFile);
const N = process.pid % 250;
/** Fixed width: no run's prefix is the start of another's (ktio007 / ktio071). */
const PREFIX = `ktio${String(N).padStart(3, '0')}`;
const BRIDGE = `${PREFIX}0`;
const SUBNET = `10.235.${N}`;
const CIDR = `${SUBNET}.0/24`;
const GATEWAY = `${SUBNET}.1`;
/** The /29 whose addresses wrap after five Pods. */
const WRAP_CIDR = `10.236.${N}.0/29`;
const INET_NS = `${PREFIX}-inet`;
const [INET_HOST, INET_PEER] = [`${PREFIX}i0`, `${PREFIX}i1`];
/** The "internet" uplink: 198.18.0.0/15 is for tests and outside the policy's except list. */
const [UPLINK_HOST, UPLINK_PEER] = [`198.18.${N}.1`, `198.18.${N}.10`];
const POLICY_TABLE = `${PREFIX}_policy`;
/** A bridge port with the lowest MAC there is (the MAC test). */
const LOW_PORT = `${PREFIX}lo`;
/** Our Pods' route to the metadata address: a table of our own, chosen by source address. */
const ROUTE_TABLE = String(20_000 + N);
const METADATA = '169.254.169.254';

/** The address `host` in our pod CIDR. */
const podIp = (host: number): string => `${SUBNET}.${host}`;
/** The netns of the network made ahead with address `podIp(host)`. */
const poolNetns = (host: number): string => `${PREFIX}-pool-${podIp(host).replaceAll('.', '-')}`;

/** Connects from inside `netns` (or the host) to host:port; 'ok' if a byte echoes back. */
async function probe(
  netns: string | undefined,
  host: string,
  port: number,
): Promise<'ok' | 'fail'> {
  const script = `const s=require('net').connect(${port},'${host}',()=>s.write('x'));s.setTimeout(1500,()=>process.exit(1));s.on('data',()=>process.exit(0));s.on('error',()=>process.exit(1));`;
  const argv = netns
    ? ['nsenter', `--net=/run/netns/${netns}`, process.execPath, '-e', script]
    : [process.execPath, '-e', script];
  try {
    await run(argv[0] as string, argv.slice(1), { timeout: 5000 });
    return 'ok';
  } catch {
    return 'fail';
  }
}

/** An echo server inside `netns` on all addresses. */
function echoIn(netns: string, port: number): Promise<ChildProcess> {
  const child = spawn('nsenter', [
    `--net=/run/netns/${netns}`,
    process.execPath,
    '-e',
    `require('net').createServer((s)=>s.pipe(s)).listen(${port},'0.0.0.0',()=>console.log('ready'))`,
  ]);
  return new Promise((resolve) => child.stdout.once('data', () => resolve(child)));
}

async function leaks(): Promise<string[]> {
  const netns = (await readdir('/run/netns').catch(() => [] as string[])).filter((n) =>
    n.startsWith(PREFIX),
  );
  const links = (await run('ip', ['-o', 'link', 'show'])).stdout
    .split('\n')
    .map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1] ?? '')
    .filter((n) => n.startsWith(PREFIX));
  const tables = (await nftTables()).filter((t) => t.includes(PREFIX));
  const rules = (await run('ip', ['rule', 'show', 'table', ROUTE_TABLE])).stdout
    .split('\n')
    .filter(Boolean);
  return [
    ...netns.map((n) => `netns ${n}`),
    ...links.map((l) => `link ${l}`),
    ...tables.map((t) => `nft ${t}`),
    ...rules.map((r) => `ip rule ${r}`),
  ];
}

/** The made-ahead networks' namespaces of this run. */
async function poolNetnsNames(): Promise<string[]> {
  return (await readdir('/run/netns')).filter((n) => n.startsWith(`${PREFIX}-pool-`)).sort();
}

/** The bridge the host end of made-ahead namespace `ns`'s veth is a port of ('' for none). */
async function masterOf(ns: string): Promise<string> {
  // eth0's peer index inside the namespace names the host veth (ip shows it as eth0@ifN).
  const inner = (await run('ip', ['-n', ns, '-o', 'link', 'show', 'eth0'])).stdout;
  const peer = /eth0@if(\d+)/.exec(inner)?.[1];
  const host = (await run('ip', ['-o', 'link', 'show'])).stdout
    .split('\n')
    .find((l) => l.startsWith(`${peer}: `));
  return / master (\S+) /.exec(host ?? '')?.[1] ?? '';
}

describe('bridge pod network', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubelet-network-'));
  });
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    const net = bridgeNet('state');
    for (const uid of await net.list()) await net.tearDown({ uid });
    await net.destroy();
    await run('ip', ['netns', 'delete', INET_NS]).catch(() => undefined);
    await run('nft', ['delete', 'table', 'inet', POLICY_TABLE]).catch(() => undefined);
    await run('ip', ['rule', 'del', 'from', CIDR, 'table', ROUTE_TABLE]).catch(() => undefined);
    await run('ip', ['link', 'delete', LOW_PORT]).catch(() => undefined);
    // the kernel removes a deleted namespace's veth pair asynchronously
    await expect.poll(leaks, { timeout: 5000 }).toEqual([]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** This run's bridge network with its IPAM state in `state` under the test's dir. */
  const bridgeNet = (state: string, extra: Partial<BridgePodNetworkOptions> = {}) =>
    new BridgePodNetwork({
      stateDir: join(dir, state),
      podCidr: CIDR,
      bridge: BRIDGE,
      prefix: PREFIX,
      ...extra,
    });

  const target = (uid: string, name = uid, labels: Record<string, string> = {}) => ({
    namespace: 'default',
    name,
    uid,
    labels,
    hostname: name,
  });

  it('keeps Pod networks made ahead: a Pod takes one whole, a restart and a drain leave nothing', async () => {
    const opts = {
      stateDir: join(dir, 'pool-state'), // its own IPAM: the next tests count addresses from .2
      podCidr: CIDR,
      bridge: BRIDGE,
      prefix: PREFIX,
      poolSize: 2,
      onPoolError: (err: unknown) => {
        throw err;
      },
    };
    const net = new BridgePodNetwork(opts);
    expect(await net.setUp(target('uid-before'))).toMatchObject({ ips: [podIp(2)] });
    expect(net.pooled).toBe(0); // nothing is made ahead before prepare()
    net.prepare();
    await expect.poll(() => net.pooled, { timeout: 30_000 }).toBe(2);
    expect((await readdir('/run/netns')).filter((n) => n.startsWith(`${PREFIX}-pool-`))).toEqual(
      expect.arrayContaining([poolNetns(3), poolNetns(4)]),
    );
    const a = await net.setUp(target('uid-a'));
    expect(a.netnsPath).toBe(`/run/netns/${poolNetns(3)}`);
    expect(a.ips).toEqual([podIp(3)]);
    expect(net.pooled).toBe(1);
    // NetworkPolicy and the status read the Pod's address by its uid.
    expect(new Map(net.ipam.entries()).get('uid-a')).toBe(podIp(3));
    expect(await net.setUp(target('uid-a'))).toEqual(a); // idempotent: the same network
    const ns = poolNetns(3);
    expect((await run('ip', ['-n', ns, 'route', 'show', 'default'])).stdout).toContain(
      `default via ${GATEWAY} dev eth0`,
    );
    expect((await run('ip', ['-n', ns, 'link', 'show', 'eth0'])).stdout).toContain(
      `0a:58:0a:eb:${N.toString(16).padStart(2, '0')}:03`,
    );
    children.push(await echoIn(ns, 8080));
    expect(await probe(undefined, podIp(3), 8080)).toBe('ok'); // host → pod
    expect(await probe(`${PREFIX}-uid-before`, podIp(3), 8080)).toBe('ok'); // pod → pod
    // The taken entry is refilled after a while, from the next free address.
    await expect.poll(() => net.pooled, { timeout: 30_000 }).toBe(2);
    await net.tearDown({ uid: 'uid-a' });
    expect(await readdir('/run/netns')).not.toContain(ns);
    expect(net.ipam.lookup('uid-a')).toBeUndefined();
    // A new agent (after a crash: nothing drained) finds the Pods and the entries made ahead.
    const b = await net.setUp(target('uid-b'));
    const restarted = new BridgePodNetwork(opts);
    const listed = await restarted.list();
    expect(listed).toEqual(expect.arrayContaining(['uid-before', 'uid-b']));
    // uid-b's namespace keeps its made-ahead name; the other is the entry still waiting.
    expect(listed.filter((u) => u.startsWith('pool-'))).toHaveLength(2);
    expect(await restarted.setUp(target('uid-b'))).toEqual(b); // re-adopted, not remade
    await restarted.tearDown({ uid: 'uid-b' });
    expect(await readdir('/run/netns')).not.toContain(b.netnsPath.slice('/run/netns/'.length));
    await net.drain();
    expect(net.pooled).toBe(0);
    expect((await readdir('/run/netns')).filter((n) => n.startsWith(`${PREFIX}-pool-`))).toEqual(
      [],
    );
  });

  it('drops the networks it made ahead when the bridge is made again, and hands out working ones', async () => {
    const net = bridgeNet('renew-state', {
      poolSize: 2,
      onPoolError: () => undefined, // refills fail while the bridge is gone
    });
    net.prepare();
    await expect.poll(() => net.pooled, { timeout: 30_000 }).toBe(2);
    const before = await poolNetnsNames();
    await run('ip', ['link', 'delete', BRIDGE]); // another process removes it
    // The first set-up finds it gone and fails (the worker retries); the retry makes it again.
    await expect(net.setUp(target('uid-first'))).rejects.toThrow(BRIDGE);
    // It took a made-ahead network, and keeps that network's name (remade on the new bridge).
    const first = (await net.setUp(target('uid-first'))).netnsPath.slice('/run/netns/'.length);
    const held = async () => (await poolNetnsNames()).filter((n) => n !== first);
    // The other one made on the old bridge went; the pool is full again of ones on the new one.
    await expect.poll(held, { timeout: 30_000 }).toHaveLength(2);
    const after = await held();
    expect(after.filter((n) => before.includes(n))).toEqual([]);
    for (const ns of after) expect(await masterOf(ns)).toBe(BRIDGE);
    // A Pod now takes one as made (no remaking on its start), and the host reaches it.
    const taken = await net.setUp(target('uid-next'));
    expect(after.map((n) => `/run/netns/${n}`)).toContain(taken.netnsPath);
    const ns = taken.netnsPath.slice('/run/netns/'.length);
    children.push(await echoIn(ns, 8080));
    expect(await probe(undefined, taken.ips[0] as string, 8080)).toBe('ok');
    await net.drain();
    for (const uid of ['uid-first', 'uid-next']) await net.tearDown({ uid });
  });

  it('gives each Pod its own namespace and bridge IP; Pods and the host reach each other', async () => {
    const net = bridgeNet('state', { nameserver: GATEWAY });
    const a = await net.setUp(target('uid-a'));
    const b = await net.setUp(target('uid-b'));
    expect(a).toEqual({
      netnsPath: `/run/netns/${PREFIX}-uid-a`,
      ips: [podIp(2)],
      dns: {
        nameservers: [GATEWAY],
        searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
        options: ['ndots:5'],
      },
    });
    expect(b.ips).toEqual([podIp(3)]);
    const [nsA, nsB] = [`${PREFIX}-uid-a`, `${PREFIX}-uid-b`];
    const route = (await run('ip', ['-n', nsA, 'route', 'show', 'default'])).stdout;
    expect(route).toContain(`default via ${GATEWAY} dev eth0`);
    expect((await run('ip', ['-n', nsA, 'link', 'show', 'lo'])).stdout).toMatch(/UP/);
    children.push(await echoIn(nsA, 8080));
    expect(await probe(undefined, podIp(2), 8080)).toBe('ok'); // host → pod
    expect(await probe(nsB, podIp(2), 8080)).toBe('ok'); // pod → pod
    const host: Server = createServer((s) => s.pipe(s));
    await new Promise<void>((r) => host.listen(0, GATEWAY, r));
    expect(await probe(nsB, GATEWAY, (host.address() as { port: number }).port)).toBe('ok'); // pod → host
    host.close();
    // 127.0.0.1 inside a Pod is its own loopback, not the host's
    expect(await probe(nsB, '127.0.0.1', 8080)).toBe('fail');
  });

  it('keeps addresses across agent restarts and re-adopts a set-up Pod as is', async () => {
    const first = bridgeNet('state');
    const one = await first.setUp(target('uid-1'));
    const two = await first.setUp(target('uid-2'));
    await first.tearDown({ uid: 'uid-1' });
    const restarted = bridgeNet('state');
    const eth0 = async () =>
      (await run('ip', ['-n', `${PREFIX}-uid-2`, 'link', 'show', 'eth0'])).stdout.split(':')[0];
    const before = await eth0();
    expect(await restarted.setUp(target('uid-2'))).toEqual(two);
    expect(await eth0()).toBe(before);
    expect(await restarted.list()).toEqual(['uid-2']);
    // the freed address comes back only after the rest of the range, also across a restart
    const three = (await restarted.setUp(target('uid-3'))).ips;
    expect(three).not.toEqual(one.ips);
    expect(three).toEqual([numberToIp(ipToNumber(two.ips[0] as string) + 1)]);
    expect(() => bridgeNet('state', { podCidr: '10.9.0.0/16' })).toThrow(
      `is for pod CIDR ${CIDR}, not 10.9.0.0/16`,
    );
  });

  it("a Pod on an address another Pod had is reached at once: the host's neighbour entry stays right", async () => {
    // A /29 wraps after five Pods, so the address comes back; the host learnt the old Pod's MAC
    // for it (REACHABLE for ~30 s), and with a new random MAC its packets went nowhere until
    // the entry expired — a sandbox's daemon looked dead for seconds after a warm claim.
    const net = bridgeNet('wrap', { podCidr: WRAP_CIDR });
    const first = await net.setUp(target('uid-w0'));
    const ip = first.ips[0] as string;
    const server = await echoIn(`${PREFIX}-uid-w0`, 8080);
    children.push(server);
    expect(await probe(undefined, ip, 8080)).toBe('ok');
    const mac = (await run('ip', ['-n', `${PREFIX}-uid-w0`, 'link', 'show', 'eth0'])).stdout;
    server.kill('SIGKILL');
    await net.tearDown({ uid: 'uid-w0' });
    // A freed address is handed out again only after the rest of the range.
    const next = await net.setUp(target('uid-w1'));
    expect(next.ips).not.toEqual([ip]);
    await net.tearDown({ uid: 'uid-w1' });
    let again = next;
    for (let i = 2; again.ips[0] !== ip; i++) {
      await net.tearDown({ uid: `uid-w${i - 1}` });
      again = await net.setUp(target(`uid-w${i}`));
      expect(i).toBeLessThan(8);
    }
    const reused = again.netnsPath.split('/').pop() as string;
    expect(
      (await run('ip', ['-n', reused, 'link', 'show', 'eth0'])).stdout.match(
        /link\/ether \S+/,
      )?.[0],
    ).toBe(mac.match(/link\/ether \S+/)?.[0]);
    children.push(await echoIn(reused, 8080));
    expect(await probe(undefined, ip, 8080)).toBe('ok');
  });

  it("a Pod's answer to the host arrives after the bridge's lowest-MAC port is removed", async () => {
    // bench:sdk's stall: the SDK connected to a fresh daemon (TCP up), the Pod that lent the
    // bridge its MAC was deleted, and the daemon's first HTTP/2 frames went to that MAC — the
    // Pod's neighbour entry for the gateway kept it, and the host, waiting, sent nothing that
    // would have corrected it. A port with the lowest MAC there is stands in for that Pod.
    const net = bridgeNet('mac');
    const pod = await net.setUp(target('uid-m'));
    const ip = pod.ips[0] as string;
    const low = `link add ${LOW_PORT} address 02:00:00:00:00:01 type veth peer name ${LOW_PORT}p`;
    await run('ip', low.split(' '));
    await run('ip', ['link', 'set', LOW_PORT, 'master', BRIDGE, 'up']);
    // The server speaks first, a while after the connection, as a gRPC server's SETTINGS do.
    const greeter = spawn('nsenter', [
      `--net=/run/netns/${PREFIX}-uid-m`,
      process.execPath,
      '-e',
      `require('net').createServer((s)=>setTimeout(()=>s.end('hello'),1000)).listen(8080,'0.0.0.0',()=>console.log('ready'))`,
    ]);
    children.push(greeter);
    await new Promise((resolve) => greeter.stdout.once('data', resolve));
    const greeting = new Promise<string>((resolve, reject) => {
      const s = connect({ host: ip, port: 8080 });
      s.setTimeout(5000, () => (s.destroy(), reject(new Error('no greeting within 5 s'))));
      s.once('connect', () => {
        void run('ip', ['link', 'delete', LOW_PORT]).catch(reject);
      });
      let got = '';
      s.on('data', (d: Buffer) => (got += d.toString()));
      s.once('end', () => resolve(got));
      s.once('error', reject);
    });
    await expect(greeting).resolves.toBe('hello');
  });

  describe('NetworkPolicy (SandboxTemplate default policy)', () => {
    let api: TestApiServer;
    let client: KubeClient;
    beforeAll(async () => {
      api = await startTestApiServer();
      client = new KubeClient({ config: kubeConfigFromFile(api.kubeconfigPath) });
    });
    afterAll(async () => api.close());

    async function pod(name: string, labels: Record<string, string>): Promise<string> {
      const body: Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'default', labels },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      };
      const created = await client.create(PODS, body as Pod & KubeObject);
      return created.metadata.uid as string;
    }

    /**
     * The "internet" namespace behind the host, also holding the metadata address. The host
     * routes our Pods (by source address) to it through a table of our own: another run's Pods
     * reach another run's metadata namespace.
     */
    async function internet(): Promise<void> {
      await run('ip', ['netns', 'add', INET_NS]);
      await run('ip', ['link', 'add', INET_HOST, 'type', 'veth', 'peer', 'name', INET_PEER]);
      await run('ip', ['link', 'set', INET_PEER, 'netns', INET_NS]);
      await run('ip', ['addr', 'add', `${UPLINK_HOST}/24`, 'dev', INET_HOST]);
      await run('ip', ['link', 'set', INET_HOST, 'up']);
      for (const args of [
        ['addr', 'add', `${UPLINK_PEER}/24`, 'dev', INET_PEER],
        ['addr', 'add', `${METADATA}/32`, 'dev', INET_PEER],
        ['link', 'set', INET_PEER, 'up'],
        ['link', 'set', 'lo', 'up'],
        ['route', 'add', 'default', 'via', UPLINK_HOST],
      ])
        await run('ip', ['-n', INET_NS, ...args]);
      await run('ip', ['route', 'add', `${METADATA}/32`, 'via', UPLINK_PEER, 'table', ROUTE_TABLE]);
      await run('ip', ['rule', 'add', 'from', CIDR, 'table', ROUTE_TABLE]);
      children.push(await echoIn(INET_NS, 8080));
    }

    it('blocks the API server, the host, metadata and other sandboxes; allows the internet', async () => {
      const net = bridgeNet('state');
      const hash = 'abc123';
      const sandboxUid = await pod('sandbox', {
        'agents.x-k8s.io/sandbox-template-ref-hash': hash,
      });
      const otherUid = await pod('other', { app: 'web' });
      const sandbox = await net.setUp(target(sandboxUid, 'sandbox'));
      const other = await net.setUp(target(otherUid, 'other'));
      const [sIp, oIp] = [sandbox.ips[0] as string, other.ips[0] as string];
      await internet();
      children.push(
        await echoIn(`${PREFIX}-${sandboxUid}`, 8080),
        await echoIn(`${PREFIX}-${otherUid}`, 8080),
      );
      // What stands for the API server: a host port on every address.
      const apiLike: Server = createServer((s) => s.pipe(s));
      await new Promise<void>((r) => apiLike.listen(0, '0.0.0.0', r));
      const hostPort = (apiLike.address() as { port: number }).port;
      const sNs = `${PREFIX}-${sandboxUid}`;
      const oNs = `${PREFIX}-${otherUid}`;
      const reach = async () => ({
        internet: await probe(sNs, UPLINK_PEER, 8080),
        metadata: await probe(sNs, METADATA, 8080),
        hostGateway: await probe(sNs, GATEWAY, hostPort),
        hostUplink: await probe(sNs, UPLINK_HOST, hostPort),
        otherSandbox: await probe(sNs, oIp, 8080),
        intoSandbox: await probe(oNs, sIp, 8080),
        otherToHost: await probe(oNs, GATEWAY, hostPort),
        hostToSandbox: await probe(undefined, sIp, 8080),
      });
      const open = {
        internet: 'ok',
        metadata: 'ok',
        hostGateway: 'ok',
        hostUplink: 'ok',
        otherSandbox: 'ok',
        intoSandbox: 'ok',
        otherToHost: 'ok',
        hostToSandbox: 'ok',
      };
      expect(await reach()).toEqual(open);

      await client.create(NETWORK_POLICIES, {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'tmpl-network-policy', namespace: 'default' },
        spec: {
          podSelector: { matchLabels: { 'agents.x-k8s.io/sandbox-template-ref-hash': hash } },
          policyTypes: ['Ingress', 'Egress'],
          ingress: [
            {
              from: [
                {
                  namespaceSelector: {
                    matchLabels: { 'kubernetes.io/metadata.name': 'agent-sandbox-system' },
                  },
                  podSelector: { matchLabels: { app: 'sandbox-router' } },
                },
              ],
            },
          ],
          egress: [
            {
              to: [
                {
                  ipBlock: {
                    cidr: '0.0.0.0/0',
                    except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'],
                  },
                },
                { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10'] } },
              ],
            },
          ],
        },
      });
      const enforcer = new PolicyEnforcer({
        client,
        table: POLICY_TABLE,
        podIps: () => net.ipam.entries(),
      });
      await enforcer.sync();
      expect(await reach()).toEqual({
        ...open,
        metadata: 'fail',
        hostGateway: 'fail',
        hostUplink: 'fail',
        otherSandbox: 'fail',
        intoSandbox: 'fail',
      });
      // Deleting the policy opens everything again (level-triggered sync).
      await client.delete(NETWORK_POLICIES, 'default', 'tmpl-network-policy');
      await enforcer.sync();
      expect(await reach()).toEqual(open);
      await enforcer.remove();
      apiLike.close();
    });
  });
});
