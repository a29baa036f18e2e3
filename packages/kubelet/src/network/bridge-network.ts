// The Pod network: each Pod gets its own network namespace with `lo` up and an `eth0` veth whose
// host end is a port of one host bridge; the Pod's IP comes from the persisted IPAM, its default
// route is the bridge address, and traffic leaving the pod CIDR is masqueraded. Pods and the host
// reach each other directly. NetworkPolicy is enforced by policy/ on the same bridge.
import { createHash } from 'node:crypto';
import { access, readdir, readlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { runCommand } from '../host/run-command.ts';
import { ip, ipBatch, nft, sysctl } from './host-commands.ts';
import { Ipam, macOfIp, numberToIp } from './ipam.ts';
import { NetnsPool, type PoolEntry } from './netns-pool.ts';
import type { PodNetwork, PodNetworkStatus, PodNetworkTarget } from './pod-network.ts';

const NETNS_DIR = '/run/netns';

export interface BridgePodNetworkOptions {
  /** Directory for the IPAM state (`ipam.json`). */
  stateDir: string;
  /** @default '10.88.0.0/16' */
  podCidr?: string;
  /** Host bridge name (at most 15 characters). @default 'asb0' */
  bridge?: string;
  /** Prefix of the netns and host veth names this network owns. @default 'asb' */
  prefix?: string;
  /** Cluster DNS domain for the search path. @default 'cluster.local' */
  clusterDomain?: string;
  /**
   * The nameserver Pods get in resolv.conf, with the cluster search path. Absent: Pods get no
   * DNS settings from the network (the runtime keeps its default).
   */
  nameserver?: string;
  /**
   * Pod networks kept made ahead once `prepare()` was called (netns-pool.ts): a cold start takes
   * one instead of making its own. @default 0
   */
  poolSize?: number;
  /** The most kept made ahead while recent cold starts outnumber poolSize. @default poolSize */
  poolMaxSize?: number;
  /** Hears a pool refill or removal that failed (the pool stays short until the next take). */
  onPoolError?: (err: unknown) => void;
}

/**
 * Wait after a Pod took a made network before making the next, off that Pod's start, when the
 * agent does not say sooner that no start is under way (idle()).
 */
const POOL_REFILL_DELAY_MS = 1000;

/** The IPAM key, and so the netns and veth names, of a network made ahead with address `ip`. */
function poolKey(ip: string): string {
  return `pool-${ip.replaceAll('.', '-')}`;
}

/** Everything of one Pod's network that lives on the host, by name. */
export interface PodNetworkNames {
  netns: string;
  hostVeth: string;
}

export class BridgePodNetwork implements PodNetwork {
  readonly mode: string;
  readonly ipam: Ipam;
  readonly bridge: string;
  readonly #prefix: string;
  readonly #domain: string;
  readonly #nameserver: string | undefined;
  #ready: Promise<void> | undefined;
  readonly #pool: NetnsPool;
  #pending = 0;
  /** Whether the bridge was ever made or found here (then its absence means it was removed). */
  #bridgeSeen = false;
  /** Counts the bridge's re-makings: a made-ahead network made before the last one is stale. */
  #bridgeEpoch = 0;
  /** The bridge epoch each held made-ahead network was made in, by its key. */
  readonly #aheadEpochs = new Map<string, number>();

  constructor(options: BridgePodNetworkOptions) {
    const cidr = options.podCidr ?? '10.88.0.0/16';
    this.ipam = new Ipam(join(options.stateDir, 'ipam.json'), cidr);
    this.bridge = options.bridge ?? 'asb0';
    this.#prefix = options.prefix ?? 'asb';
    this.#domain = options.clusterDomain ?? 'cluster.local';
    this.#nameserver = options.nameserver;
    this.mode = `bridge (${this.bridge} ${cidr})`;
    this.#pool = new NetnsPool({
      size: options.poolSize ?? 0,
      ...(options.poolMaxSize !== undefined ? { maxSize: options.poolMaxSize } : {}),
      refillDelayMs: POOL_REFILL_DELAY_MS,
      make: () => this.#makeAhead(),
      remove: (e) => this.tearDown({ uid: e.key }),
      stale: (e) => this.#aheadEpochs.get(e.key) !== this.#bridgeEpoch,
      onError: options.onPoolError ?? (() => undefined),
    });
  }

  /** Starts keeping `poolSize` Pod networks made ahead (after the agent removed stale ones). */
  prepare(): void {
    this.#pool.start();
  }

  /** No Pod start is under way: the pool refills now. */
  idle(): void {
    this.#pool.idle();
  }

  /** Stops the pool and removes the networks no Pod took. */
  drain(): Promise<void> {
    return this.#pool.drain();
  }

  /** Made-ahead networks ready to be taken. */
  get pooled(): number {
    return this.#pool.readyCount;
  }

  /** The pod CIDR in CIDR notation. */
  get podCidr(): string {
    return `${numberToIp(this.ipam.cidr.network)}/${this.ipam.prefixLength}`;
  }

  /** The nft table that masquerades Pod traffic leaving the pod CIDR. */
  get natTable(): string {
    return `${this.#prefix}_nat_${this.bridge}`.replace(/[^a-zA-Z0-9_]/g, '_');
  }

  names(uid: string): PodNetworkNames {
    const h = createHash('sha256').update(uid).digest('hex').slice(0, 10);
    return {
      netns: `${this.#prefix}-${uid}`,
      hostVeth: `${this.#prefix}h${h}`.slice(0, 15),
    };
  }

  /** Creates the bridge, forwarding and masquerading once; idempotent. */
  ensureBridge(): Promise<void> {
    this.#ready ??= this.#createBridge().catch((err: unknown) => {
      this.#ready = undefined;
      throw err;
    });
    return this.#ready;
  }

  async #createBridge(): Promise<void> {
    const exists = (await runCommand('ip', ['link', 'show', this.bridge])).code === 0;
    // Made again after it went (another process removed it): the networks made ahead on the old
    // one are detached from it (their veth has no master) and go once it is ready.
    const remade = !exists && this.#bridgeSeen;
    // A bridge given no address takes its lowest port's MAC and changes it as ports come and go.
    // Pods keep the gateway's old MAC in their neighbour table (REACHABLE for up to ~45 s, and
    // nothing tells them), so once the Pod holding that MAC is deleted their packets to the
    // host went nowhere: a daemon's first answer to the SDK never arrived (channel CONNECTING).
    // An address set by hand never changes; made from the gateway IP, it is the same after a
    // restart (docker0 and CNI bridges pin theirs for the same reason).
    const mac = macOfIp(this.ipam.gateway);
    if (!exists)
      await ip(
        ['link', 'add', this.bridge, 'address', mac, 'type', 'bridge'],
        `create bridge ${this.bridge}`,
      );
    else await ip(['link', 'set', this.bridge, 'address', mac], `pin the MAC of ${this.bridge}`);
    const addr = `${this.ipam.gateway}/${this.ipam.prefixLength}`;
    const shown = await ip(
      ['-4', 'addr', 'show', 'dev', this.bridge],
      `read the address of ${this.bridge}`,
    );
    if (!shown.includes(` ${addr} `))
      await ip(['addr', 'add', addr, 'dev', this.bridge], `address bridge ${this.bridge}`);
    await ip(['link', 'set', this.bridge, 'up'], `bring up bridge ${this.bridge}`);
    await sysctl('net/ipv4/ip_forward', '1');
    // Bridged Pod-to-Pod packets must pass the inet hooks (with conntrack) for NetworkPolicy.
    await sysctl('net/bridge/bridge-nf-call-iptables', '1').catch(() => undefined);
    const cidr = this.podCidr;
    await nft(
      [
        `table inet ${this.natTable}`,
        `delete table inet ${this.natTable}`,
        `table inet ${this.natTable} {`,
        '  chain postrouting {',
        '    type nat hook postrouting priority srcnat; policy accept;',
        `    ip saddr ${cidr} ip daddr != ${cidr} masquerade`,
        '  }',
        '}',
      ].join('\n'),
      `masquerade the pod CIDR ${cidr}`,
    );
    this.#bridgeSeen = true;
    if (remade) {
      this.#bridgeEpoch++;
      void this.#pool.renew();
    }
  }

  async setUp(pod: PodNetworkTarget): Promise<PodNetworkStatus> {
    await this.ensureBridge();
    try {
      return await this.#setUp(pod);
    } catch (err) {
      // The bridge may have gone under us (another process removed it): the next set-up (the
      // worker's retry) checks it again and re-creates it, as the CNI bridge plugin does.
      this.#ready = undefined;
      throw err;
    }
  }

  async #setUp(pod: PodNetworkTarget): Promise<PodNetworkStatus> {
    if (this.ipam.lookup(pod.uid) === undefined) {
      const ahead = this.#pool.take();
      if (ahead) this.#aheadEpochs.delete(ahead.key);
      // One made on a bridge since removed is detached: the path below makes it again.
      if (ahead && this.ipam.rekey(ahead.key, pod.uid)) {
        const n = this.names(ahead.key);
        if (await this.#onBridge(n.hostVeth)) return this.#status(pod, n, ahead.ip);
      }
    }
    const netns = await this.#netnsNames();
    const n = this.#namesOf(pod.uid, netns);
    const podIp = this.ipam.allocate(pod.uid);
    const status = this.#status(pod, n, podIp);
    const made = netns.includes(n.netns);
    if (made && (await this.#configured(n, podIp))) return status;
    // Start over from nothing for a half-made Pod network (an agent stopped mid-setup).
    await this.#remove(n, made);
    await this.#create(n, podIp);
    return status;
  }

  /** A Pod network made ahead under a key of its address (netns-pool.ts). */
  async #makeAhead(): Promise<PoolEntry> {
    await this.ensureBridge();
    const pending = `pool-pending-${this.#pending++}`;
    const ip = this.ipam.allocate(pending);
    const key = poolKey(ip);
    this.ipam.rekey(pending, key);
    this.#aheadEpochs.set(key, this.#bridgeEpoch);
    try {
      await this.#create(this.names(key), ip);
    } catch (err) {
      await this.tearDown({ uid: key }).catch(() => undefined);
      throw err;
    }
    return { key, ip };
  }

  /**
   * The names of `uid`'s network: its own, or those of the made-ahead network it took (found
   * by its address), so teardown and re-adoption after a restart need no other record.
   */
  #namesOf(uid: string, netns: readonly string[]): PodNetworkNames {
    const own = this.names(uid);
    if (netns.includes(own.netns)) return own;
    const ip = this.ipam.lookup(uid);
    const taken = ip === undefined ? undefined : this.names(poolKey(ip));
    return taken && netns.includes(taken.netns) ? taken : own;
  }

  async #create(n: PodNetworkNames, podIp: string): Promise<void> {
    // The peer is made inside the netns under its final name, so it never shows on the host.
    await ipBatch(
      [
        `netns add ${n.netns}`,
        `link add ${n.hostVeth} type veth peer name eth0 address ${macOfIp(podIp)} netns ${n.netns}`,
        `link set ${n.hostVeth} master ${this.bridge}`,
        `link set ${n.hostVeth} up`,
      ],
      `create network namespace ${n.netns} with veth ${n.hostVeth} on ${this.bridge}`,
    );
    await ipBatch(
      [
        `addr add ${podIp}/${this.ipam.prefixLength} dev eth0`,
        'link set eth0 up',
        'link set lo up',
        `route add default via ${this.ipam.gateway}`,
      ],
      `address eth0 in ${n.netns} with ${podIp} via ${this.ipam.gateway}`,
      n.netns,
    );
  }

  #status(pod: PodNetworkTarget, n: PodNetworkNames, podIp: string): PodNetworkStatus {
    const d = this.#domain;
    const status: PodNetworkStatus = { netnsPath: `${NETNS_DIR}/${n.netns}`, ips: [podIp] };
    if (this.#nameserver)
      status.dns = {
        nameservers: [this.#nameserver],
        searches: [`${pod.namespace}.svc.${d}`, `svc.${d}`, d],
        options: ['ndots:5'],
      };
    return status;
  }

  async #configured(n: PodNetworkNames, podIp: string): Promise<boolean> {
    const r = await runCommand('ip', ['-n', n.netns, '-4', 'addr', 'show', 'dev', 'eth0']);
    const host = await runCommand('ip', ['link', 'show', n.hostVeth]);
    return (
      r.code === 0 &&
      r.stdout.includes(` ${podIp}/`) &&
      host.code === 0 &&
      host.stdout.includes(`master ${this.bridge}`)
    );
  }

  /** Whether host veth `veth` is a port of the bridge (sysfs: no `ip` spawned on this path). */
  async #onBridge(veth: string): Promise<boolean> {
    const master = await readlink(`/sys/class/net/${veth}/master`).catch(() => '');
    return basename(master) === this.bridge;
  }

  /** Removes `n`; `netnsMade` from the caller's read of /run/netns (once per set-up or teardown). */
  async #remove(n: PodNetworkNames, netnsMade: boolean): Promise<void> {
    if (netnsMade) await ip(['netns', 'delete', n.netns], `delete network namespace ${n.netns}`);
    // Deleting the netns takes its veth end and so the pair, asynchronously; a pair never moved
    // is left here. A device that vanished meanwhile is what we wanted. sysfs answers without
    // spawning ip (this runs before every Pod's setup).
    if (await exists(`/sys/class/net/${n.hostVeth}`)) {
      const r = await runCommand('ip', ['link', 'delete', n.hostVeth]);
      if (r.code !== 0 && !/Cannot find device/.test(r.stderr))
        await ip(['link', 'delete', n.hostVeth], `delete veth ${n.hostVeth}`);
    }
  }

  async tearDown(pod: Pick<PodNetworkTarget, 'uid'>): Promise<void> {
    this.#aheadEpochs.delete(pod.uid);
    const netns = await this.#netnsNames();
    const n = this.#namesOf(pod.uid, netns);
    await this.#remove(n, netns.includes(n.netns));
    this.ipam.release(pod.uid);
  }

  async list(): Promise<string[]> {
    const prefix = `${this.#prefix}-`;
    const fromNetns = (await this.#netnsNames())
      .filter((n) => n.startsWith(prefix))
      .map((n) => n.slice(prefix.length));
    return [...new Set([...fromNetns, ...this.ipam.entries().map(([uid]) => uid)])];
  }

  /** Removes the bridge and the NAT table (after every Pod was torn down); idempotent. */
  async destroy(): Promise<void> {
    await this.drain();
    this.#ready = undefined;
    if ((await runCommand('ip', ['link', 'show', this.bridge])).code === 0)
      await ip(['link', 'delete', this.bridge], `delete bridge ${this.bridge}`);
    await runCommand('nft', ['delete', 'table', 'inet', this.natTable]);
  }

  async #netnsNames(): Promise<string[]> {
    return readdir(NETNS_DIR).catch(() => [] as string[]);
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
