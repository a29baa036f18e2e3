// Sandbox status fields (spec §3.2, §11.3 step 3, §11.6 "Status") and the write decision (§11.8).
import { Labels, SandboxConditionType, nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import { computeConditions, findCondition, type ObservedChildren } from './conditions.ts';
import { serviceFQDN } from './desired-service.ts';

type Sandbox = v1beta1.Sandbox;
type SandboxStatus = v1beta1.SandboxStatus;

/** The `--cluster-domain` default (spec §18.1). */
export const DEFAULT_CLUSTER_DOMAIN = 'cluster.local';

export interface ComputeStatusOptions {
  /** The cluster DNS domain used in `status.serviceFQDN`. @default 'cluster.local' */
  clusterDomain?: string;
}

/** `agents.x-k8s.io/sandbox-name-hash=<hash(name)>`: the selector of the Sandbox's Pod. */
export function sandboxSelector(sandbox: Sandbox): string {
  return `${Labels.SandboxNameHash}=${nameHash(sandbox.metadata.name ?? '')}`;
}

/**
 * The Sandbox's next status after a non-expired pass:
 * - no Pod → podIPs and nodeName cleared; a Pod (even a foreign one) → `selector` set, and it is
 *   never cleared afterwards (only expiry resets it, §23.6); podIPs and nodeName come only from an
 *   owned Pod, so a foreign Pod never leaks them
 *   (TestReconcileChildResourcesSuspendedForeignPodDoesNotLeakIPOrNodeName);
 * - `service`/`serviceFQDN` from the Service in use, cleared otherwise, left untouched while the
 *   Pod mapping is ambiguous (the service step is skipped then, §11.3 step 4) or when the service
 *   step failed;
 * - conditions from {@link computeConditions}.
 */
export function computeStatus(
  sandbox: Sandbox,
  observed: ObservedChildren,
  options: ComputeStatusOptions = {},
): SandboxStatus {
  const status: SandboxStatus = structuredClone(sandbox.status ?? {});
  const pod = observed.pod;
  if (pod === undefined || !observed.podOwned) {
    delete status.podIPs;
    delete status.nodeName;
  }
  if (pod !== undefined) {
    status.selector = sandboxSelector(sandbox);
    if (observed.podOwned) {
      const ips = (pod.status?.podIPs ?? []).map((ip) => ip.ip);
      if (ips.length > 0) status.podIPs = ips;
      else delete status.podIPs;
      const nodeName = pod.spec?.nodeName ?? '';
      if (nodeName !== '') status.nodeName = nodeName;
      else delete status.nodeName;
    }
  }
  if (observed.ownedPodCount <= 1 && observed.serviceError === undefined) {
    const service = observed.service;
    const name = service?.metadata?.name ?? '';
    if (service !== undefined && name !== '') {
      status.service = name;
      status.serviceFQDN = serviceFQDN(
        name,
        service.metadata?.namespace ?? sandbox.metadata.namespace ?? '',
        options.clusterDomain ?? DEFAULT_CLUSTER_DOMAIN,
      );
    } else {
      delete status.service;
      delete status.serviceFQDN;
    }
  }
  status.conditions = computeConditions(sandbox, observed);
  return status;
}

/** Drop empty values, as Go's `omitempty` does on the wire, so comparisons are semantic. */
function normalize(status: SandboxStatus | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(status ?? {})) {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) {
      continue;
    }
    out[key] = value;
  }
  return out;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Semantic equality of two statuses (apiequality.Semantic.DeepEqual on the wire form). */
export function statusEqual(a: SandboxStatus | undefined, b: SandboxStatus | undefined): boolean {
  return canonical(normalize(a)) === canonical(normalize(b));
}

/**
 * Whether the status must be written (§11.8): not when equal to the snapshot, and not when the
 * only difference is `nodeName` while Ready is not True — the node name rides with the next
 * write (TestReconcileCoalescesNodeNameStatusWrite).
 */
export function isStatusWriteNeeded(
  previous: SandboxStatus | undefined,
  next: SandboxStatus,
): boolean {
  if (statusEqual(previous, next)) return false;
  const nodeNameOnly =
    (previous?.nodeName ?? '') !== (next.nodeName ?? '') &&
    statusEqual(previous, { ...next, nodeName: previous?.nodeName ?? '' });
  const ready = findCondition(next.conditions, SandboxConditionType.Ready);
  return !(nodeNameOnly && ready?.status !== 'True');
}

/**
 * The body of the status write: an unlocked JSON merge patch of the status subresource (§11.8).
 * Changed fields are sent, removed ones as null; `conditions` is sent whole whenever it differs.
 */
export function statusMergePatch(
  previous: SandboxStatus | undefined,
  next: SandboxStatus,
): { status: Record<string, unknown> } {
  const before = normalize(previous);
  const after = normalize(next);
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) {
    if (canonical(before[key]) !== canonical(value)) patch[key] = value;
  }
  for (const key of Object.keys(before)) {
    if (!Object.hasOwn(after, key)) patch[key] = null;
  }
  return { status: patch };
}
