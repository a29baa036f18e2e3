// Pod IP allocation from one IPv4 CIDR, persisted so an agent restart keeps every Pod's address.
// The first host address is the bridge gateway; the rest go to Pods round-robin: the next free
// address after the last one handed out, wrapping at the end, so a released address comes back
// only after the rest of the range (as CNI's host-local does) — caches keyed by IP (neighbour
// entries, conntrack, a NetworkPolicy table not yet resynced) must not see a new Pod at once.
// The state file is rewritten atomically (temp file + rename) after each change.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { KubeletError } from '../errors.ts';

export function ipToNumber(ip: string): number {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new KubeletError('InvalidArgument', `"${ip}" is not an IPv4 address`);
  return (
    ((parts[0] as number) * 2 ** 24 +
      (parts[1] as number) * 2 ** 16 +
      (parts[2] as number) * 256 +
      (parts[3] as number)) >>>
    0
  );
}

export function numberToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export interface Cidr {
  network: number;
  prefixLength: number;
  size: number;
}

export function parseCidr(cidr: string): Cidr {
  const [ip, len] = cidr.split('/');
  const prefixLength = Number(len);
  if (ip === undefined || !Number.isInteger(prefixLength) || prefixLength < 0 || prefixLength > 32)
    throw new KubeletError(
      'InvalidArgument',
      `pod CIDR "${cidr}" is not an IPv4 CIDR such as 10.88.0.0/16`,
    );
  const size = 2 ** (32 - prefixLength);
  const network = Math.floor(ipToNumber(ip) / size) * size;
  return { network, prefixLength, size };
}

export function cidrContains(cidr: Cidr, ip: string): boolean {
  const n = ipToNumber(ip);
  return n >= cidr.network && n < cidr.network + cidr.size;
}

interface IpamState {
  cidr: string;
  /** pod uid → IP */
  allocations: Record<string, string>;
  /** The address handed out last; the search for a free one starts after it. */
  last?: string;
}

export class Ipam {
  readonly cidr: Cidr;
  readonly #state: IpamState;

  /**
   * @param file the state file (created on first allocation)
   * @throws KubeletError `InvalidArgument` when the file was written for another CIDR (changing
   * the pod CIDR would re-address running Pods: delete the file after stopping them)
   */
  constructor(
    readonly file: string,
    cidr: string,
  ) {
    this.cidr = parseCidr(cidr);
    if (this.cidr.size < 4)
      throw new KubeletError('InvalidArgument', `pod CIDR ${cidr} is too small: use /30 or larger`);
    let state: IpamState = { cidr, allocations: {} };
    try {
      state = JSON.parse(readFileSync(file, 'utf8')) as IpamState;
    } catch (err: unknown) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new KubeletError(
          'InvalidArgument',
          `cannot read IPAM state ${file}: ${(err as Error).message}; delete it to start over`,
        );
    }
    if (state.cidr !== cidr)
      throw new KubeletError(
        'InvalidArgument',
        `IPAM state ${file} is for pod CIDR ${state.cidr}, not ${cidr}: stop the pods and delete the file to change it`,
      );
    this.#state = state;
  }

  get gateway(): string {
    return numberToIp(this.cidr.network + 1);
  }

  get prefixLength(): number {
    return this.cidr.prefixLength;
  }

  lookup(uid: string): string | undefined {
    return this.#state.allocations[uid];
  }

  /** The pod's address: the one it has, or the next free one after the last handed out. */
  allocate(uid: string): string {
    const existing = this.lookup(uid);
    if (existing) return existing;
    const used = new Set(Object.values(this.#state.allocations));
    // .0 is the network, .1 the gateway, the last address the broadcast.
    const first = this.cidr.network + 2;
    const count = this.cidr.size - 3;
    const last = this.#state.last === undefined ? first - 1 : ipToNumber(this.#state.last);
    const start = cidrContains(this.cidr, numberToIp(last)) ? last - first + 1 : 0;
    for (let i = 0; i < count; i++) {
      const ip = numberToIp(first + ((start + i) % count));
      if (used.has(ip)) continue;
      this.#state.allocations[uid] = ip;
      this.#state.last = ip;
      this.#save();
      return ip;
    }
    throw new KubeletError('Network', `pod CIDR ${this.#state.cidr} has no free address left`);
  }

  /** Hands `from`'s address to `to` (a Pod taking a network made ahead); false when `from` has none. */
  rekey(from: string, to: string): boolean {
    const ip = this.#state.allocations[from];
    if (ip === undefined || to in this.#state.allocations) return false;
    delete this.#state.allocations[from];
    this.#state.allocations[to] = ip;
    this.#save();
    return true;
  }

  release(uid: string): void {
    if (!(uid in this.#state.allocations)) return;
    delete this.#state.allocations[uid];
    this.#save();
  }

  /** uid → IP of every allocation. */
  entries(): [string, string][] {
    return Object.entries(this.#state.allocations);
  }

  #save(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.#state, null, 2));
    renameSync(tmp, this.file);
  }
}

/**
 * Pure: the MAC of the Pod interface with address `ip` — locally administered `0a:58` and the
 * four address bytes (the OVN-Kubernetes scheme). A Pod that gets an address another Pod had
 * gets its MAC too, so the neighbour entries the host and other Pods hold for it stay right;
 * with a random MAC they pointed at a gone interface until they expired.
 */
export function macOfIp(ip: string): string {
  const n = ipToNumber(ip);
  const bytes = [0x0a, 0x58, n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** The bridge/gateway address of a pod CIDR (its first host address). */
export function gatewayOf(cidr: string): string {
  return numberToIp(parseCidr(cidr).network + 1);
}
