// Cluster DNS answers (pure): what kube-dns/CoreDNS would say for names under the cluster domain,
// from the current Services and Pods. One deviation, because this node has no Service proxy: a
// Service name answers with the IPs of its ready Pods (as headless Services do) instead of an
// unreachable ClusterIP, so `wget http://<svc>` works inside a sandbox.
import type { Pod, Service } from '@agent-sandbox/kube-types';
import { selects } from '../policy/compile.ts';

export interface ClusterView {
  services: readonly Service[];
  pods: readonly Pod[];
}

export type DnsAnswer =
  { type: 'A'; name: string; data: string } | { type: 'CNAME'; name: string; data: string };

export interface DnsResult {
  /** NOERROR with no answers is "the name exists, no record of that type" (NODATA). */
  rcode: 'NOERROR' | 'NXDOMAIN';
  answers: DnsAnswer[];
}

const NXDOMAIN: DnsResult = { rcode: 'NXDOMAIN', answers: [] };

function isReady(p: Pod): boolean {
  return (
    p.status?.phase === 'Running' &&
    !p.metadata?.deletionTimestamp &&
    (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

function serviceIps(svc: Service, pods: readonly Pod[]): string[] {
  const ns = svc.metadata?.namespace ?? 'default';
  const selector = svc.spec?.selector;
  if (!selector || Object.keys(selector).length === 0) return [];
  const notReadyToo = svc.spec?.publishNotReadyAddresses === true;
  return pods
    .filter(
      (p) =>
        (p.metadata?.namespace ?? 'default') === ns &&
        p.status?.podIP &&
        (notReadyToo ? p.status.phase === 'Running' : isReady(p)) &&
        selects({ matchLabels: selector }, p.metadata?.labels ?? {}),
    )
    .map((p) => p.status?.podIP as string)
    .sort();
}

/**
 * Answers one question for a name under `domain` (lower-case, no trailing dot):
 * `<svc>.<ns>.svc.<domain>`, `<hostname>.<subdomain>.<ns>.svc.<domain>` (a Pod with
 * spec.hostname and spec.subdomain naming a Service in its namespace) and
 * `<a-b-c-d>.<ns>.pod.<domain>`. `type` is the question's type; only A gets addresses.
 */
export function answerClusterName(
  name: string,
  type: string,
  view: ClusterView,
  domain: string,
): DnsResult {
  const suffix = `.${domain}`;
  if (!name.endsWith(suffix)) return NXDOMAIN;
  const labels = name.slice(0, -suffix.length).split('.');
  const records = clusterRecords(labels, view);
  if (!records) return NXDOMAIN;
  const wanted = records.filter((r) => type === 'ANY' || r.type === type || r.type === 'CNAME');
  return { rcode: 'NOERROR', answers: wanted.map((r) => ({ ...r, name }) as DnsAnswer) };
}

type Rec = { type: 'A' | 'CNAME'; data: string };

/** The records of a cluster name (labels before the domain), or undefined when none exists. */
function clusterRecords(labels: string[], view: ClusterView): Rec[] | undefined {
  const kind = labels.at(-1);
  if (kind === 'pod' && labels.length === 3) {
    const ip = (labels[0] ?? '').split('-').join('.');
    return /^(\d{1,3}\.){3}\d{1,3}$/.test(ip) ? [{ type: 'A', data: ip }] : undefined;
  }
  if (kind !== 'svc') return undefined;
  if (labels.length === 3) {
    const [svcName, ns] = labels as [string, string];
    const svc = view.services.find(
      (s) => s.metadata?.name === svcName && (s.metadata?.namespace ?? 'default') === ns,
    );
    if (!svc) return undefined;
    if (svc.spec?.type === 'ExternalName' && svc.spec.externalName)
      return [{ type: 'CNAME', data: svc.spec.externalName }];
    return serviceIps(svc, view.pods).map((data) => ({ type: 'A', data }));
  }
  if (labels.length === 4) {
    const [host, sub, ns] = labels as [string, string, string];
    const hasService = view.services.some(
      (s) => s.metadata?.name === sub && (s.metadata?.namespace ?? 'default') === ns,
    );
    const pod = view.pods.find(
      (p) =>
        (p.metadata?.namespace ?? 'default') === ns &&
        p.spec?.hostname === host &&
        p.spec?.subdomain === sub &&
        p.status?.podIP,
    );
    if (!hasService || !pod) return undefined;
    return [{ type: 'A', data: pod.status?.podIP as string }];
  }
  return undefined;
}
