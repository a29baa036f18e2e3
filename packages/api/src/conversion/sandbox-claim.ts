// SandboxClaim v1alpha1 ⇄ v1beta1 (spec §5.3–5.4). v1alpha1 names a template plus a warm-pool
// choice; v1beta1 names only a warm pool (KEP-208). The mapping between the two is lossy by
// nature, so the v1alpha1 object is kept in a state annotation and restored while the v1beta1
// pool reference still "matches" it. lifecycle, additionalPodMetadata, env, status and fields
// neither version knows are carried over unchanged.
import { Kinds } from '../groups.ts';
import type { SandboxClaim as SandboxClaimV1alpha1 } from '../v1alpha1/sandbox-claim.ts';
import type { SandboxClaim as SandboxClaimV1beta1 } from '../v1beta1/sandbox-claim.ts';
import { V1ALPHA1_SANDBOX_CLAIM_STATE_ANNOTATION as STATE } from './annotations.ts';
import {
  EXTENSIONS_V1ALPHA1,
  EXTENSIONS_V1BETA1,
  isJsonObject,
  omit,
  parseState,
  putAnnotation,
  stateField,
  stateJson,
  stateString,
  takeAnnotation,
} from './state.ts';

/** Prefix of the pools that stand for "any pool of template X" (and the migration's pre-created pools). */
export const SHADOW_POOL_PREFIX = 'shadow-pool-';

/** v1alpha1 `spec.warmpool` values that are policies rather than pool names. */
export const WarmPoolPolicy = { None: 'none', Default: 'default' } as const;

/** Whether a v1alpha1 `spec.warmpool` names one pool (not none, default or empty). */
function isSpecificPool(warmpool: string | undefined): warmpool is string {
  return (
    warmpool !== undefined &&
    warmpool !== '' &&
    warmpool !== WarmPoolPolicy.None &&
    warmpool !== WarmPoolPolicy.Default
  );
}

/** A warm pool member's name minus its generated `-xxxxx` suffix: `my-pool-abcde` → `my-pool`. */
function stripRandomSuffix(name: string): string {
  const dash = name.lastIndexOf('-');
  return dash === -1 ? name : name.slice(0, dash);
}

/**
 * `warmPoolRef.name` for a v1alpha1 claim (§5.4): 1. a specific `warmpool`; 2. else, when the
 * claim is bound to a sandbox not named after the claim (a warm start), that sandbox's pool;
 * 3. else `shadow-pool-<template>`.
 */
export function derivedWarmPoolRefName(claim: SandboxClaimV1alpha1): string {
  if (isSpecificPool(claim.spec.warmpool)) return claim.spec.warmpool;
  const sandboxName = claim.status?.sandbox?.name;
  if (sandboxName !== undefined && sandboxName !== '' && sandboxName !== claim.metadata.name) {
    return stripRandomSuffix(sandboxName);
  }
  // `?.`/`??`: convert() admits any object spec, and Go reads a missing ref as its zero value.
  return `${SHADOW_POOL_PREFIX}${claim.spec.sandboxTemplateRef?.name ?? ''}`;
}

/**
 * The v1beta1 form of a v1alpha1 SandboxClaim: `sandboxTemplateRef` and `warmpool` become
 * `warmPoolRef` (see derivedWarmPoolRefName), and the v1alpha1 object is kept in the
 * `v1alpha1-sandboxclaim-state` annotation. Pure: the input is not modified and the result
 * shares nothing with it.
 */
export function sandboxClaimToV1beta1(claim: SandboxClaimV1alpha1): SandboxClaimV1beta1 {
  const src = structuredClone(claim);
  const out: SandboxClaimV1beta1 = {
    ...src,
    apiVersion: EXTENSIONS_V1BETA1,
    kind: Kinds.SandboxClaim,
    spec: {
      ...omit(src.spec, 'sandboxTemplateRef', 'warmpool', 'volumeClaimTemplates'),
      warmPoolRef: { name: derivedWarmPoolRefName(claim) },
    },
  };
  putAnnotation(out.metadata, STATE, stateJson(claim, STATE));
  return out;
}

