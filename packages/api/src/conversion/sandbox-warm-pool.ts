// SandboxWarmPool v1alpha1 ⇄ v1beta1 (spec §6.2). `spec.replicas` is required in v1alpha1 and
// optional (default 1) in v1beta1; `status.observedGeneration` exists only in v1beta1. The
// state annotation is written on the way in and stripped on the way out, nothing is restored
// from it. Everything else is carried over unchanged.
import { Kinds } from '../groups.ts';
import type { SandboxWarmPool as SandboxWarmPoolV1alpha1 } from '../v1alpha1/sandbox-warm-pool.ts';
import type { SandboxWarmPool as SandboxWarmPoolV1beta1 } from '../v1beta1/sandbox-warm-pool.ts';
import { V1ALPHA1_SANDBOX_WARM_POOL_STATE_ANNOTATION as STATE } from './annotations.ts';
import {
  EXTENSIONS_V1ALPHA1,
  EXTENSIONS_V1BETA1,
  omit,
  putAnnotation,
  stateJson,
  takeAnnotation,
} from './state.ts';

/** v1beta1's schema default for `spec.replicas`, used when the hub has none (§6.1–6.2). */
const DEFAULT_REPLICAS = 1;

/**
 * The v1beta1 form of a v1alpha1 SandboxWarmPool: replicas copied (a missing one is Go's zero
 * value, 0), the v1alpha1 object kept in the `v1alpha1-sandboxwarmpool-state` annotation.
 * Pure: the input is not modified and the result shares nothing with it.
 */
export function sandboxWarmPoolToV1beta1(pool: SandboxWarmPoolV1alpha1): SandboxWarmPoolV1beta1 {
  const src = structuredClone(pool);
  const replicas: number | undefined = src.spec.replicas;
  const out: SandboxWarmPoolV1beta1 = {
    ...src,
    apiVersion: EXTENSIONS_V1BETA1,
    kind: Kinds.SandboxWarmPool,
    spec: { ...src.spec, replicas: replicas ?? 0 },
  };
  // v1beta1's observedGeneration is the controller's to write, never a v1alpha1 client's.
  if (src.status !== undefined) out.status = omit(src.status, 'observedGeneration');
  putAnnotation(out.metadata, STATE, stateJson(pool, STATE));
  return out;
}

/**
 * The v1alpha1 form of a v1beta1 SandboxWarmPool: replicas copied, 1 when unset; the state
 * annotation and `status.observedGeneration` (no v1alpha1 field) are dropped.
 * Pure: the input is not modified and the result shares nothing with it.
 */
export function sandboxWarmPoolToV1alpha1(pool: SandboxWarmPoolV1beta1): SandboxWarmPoolV1alpha1 {
  const src = structuredClone(pool);
  const out: SandboxWarmPoolV1alpha1 = {
    ...src,
    apiVersion: EXTENSIONS_V1ALPHA1,
    kind: Kinds.SandboxWarmPool,
    spec: { ...src.spec, replicas: src.spec.replicas ?? DEFAULT_REPLICAS },
  };
  if (src.status !== undefined) out.status = omit(src.status, 'observedGeneration');
  takeAnnotation(out.metadata, STATE);
  return out;
}
