// Claim-time env on the warm path (ADR 0023, beyond upstream, which forces a cold start for any
// `spec.env`). A template opts in with the annotation WARM_ENV_ANNOTATION = "pod-annotation":
// then a claim with env (and no volumeClaimTemplates) may adopt a warm Sandbox; the env is checked
// against the template exactly as for a cold start and delivered as the pod-template annotation
// CLAIM_ENV_ANNOTATION, which the Sandbox controller puts on the running Pod in place. The
// in-sandbox daemon applies it to every command it starts. Without the opt-in, upstream's rule.
import type { v1beta1 } from '@agent-sandbox/api';
import type { ClaimObject, TemplateObject } from '../extensions/resources.ts';
import { ClaimError } from './claim-errors.ts';
import { injectEnv } from './claim-sandbox.ts';

/** On a SandboxTemplate: how claim env reaches a warm sandbox (only `pod-annotation`). */
export const WARM_ENV_ANNOTATION = 'agent-sandbox.dev/warm-env';
/** On the Pod: the claim's env as JSON `[{containerName, name, value}]`. */
export const CLAIM_ENV_ANNOTATION = 'agent-sandbox.dev/claim-env';

export interface ResolvedEnvVar {
  containerName: string;
  name: string;
  value: string;
}

export function warmEnvEnabled(template: TemplateObject | undefined): boolean {
  return template?.metadata.annotations?.[WARM_ENV_ANNOTATION] === 'pod-annotation';
}

/**
 * The claim's env for the annotation, with the target container resolved; the template's
 * policy is enforced with the cold path's checks (and messages).
 */
export function resolveWarmEnv(claim: ClaimObject, template: TemplateObject): ResolvedEnvVar[] {
  const spec = structuredClone(template.spec.podTemplate.spec);
  injectEnv(spec, claim, template);
  const first = spec.containers[0]?.name ?? '';
  return (claim.spec.env ?? []).map((v: v1beta1.ClaimEnvVar) => ({
    containerName: v.containerName || first,
    name: v.name,
    value: v.value,
  }));
}

export function claimEnvAnnotation(env: readonly ResolvedEnvVar[]): string {
  return JSON.stringify(env);
}

/** additionalPodMetadata may not set the delivery annotation (it would bypass the policy). */
export function reservedAnnotationError(claim: ClaimObject): ClaimError | undefined {
  if (claim.spec.additionalPodMetadata?.annotations?.[CLAIM_ENV_ANNOTATION] === undefined)
    return undefined;
  return new ClaimError(
    'InvalidMetadata',
    `invalid additionalPodMetadata: failed to validate annotation "${CLAIM_ENV_ANNOTATION}": restricted system domain: "${CLAIM_ENV_ANNOTATION}" is not allowed in AdditionalPodMetadata`,
  );
}

/** Adds the env annotation to warm pod-template metadata when the template opted in. */
export function withWarmEnv(
  annotations: Record<string, string> | undefined,
  claim: ClaimObject,
  template: TemplateObject | undefined,
): Record<string, string> | undefined {
  if (template === undefined || !warmEnvEnabled(template) || (claim.spec.env?.length ?? 0) === 0)
    return annotations;
  return {
    ...(annotations ?? {}),
    [CLAIM_ENV_ANNOTATION]: claimEnvAnnotation(resolveWarmEnv(claim, template)),
  };
}
