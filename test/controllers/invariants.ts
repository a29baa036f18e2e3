// The converged state the restart-chaos scenario demands, checked on objects listed straight from
// the API server (spec §8.1, §11). Pure: the driver's record of what it wrote and the listed
// objects in, one line per violation out (empty = converged and correct).
import { Annotations, Labels, SandboxReason, nameHash, type v1beta1 } from '@agent-sandbox/api';
import { SANDBOX_FIELD_OWNER } from '@agent-sandbox/controllers';
import type {
  Condition,
  KubeObject,
  OwnerReference,
  PersistentVolumeClaim,
  Pod,
  Service,
} from '@agent-sandbox/kube-types';
import { isDeepStrictEqual } from 'node:util';
import type { OperatingMode, PlannedSandbox } from './chaos-plan.ts';

export type SandboxObject = v1beta1.Sandbox & KubeObject;

/** What the driver wrote for one Sandbox, from the API server's answers to its own writes. */
export interface DriverRecord {
  planned: PlannedSandbox;
  /** From the create response; absent until the create succeeded. */
  uid?: string;
  /** The spec.shutdownTime the driver wrote. */
  shutdownTime?: string;
  /** The operatingMode of the driver's last successful write. */
  mode: OperatingMode;
  /** metadata.generation and spec as the API server returned them to the driver's last write. */
  generation: number;
  spec?: SandboxObject['spec'];
}

export interface ObservedState {
  sandboxes: SandboxObject[];
  pods: (Pod & KubeObject)[];
  services: (Service & KubeObject)[];
  pvcs: (PersistentVolumeClaim & KubeObject)[];
}

export interface InvariantOptions {
  namespace: string;
  now: Date;
  /** @default 'cluster.local' */
  clusterDomain?: string;
  /**
   * Finalizers no controller on the target removes (the harness cluster runs no PVC-protection
   * controller): a deleted object held only by these counts as gone.
   */
  unservedFinalizers?: readonly string[];
}

type Child = { kind: string; obj: KubeObject };

