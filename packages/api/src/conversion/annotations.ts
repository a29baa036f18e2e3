// Annotation keys the conversion writes and reads (spec §3.4, §4.2, §5.4, §6.2; catalogue §9).
// The keys are wire-compatible with upstream's conversion webhook, so objects stored by either
// convert the same way.

/** The v1alpha1 Sandbox as last written by a v1alpha1 client, JSON, kept on the v1beta1 object. */
export const V1ALPHA1_SANDBOX_STATE_ANNOTATION = 'api.agents.x-k8s.io/v1alpha1-sandbox-state';

/** The v1alpha1 SandboxTemplate as last written by a v1alpha1 client, JSON, kept on the v1beta1 object. */
export const V1ALPHA1_SANDBOX_TEMPLATE_STATE_ANNOTATION =
  'api.agents.x-k8s.io/v1alpha1-sandboxtemplate-state';

/** The v1alpha1 SandboxClaim as last written by a v1alpha1 client, JSON, kept on the v1beta1 object. */
export const V1ALPHA1_SANDBOX_CLAIM_STATE_ANNOTATION =
  'api.agents.x-k8s.io/v1alpha1-sandboxclaim-state';

/** The v1alpha1 SandboxWarmPool as last written by a v1alpha1 client, JSON, kept on the v1beta1 object. */
export const V1ALPHA1_SANDBOX_WARM_POOL_STATE_ANNOTATION =
  'api.agents.x-k8s.io/v1alpha1-sandboxwarmpool-state';

/**
 * The v1beta1-only `spec.volumeClaimTemplatesPolicy` of a SandboxTemplate, carried on its v1alpha1
 * representation so a v1alpha1 update does not reset it.
 */
export const V1BETA1_VOLUME_CLAIM_TEMPLATES_POLICY_ANNOTATION =
  'api.agents.x-k8s.io/v1beta1-volume-claim-templates-policy';