/**
 * The v1alpha1 form of a v1beta1 SandboxClaim. Without a state annotation: a `shadow-pool-<t>`
 * ref reads as template `<t>` with warmpool `default`; any other ref `<p>` as warmpool `<p>`
 * and, upstream's quirk, template `<p>`. With one (stripped from the result): when the ref
 * still matches the original (see isMatchingWarmPoolRef) the original `sandboxTemplateRef` and
 * `warmpool` come back; otherwise warmpool becomes the new ref and the original template stays.
 * `spec.volumeClaimTemplates` has no v1alpha1 field and is dropped (§5.4): a v1alpha1 client
 * that writes the object back removes them.
 * Pure: the input is not modified and the result shares nothing with it.
 * @throws ConversionError `InvalidState` when the state annotation is not a v1alpha1 SandboxClaim.
 */
export function sandboxClaimToV1alpha1(claim: SandboxClaimV1beta1): SandboxClaimV1alpha1 {
  const src = structuredClone(claim);
  const refName = src.spec.warmPoolRef?.name ?? ''; // a missing ref is Go's zero value
  const spec = omit(src.spec, 'warmPoolRef', 'volumeClaimTemplates');
  const out: SandboxClaimV1alpha1 = {
    ...src,
    apiVersion: EXTENSIONS_V1ALPHA1,
    kind: Kinds.SandboxClaim,
    spec: refName.startsWith(SHADOW_POOL_PREFIX)
      ? {
          ...spec,
          sandboxTemplateRef: { name: refName.slice(SHADOW_POOL_PREFIX.length) },
          warmpool: WarmPoolPolicy.Default,
        }
      : { ...spec, sandboxTemplateRef: { name: refName }, warmpool: refName },
  };

  const stateText = takeAnnotation(out.metadata, STATE);
  if (stateText === undefined) return out;
  const original = parseState(stateText, Kinds.SandboxClaim);
  const originalWarmpool = stateString(original, Kinds.SandboxClaim, 'spec', 'warmpool');
  const originalTemplateRef = stateField(original, 'spec', 'sandboxTemplateRef');
  const templateName =
    stateString(original, Kinds.SandboxClaim, 'spec', 'sandboxTemplateRef', 'name') ?? '';
  // Go decodes a missing templateRef (or name) as its zero value, `{name: ""}`.
  const templateRef = isJsonObject(originalTemplateRef)
    ? { ...originalTemplateRef, name: templateName }
    : { name: templateName };
  const expected = isSpecificPool(originalWarmpool) ? originalWarmpool : templateRef.name;
  out.spec.sandboxTemplateRef = templateRef;
  if (isMatchingWarmPoolRef(refName, expected, src.status?.sandbox?.name)) {
    if (originalWarmpool === undefined) delete out.spec.warmpool;
    else out.spec.warmpool = originalWarmpool;
  } else {
    // Changed through v1beta1: report the new pool; the template cannot be known from it.
    out.spec.warmpool = refName;
  }
  return out;
}

/**
 * Whether a v1beta1 `warmPoolRef.name` still stands for the original v1alpha1 choice (§5.4):
 * it equals the expected name (the original specific pool, else the original template name) or
 * `shadow-pool-<expected>`, or it is the bound sandbox's name or that name minus its suffix.
 */
export function isMatchingWarmPoolRef(
  refName: string,
  expected: string,
  sandboxName: string | undefined,
): boolean {
  if (refName === expected || refName === `${SHADOW_POOL_PREFIX}${expected}`) return true;
  return (
    sandboxName !== undefined &&
    sandboxName !== '' &&
    (refName === sandboxName || refName === stripRandomSuffix(sandboxName))
  );
}