function controllerRef(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

function cond(s: SandboxObject, type: string): Condition | undefined {
  return s.status?.conditions?.find((c) => c.type === type);
}

function isPodReady(pod: Pod): boolean {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  return ready && (pod.status?.podIPs?.length ?? 0) > 0;
}

/** `service=true, 1 PVCs, Delete at <time>, Suspended` — for violation messages. */
function describeIntent(record: DriverRecord): string {
  const p = record.planned;
  const parts = [
    `service=${record.spec?.service ?? 'unset'}`,
    `${p.volumeClaimTemplates.length} PVCs`,
  ];
  if (record.shutdownTime) parts.push(`${p.expiry?.policy} at ${record.shutdownTime}`);
  parts.push(record.mode);
  return parts.join(', ');
}

/** Every violation of the converged state; [] when all hold. */
export function checkInvariants(
  records: readonly DriverRecord[],
  observed: ObservedState,
  options: InvariantOptions,
): string[] {
  const out: string[] = [];
  const unserved = options.unservedFinalizers ?? [];
  // Gone for our purposes: deleted, and held only by finalizers nobody here will remove. A
  // deleted object without finalizers is still terminating (graceful Pod deletion).
  const isHeldOnlyByUnserved = (o: KubeObject): boolean => {
    const finalizers = o.metadata.finalizers ?? [];
    return finalizers.length > 0 && finalizers.every((f) => unserved.includes(f));
  };
  const present = <T extends KubeObject>(objs: T[]): T[] =>
    objs.filter((o) => !o.metadata.deletionTimestamp || !isHeldOnlyByUnserved(o));
  const state: ObservedState = {
    sandboxes: observed.sandboxes,
    pods: present(observed.pods),
    services: present(observed.services),
    pvcs: present(observed.pvcs),
  };
  const domain = options.clusterDomain ?? 'cluster.local';
  const sandboxes = new Map(state.sandboxes.map((s) => [s.metadata.name ?? '', s]));
  const liveUids = new Set(state.sandboxes.map((s) => s.metadata.uid));
  const children: Child[] = [
    ...state.pods.map((obj) => ({ kind: 'Pod', obj })),
    ...state.services.map((obj) => ({ kind: 'Service', obj })),
    ...state.pvcs.map((obj) => ({ kind: 'PVC', obj })),
  ];

  // Global: no orphans, no unowned tracked children, at most one Pod and Service per Sandbox.
  const perHash = new Map<string, string[]>();
  for (const { kind, obj } of children) {
    const id = `${kind} ${obj.metadata.name}`;
    if (obj.metadata.deletionTimestamp) out.push(`${id}: still terminating`);
    const ref = controllerRef(obj);
    const hash = obj.metadata.labels?.[Labels.SandboxNameHash];
    if (ref === undefined) out.push(`${id}: no controller owner (label hash ${hash ?? 'none'})`);
    else if (ref.kind !== 'Sandbox' || !liveUids.has(ref.uid))
      out.push(`${id}: orphan, controller owner ${ref.kind}/${ref.name} (${ref.uid}) is gone`);
    if (hash === undefined) out.push(`${id}: no ${Labels.SandboxNameHash} label`);
    else if (kind !== 'PVC')
      perHash.set(`${kind} ${hash}`, [...(perHash.get(`${kind} ${hash}`) ?? []), id]);
  }
  for (const [key, ids] of perHash)
    if (ids.length > 1)
      out.push(`${key}: ${ids.length} objects share one name hash: ${ids.join(', ')}`);

  const planned = new Set(records.map((r) => r.planned.name));
  for (const name of sandboxes.keys())
    if (!planned.has(name)) out.push(`Sandbox ${name}: not created by the driver`);

  for (const record of records) {
    const name = record.planned.name;
    const hash = nameHash(name);
    const own = (obj: KubeObject): boolean =>
      obj.metadata.labels?.[Labels.SandboxNameHash] === hash;
    const pods = state.pods.filter(own);
    const services = state.services.filter(own);
    const pvcs = state.pvcs.filter(own);
    const sandbox = sandboxes.get(name);
    const id = `Sandbox ${name} (${describeIntent(record)})`;
    if (record.uid === undefined) {
      out.push(`${id}: the driver never created it`);
      continue;
    }
    const expired =
      record.shutdownTime !== undefined && Date.parse(record.shutdownTime) <= options.now.getTime();
    const policy = record.planned.expiry?.policy;
    if (expired && policy === 'Delete') {
      if (sandbox !== undefined) out.push(`${id}: expired with policy Delete but still exists`);
      if (pods.length + services.length + pvcs.length > 0)
        out.push(
          `${id}: deleted, yet ${pods.length} Pods, ${services.length} Services, ${pvcs.length} PVCs remain`,
        );
      continue;
    }
    if (sandbox === undefined) {
      out.push(`${id}: missing`);
      continue;
    }
    if (sandbox.metadata.uid !== record.uid) out.push(`${id}: uid changed (recreated?)`);
    // The controller never writes the spec: generation and spec are what the driver last wrote.
    if (sandbox.metadata.generation !== record.generation)
      out.push(
        `${id}: generation ${sandbox.metadata.generation}, driver last wrote ${record.generation}`,
      );
    if (!isDeepStrictEqual(sandbox.spec, record.spec))
      out.push(`${id}: spec differs from the driver's last write`);
    // ...and the server's field ownership agrees: the controller's field manager owns no spec field.
    const specOwner = (sandbox.metadata.managedFields ?? []).find(
      (m) =>
        m.manager === SANDBOX_FIELD_OWNER && JSON.stringify(m.fieldsV1 ?? {}).includes('"f:spec"'),
    );
    if (specOwner) out.push(`${id}: managedFields: ${SANDBOX_FIELD_OWNER} owns spec fields`);
    // Expiry teardown rewrites Ready only; Suspended and Finished keep their last values (§11.7).
    for (const c of sandbox.status?.conditions ?? [])
      if ((!expired || c.type === 'Ready') && c.observedGeneration !== sandbox.metadata.generation)
        out.push(
          `${id}: condition ${c.type} observedGeneration ${c.observedGeneration} ≠ ${sandbox.metadata.generation}`,
        );

    const ownedBy = (obj: KubeObject): boolean => controllerRef(obj)?.uid === record.uid;
    // PVCs: one per template, owned, never deleted by the controller (not on suspend or expiry).
    // A Sandbox that expired before its first reconcile never got them: expiry is checked first.
    const templates = record.planned.volumeClaimTemplates;
    for (const template of templates) {
      const matching = pvcs.filter((p) => p.metadata.name === `${template}-${name}`);
      if (matching.length > 1 || !matching.every(ownedBy) || (matching.length === 0 && !expired))
        out.push(
          `${id}: PVC ${template}-${name}: want exactly one owned by the Sandbox, found ${matching.length}`,
        );
    }
    const stray = pvcs.filter((p) => !templates.some((t) => p.metadata.name === `${t}-${name}`));
    if (stray.length > 0)
      out.push(`${id}: unexpected PVCs ${stray.map((p) => p.metadata.name).join(', ')}`);

    const ready = cond(sandbox, 'Ready');
    const status = sandbox.status ?? {};
    if (expired) {
      // Retain: Pod and Service torn down, status reset, Ready SandboxExpired.
      if (pods.length > 0) out.push(`${id}: expired (Retain) but has ${pods.length} Pods`);
      if (services.length > 0)
        out.push(`${id}: expired (Retain) but has ${services.length} Services`);
      if (ready?.status !== 'False' || ready.reason !== SandboxReason.SandboxExpired)
        out.push(
          `${id}: expired: Ready ${ready?.status}/${ready?.reason}, want False/SandboxExpired`,
        );
      if (status.service || status.serviceFQDN || status.podIPs?.length || status.selector)
        out.push(`${id}: expired: status still names a Service, Pod IPs or a selector`);
      continue;
    }

    // Service: exactly one iff spec.service is true (unset never creates one; false deletes).
    const wantService = record.spec?.service === true;
    if (wantService) {
      const ok =
        services.length === 1 && services[0]?.metadata.name === name && ownedBy(services[0]);
      if (!ok) out.push(`${id}: want one owned Service named ${name}, found ${services.length}`);
      if (
        status.service !== name ||
        status.serviceFQDN !== `${name}.${options.namespace}.svc.${domain}`
      )
        out.push(`${id}: status.service/serviceFQDN ${status.service}/${status.serviceFQDN}`);
    } else {
      if (services.length > 0)
        out.push(`${id}: spec.service ${record.spec?.service}, yet ${services.length} Services`);
      if (status.service || status.serviceFQDN)
        out.push(`${id}: status names Service ${status.service}`);
    }

    const suspended = cond(sandbox, 'Suspended');
    const podNameAnnotation = sandbox.metadata.annotations?.[Annotations.PodName];
    if (record.mode === 'Suspended') {
      if (pods.length > 0) out.push(`${id}: suspended but has ${pods.length} Pods`);
      if (suspended?.status !== 'True' || suspended.reason !== SandboxReason.PodTerminated)
        out.push(
          `${id}: Suspended ${suspended?.status}/${suspended?.reason}, want True/PodTerminated`,
        );
      if (ready?.status !== 'False' || ready.reason !== SandboxReason.SandboxSuspended)
        out.push(
          `${id}: suspended: Ready ${ready?.status}/${ready?.reason}, want False/SandboxSuspended`,
        );
      if (podNameAnnotation !== undefined)
        out.push(`${id}: suspended but keeps ${Annotations.PodName}`);
      if (status.podIPs?.length)
        out.push(`${id}: suspended but status.podIPs ${status.podIPs.join(',')}`);
      continue;
    }

    // Running: exactly one Pod, named after the Sandbox, controller-owned, recorded in pod-name.
    const pod = pods[0];
    if (pods.length !== 1 || pod === undefined) {
      out.push(`${id}: running: want exactly one Pod, found ${pods.length}`);
      continue;
    }
    if (pod.metadata.name !== name) out.push(`${id}: Pod is named ${pod.metadata.name}`);
    if (!ownedBy(pod)) out.push(`${id}: Pod ${pod.metadata.name} is not controller-owned by it`);
    if (podNameAnnotation !== pod.metadata.name)
      out.push(`${id}: ${Annotations.PodName}=${podNameAnnotation}, Pod is ${pod.metadata.name}`);
    if (suspended?.status !== 'False' || suspended.reason !== SandboxReason.NotSuspended)
      out.push(
        `${id}: running: Suspended ${suspended?.status}/${suspended?.reason}, want False/NotSuspended`,
      );
    const podReady = isPodReady(pod);
    const wantReady = podReady && (!wantService || services.length === 1);
    if (wantReady && (ready?.status !== 'True' || ready.reason !== SandboxReason.DependenciesReady))
      out.push(`${id}: Pod ready, Sandbox Ready ${ready?.status}/${ready?.reason}`);
    if (
      !wantReady &&
      (ready?.status !== 'False' || ready.reason !== SandboxReason.DependenciesNotReady)
    )
      out.push(`${id}: Pod not ready, Sandbox Ready ${ready?.status}/${ready?.reason}`);
    const podIPs = (pod.status?.podIPs ?? []).map((p) => p.ip);
    if (!isDeepStrictEqual(status.podIPs ?? [], podIPs))
      out.push(
        `${id}: status.podIPs ${JSON.stringify(status.podIPs)} ≠ Pod ${JSON.stringify(podIPs)}`,
      );
  }
  return out;
}
