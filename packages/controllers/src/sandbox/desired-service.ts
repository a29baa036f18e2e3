// The headless Service of a Sandbox (spec §11.6): ports derived from the pod template, and the
// tri-state `spec.service` decision (true = ensure, unset = keep an existing one, false = delete).
import { Labels, nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import type { Container, Service, ServicePort } from '@agent-sandbox/kube-types';
import { ControllersError } from '../errors.ts';
import {
  checkOwnership,
  isAdoptable,
  notAdoptableError,
  ownedByOtherError,
  sandboxOwnerReference,
  withControllerReference,
} from './ownership.ts';

type Sandbox = v1beta1.Sandbox;

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Service ports from `containers[*].ports` and native sidecars (init containers with
 * `restartPolicy: Always`): port 0 skipped, protocol defaulting to TCP, deduplicated by
 * (port, protocol), sorted by port then protocol; the first explicit name for a key that no other
 * key took first, else `p-<port>-<protocol>` with `-2`, `-3`… until unique; targetPort = port.
 * No container ports → undefined (TestServicePortsForSandboxReturnsNilWithoutContainerPorts).
 */
export function servicePortsForSandbox(sandbox: Sandbox): ServicePort[] | undefined {
  const explicitNames = new Map<string, { port: number; protocol: string; name: string }>();
  const reserved = new Set<string>();
  const add = (container: Container): void => {
    for (const containerPort of container.ports ?? []) {
      if (containerPort.containerPort === 0) continue;
      const protocol =
        containerPort.protocol === undefined || containerPort.protocol === ''
          ? 'TCP'
          : containerPort.protocol;
      const key = `${containerPort.containerPort}/${protocol}`;
      let entry = explicitNames.get(key);
      if (entry === undefined) {
        entry = { port: containerPort.containerPort, protocol, name: '' };
        explicitNames.set(key, entry);
      }
      const name = containerPort.name ?? '';
      if (name === '' || entry.name !== '' || reserved.has(name)) continue;
      entry.name = name;
      reserved.add(name);
    }
  };
  const podSpec = sandbox.spec.podTemplate.spec;
  for (const container of podSpec.containers ?? []) add(container);
  for (const container of podSpec.initContainers ?? []) {
    if (container.restartPolicy === 'Always') add(container);
  }
  if (explicitNames.size === 0) return undefined;

  const keys = [...explicitNames.values()].sort(
    (a, b) => a.port - b.port || byteCompare(a.protocol, b.protocol),
  );
  return keys.map((key) => {
    const name = key.name !== '' ? key.name : generatedPortName(key.port, key.protocol, reserved);
    reserved.add(name);
    return { name, protocol: key.protocol, port: key.port, targetPort: key.port };
  });
}

function generatedPortName(port: number, protocol: string, reserved: ReadonlySet<string>): string {
  const base = `p-${port}-${protocol.toLowerCase()}`;
  if (!reserved.has(base)) return base;
  for (let suffix = 2; ; suffix++) {
    const name = `${base}-${suffix}`;
    if (!reserved.has(name)) return name;
  }
}

/**
 * Port drift: only name, protocol, port and targetPort per index are compared, so other fields
 * (appProtocol…) survive while those four match.
 */
export function servicePortsEqual(
  a: readonly ServicePort[] | undefined,
  b: readonly ServicePort[] | undefined,
): boolean {
  const left = a ?? [];
  const right = b ?? [];
  if (left.length !== right.length) return false;
  return left.every((p, i) => {
    const q = right[i];
    return (
      q !== undefined &&
      (p.name ?? '') === (q.name ?? '') &&
      (p.protocol ?? '') === (q.protocol ?? '') &&
      p.port === q.port &&
      (p.targetPort ?? 0) === (q.targetPort ?? 0)
    );
  });
}

/** The tracking label and selector of the Service: `sandbox-name-hash=<hash(sandbox name)>`. */
function trackingSelector(sandbox: Sandbox): Record<string, string> {
  return { [Labels.SandboxNameHash]: nameHash(sandbox.metadata.name ?? '') };
}

/** The headless Service to create for `spec.service: true`, named after the Sandbox. */
export function desiredService(sandbox: Sandbox): Service {
  const metadata: Service['metadata'] = {
    name: sandbox.metadata.name,
    labels: trackingSelector(sandbox),
    ownerReferences: [sandboxOwnerReference(sandbox)],
  };
  if (sandbox.metadata.namespace !== undefined) metadata.namespace = sandbox.metadata.namespace;
  const spec: Service['spec'] = { clusterIP: 'None', selector: trackingSelector(sandbox) };
  const ports = servicePortsForSandbox(sandbox);
  if (ports !== undefined) spec.ports = ports;
  return { apiVersion: 'v1', kind: 'Service', metadata, spec };
}

/** A JSON merge patch repairing an owned Service's label, selector and (when required) ports. */
export interface ServicePatch {
  metadata?: { labels: Record<string, string> };
  spec?: { selector?: Record<string, string | null>; ports?: ServicePort[] | null };
}

/**
 * What to do about the Service, by its state (missing, owned, unowned, another owner's) and
 * `spec.service` (true, unset, false) as in spec §11.6's table. `inUse` is the Service status should report
 * (`status.service`/`serviceFQDN`) and Ready counts; undefined means "clear the service status".
 */
export type ServiceAction =
  | { readonly action: 'None'; readonly inUse: Service | undefined }
  | { readonly action: 'Create'; readonly service: Service; readonly inUse: Service }
  | { readonly action: 'Patch'; readonly patch: ServicePatch; readonly inUse: Service }
  /** Full Update (with resourceVersion) of an adopted Service. */
  | { readonly action: 'Update'; readonly service: Service; readonly inUse: Service }
  | { readonly action: 'Delete'; readonly name: string; readonly inUse: undefined }
  | { readonly action: 'Error'; readonly error: ControllersError; readonly inUse: undefined };

/** The decision for the Service named after the Sandbox, given the one found (TestReconcileService). */
export function serviceAction(sandbox: Sandbox, existing: Service | undefined): ServiceAction {
  const desired = sandbox.spec.service;
  if (existing === undefined) {
    if (desired === true) {
      const service = desiredService(sandbox);
      return { action: 'Create', service, inUse: service };
    }
    return { action: 'None', inUse: undefined };
  }
  const name = existing.metadata?.name ?? sandbox.metadata.name ?? '';
  const ownership = checkOwnership(existing, sandbox);
  if (desired === false) {
    return ownership.state === 'Owned'
      ? { action: 'Delete', name, inUse: undefined }
      : { action: 'None', inUse: undefined };
  }
  switch (ownership.state) {
    case 'OwnedByOther':
      return {
        action: 'Error',
        error: ownedByOtherError('service', name, ownership.controllerRef, sandbox),
        inUse: undefined,
      };
    case 'Unowned':
      return desired === undefined
        ? { action: 'None', inUse: undefined }
        : adoptService(sandbox, existing, name);
    case 'Owned':
      return repairOwnedService(sandbox, existing, desired === true);
  }
}

function adoptService(sandbox: Sandbox, existing: Service, name: string): ServiceAction {
  if (!isAdoptable(existing, nameHash(sandbox.metadata.name ?? ''))) {
    return { action: 'Error', error: notAdoptableError('service', name), inUse: undefined };
  }
  const clusterIP = existing.spec?.clusterIP ?? '';
  if (clusterIP !== 'None' && clusterIP !== '') {
    // clusterIP is immutable: a non-headless Service can never become ours.
    return {
      action: 'Error',
      error: new ControllersError(
        'ServiceNotHeadless',
        `cannot adopt service "${name}": ClusterIP is "${clusterIP}" (expected "None", field is immutable)`,
      ),
      inUse: undefined,
    };
  }
  const service = structuredClone(existing);
  const metadata = service.metadata ?? {};
  metadata.labels = { ...(metadata.labels ?? {}), ...trackingSelector(sandbox) };
  metadata.ownerReferences = withControllerReference(metadata.ownerReferences, sandbox);
  service.metadata = metadata;
  const spec = service.spec ?? {};
  spec.selector = trackingSelector(sandbox);
  const ports = servicePortsForSandbox(sandbox);
  if (ports === undefined) delete spec.ports;
  else spec.ports = ports;
  service.spec = spec;
  return { action: 'Update', service, inUse: service };
}

function repairOwnedService(sandbox: Sandbox, existing: Service, required: boolean): ServiceAction {
  const selector = trackingSelector(sandbox);
  const hash = selector[Labels.SandboxNameHash] ?? '';
  const patch: ServicePatch = {};
  const after = structuredClone(existing);
  if (existing.metadata?.labels?.[Labels.SandboxNameHash] !== hash) {
    patch.metadata = { labels: { [Labels.SandboxNameHash]: hash } };
    after.metadata = {
      ...(after.metadata ?? {}),
      labels: { ...(after.metadata?.labels ?? {}), ...selector },
    };
  }
  const current = existing.spec?.selector ?? {};
  const selectorDrift =
    Object.keys(current).length !== 1 || current[Labels.SandboxNameHash] !== hash;
  const spec: NonNullable<ServicePatch['spec']> = {};
  if (selectorDrift) {
    // A merge patch merges maps: stale selector keys must be deleted explicitly.
    const selectorPatch: Record<string, string | null> = {};
    for (const key of Object.keys(current)) selectorPatch[key] = null;
    Object.assign(selectorPatch, selector);
    spec.selector = selectorPatch;
    after.spec = { ...(after.spec ?? {}), selector };
  }
  const ports = servicePortsForSandbox(sandbox);
  if (required && !servicePortsEqual(existing.spec?.ports, ports)) {
    // On any drift the whole list is replaced, dropping unmanaged fields (§11.6).
    spec.ports = ports ?? null;
    after.spec = { ...(after.spec ?? {}) };
    if (ports === undefined) delete after.spec.ports;
    else after.spec.ports = ports;
  }
  if (Object.keys(spec).length > 0) patch.spec = spec;
  if (patch.metadata === undefined && patch.spec === undefined) {
    return { action: 'None', inUse: existing };
  }
  return { action: 'Patch', patch, inUse: after };
}

/** `<service>.<namespace>.svc.<clusterDomain>` (TestSetServiceStatusCustomDomain). */
export function serviceFQDN(name: string, namespace: string, clusterDomain: string): string {
  return `${name}.${namespace}.svc.${clusterDomain}`;
}
