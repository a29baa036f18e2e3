// The request contract (dataplane §2.2, §2.3): routing headers validated in upstream's order with
// upstream's messages, and the per-sandbox host names we add (`<port>-<sandbox>.<namespace>.
// <domain>`). Pure: headers in, a target or a 400 detail out.
import { BlockList, isIP } from 'node:net';
import {
  ROUTER_DEFAULT_NAMESPACE,
  ROUTER_DEFAULT_PORT,
  RouterDetail,
} from '@agent-sandbox/protocol';

export interface RouteTarget {
  id: string;
  namespace: string;
  port: number;
  podIp?: string;
  uid?: string;
}

export type RouteResult =
  { ok: true; target: RouteTarget } | { ok: false; detail: string; namespace?: string };

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
export const isDnsLabel = (s: string) => DNS_LABEL.test(s);

const DENIED = new BlockList();
DENIED.addAddress('0.0.0.0');
DENIED.addSubnet('169.254.0.0', 16); // link-local unicast (cloud metadata lives here)
DENIED.addSubnet('224.0.0.0', 4); // multicast, incl. link-local multicast
DENIED.addAddress('::', 'ipv6');
DENIED.addSubnet('fe80::', 10, 'ipv6');
DENIED.addSubnet('ff00::', 8, 'ipv6');
// Beyond Go's checks: cloud metadata services outside link-local. A pod IP is never one of them.
DENIED.addAddress('fd00:ec2::254', 'ipv6'); // AWS IMDS over IPv6
DENIED.addAddress('100.100.100.200'); // Alibaba Cloud metadata
DENIED.addAddress('192.0.0.192'); // Oracle Cloud metadata (IPv4 special-purpose block)
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8);
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * An IPv4-mapped IPv6 literal as its IPv4 address (Go's To4 does the same), and beyond Go a
 * NAT64 well-known-prefix one (64:ff9b::/96), which a NAT64 gateway turns into that IPv4 address.
 */
function unmapped(raw: string): string {
  if (isIP(raw) !== 6) return raw;
  const normal = new URL(`http://[${raw}]/`).hostname.slice(1, -1);
  const m = /^(?:::ffff|64:ff9b:):([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(normal);
  if (!m) return raw;
  const [hi, lo] = [parseInt(m[1]!, 16), parseInt(m[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/**
 * Go's net.IP checks: unspecified, link-local unicast, link-local multicast and multicast are
 * always refused; loopback only when `allowLoopback` is off (dataplane §2.2).
 */
export function isAllowedPodIp(raw: string, allowLoopback: boolean): boolean {
  const ip = unmapped(raw);
  const kind = isIP(ip);
  if (kind === 0) return false;
  const family = kind === 4 ? 'ipv4' : 'ipv6';
  if (DENIED.check(ip, family)) return false;
  if (LOOPBACK.check(ip, family)) return allowLoopback;
  return true;
}

export interface RouteOptions {
  allowLoopbackPodIp: boolean;
}

/**
 * Validates the routing headers in upstream's order. `get` returns the first value of a header
 * (case-insensitive) or undefined. Empty namespace, port and pod IP count as absent.
 */
export function parseRoute(
  get: (name: string) => string | undefined,
  o: RouteOptions,
): RouteResult {
  const id = get('x-sandbox-id') ?? '';
  if (id === '') return { ok: false, detail: RouterDetail.missingId };
  if (!isDnsLabel(id)) return { ok: false, detail: RouterDetail.badId };
  const namespace = get('x-sandbox-namespace') || ROUTER_DEFAULT_NAMESPACE;
  if (!isDnsLabel(namespace)) return { ok: false, detail: RouterDetail.badNamespace };
  const portText = get('x-sandbox-port') || String(ROUTER_DEFAULT_PORT);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 1 && port <= 65535)) return { ok: false, detail: RouterDetail.badPort, namespace };
  const podIp = get('x-sandbox-pod-ip') || undefined;
  if (podIp !== undefined && !isAllowedPodIp(podIp, o.allowLoopbackPodIp)) {
    return { ok: false, detail: RouterDetail.badPodIp, namespace };
  }
  const uid = get('x-sandbox-uid') || undefined;
  return {
    ok: true,
    target: { id, namespace, port, ...(podIp ? { podIp } : {}), ...(uid ? { uid } : {}) },
  };
}

/**
 * Beyond upstream: `<port>-<sandbox>.<namespace>.<domain>` in Host routes without headers, so a
 * browser can open a sandbox's web app. Returns the equivalent headers, or undefined when the
 * host is not under `domain`.
 */
export function hostRoute(
  host: string,
  domain: string | undefined,
): Record<string, string> | undefined {
  if (!domain) return undefined;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  const suffix = `.${domain.toLowerCase()}`;
  if (!name.endsWith(suffix)) return undefined;
  const m = /^(\d{1,5})-([a-z0-9-]+)\.([a-z0-9-]+)$/.exec(name.slice(0, -suffix.length));
  if (!m) return undefined;
  return { 'x-sandbox-port': m[1]!, 'x-sandbox-id': m[2]!, 'x-sandbox-namespace': m[3]! };
}
