// Sandbox v1alpha1 ⇄ v1beta1 (spec §3.3–3.4). v1beta1 is the hub and the storage version.
// Everything not named below (metadata, podTemplate, volumeClaimTemplates, service, shutdown
// fields, status conditions/selector/podIPs/service/serviceFQDN, and fields neither version
// knows) is carried over unchanged.
import { Kinds } from '../groups.ts';
import type { Sandbox as SandboxV1alpha1 } from '../v1alpha1/sandbox.ts';
import { OperatingMode, type Sandbox as SandboxV1beta1 } from '../v1beta1/sandbox.ts';
import { V1ALPHA1_SANDBOX_STATE_ANNOTATION as STATE } from './annotations.ts';
import {
  omit,
  parseState,
  putAnnotation,
  SANDBOX_V1ALPHA1,
  SANDBOX_V1BETA1,
  stateInteger,
  stateJson,
  takeAnnotation,
} from './state.ts';

/**
 * The v1beta1 form of a v1alpha1 Sandbox: `operatingMode` is Suspended iff `spec.replicas` is
 * set and 0, else Running; `status.replicas` and `status.nodeName` are dropped; the v1alpha1
 * object itself is kept in the `v1alpha1-sandbox-state` annotation so the way back is lossless.
 * Pure: the input is not modified and the result shares nothing with it.
 */
export function sandboxToV1beta1(sandbox: SandboxV1alpha1): SandboxV1beta1 {
  const src = structuredClone(sandbox);
  const operatingMode = src.spec.replicas === 0 ? OperatingMode.Suspended : OperatingMode.Running;
  const out: SandboxV1beta1 = {
    ...src,
    apiVersion: SANDBOX_V1BETA1,
    kind: Kinds.Sandbox,
    spec: { ...omit(src.spec, 'replicas', 'operatingMode'), operatingMode },
  };
  // §3.4: status.nodeName is "set empty" (v1alpha1 has no such field); replicas has no v1beta1 home.
  if (src.status !== undefined) out.status = omit(src.status, 'replicas', 'nodeName');
  putAnnotation(out.metadata, STATE, stateJson(sandbox, STATE));
  return out;
}

/**
 * The v1alpha1 form of a v1beta1 Sandbox: `spec.replicas` is 0 when Suspended, else 1, and
 * `status.replicas` the same as a best effort. When the object carries a v1alpha1 state
 * annotation (it was last written through v1alpha1) the annotation is removed and the original
 * `spec.replicas` restored (spec §3.4): 0 while Suspended; while Running the original pointer when
 * it was nil or non-zero (nil round-trips as nil), else 1 (the sandbox was resumed since).
 * Pure: the input is not modified and the result shares nothing with it.
 * @throws ConversionError `InvalidState` when the state annotation is not a v1alpha1 Sandbox.
 */
export function sandboxToV1alpha1(sandbox: SandboxV1beta1): SandboxV1alpha1 {
  const src = structuredClone(sandbox);
  const mode = src.spec.operatingMode;
  const suspended = mode === OperatingMode.Suspended;
  const out: SandboxV1alpha1 = {
    ...src,
    apiVersion: SANDBOX_V1ALPHA1,
    kind: Kinds.Sandbox,
    spec: { ...omit(src.spec, 'operatingMode', 'replicas'), replicas: suspended ? 0 : 1 },
  };
  // Go always has a status struct; in JSON an absent status stays absent rather than growing a
  // made-up `{replicas: 1}` the controller never wrote (keeps v1beta1→v1alpha1→v1beta1 exact).
  if (src.status !== undefined) {
    out.status = { ...omit(src.status, 'nodeName', 'replicas'), replicas: suspended ? 0 : 1 };
  }

  const stateText = takeAnnotation(out.metadata, STATE);
  if (stateText === undefined) return out;
  const original = parseState(stateText, Kinds.Sandbox);
  const originalReplicas = stateInteger(original, Kinds.Sandbox, 'spec', 'replicas');
  // Upstream switches on Suspended and Running only; an empty mode keeps the best effort.
  if (mode === OperatingMode.Running) {
    if (originalReplicas === undefined) delete out.spec.replicas;
    // An original 0 has since been resumed through v1beta1, so it reads as running.
    else out.spec.replicas = originalReplicas === 0 ? 1 : originalReplicas;
  }
  // Quirk kept from upstream: status.replicas is whatever the v1alpha1 writer sent, because the
  // controller only ever writes v1beta1 status.
  const originalStatusReplicas = stateInteger(original, Kinds.Sandbox, 'status', 'replicas');
  if (originalStatusReplicas !== undefined) {
    out.status = { ...out.status, replicas: originalStatusReplicas };
  } else if (out.status !== undefined) {
    delete out.status.replicas;
  }
  return out;
}
