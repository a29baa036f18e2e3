// The additionalPodMetadata rules of a SandboxClaim (spec §12.6, KEP-174): which labels and
// annotations a claim may add to its Pod. Returns upstream's exact error texts, which the claim
// controller puts into its InvalidMetadata condition and `agent-sandbox validate` reports.
import { isQualifiedName, isValidLabelValue } from '@agent-sandbox/crd-schema';

export const DEFAULT_ALLOWED_LABEL_DOMAINS = ['sandbox.users.io'] as const;
const RESTRICTED_ANNOTATION_DOMAINS = ['kubernetes.io', 'k8s.io', 'agents.x-k8s.io'];
const SAFE_TO_EVICT = 'cluster-autoscaler.kubernetes.io/safe-to-evict';

export interface PodMetadataViolation {
  kind: 'label' | 'annotation';
  key: string;
  /** Upstream's message, e.g. `failed to validate label "x": label "x" must have a domain prefix ...`. */
  message: string;
}

function inDomain(domain: string, parent: string): boolean {
  return domain === parent || domain.endsWith(`.${parent}`);
}

function labelProblem(key: string, value: string, allowed: readonly string[]): string | undefined {
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) return `invalid label key: "${key}": ${keyErrs.join('; ')}`;
  if (key.toLowerCase() === 'app' && value.toLowerCase() === 'sandbox-router') {
    return `restricted system label value: "${key}"="${value}" is not allowed in AdditionalPodMetadata`;
  }
  const slash = key.indexOf('/');
  if (slash < 0) {
    return `label "${key}" must have a domain prefix (e.g. 'sandbox.users.io/my-label') to prevent opting into unintended policy domains`;
  }
  const domain = key.slice(0, slash).toLowerCase();
  if (!allowed.some((d) => inDomain(domain, d)))
    return `label domain "${domain}" is not in the allowlist`;
  const valueErrs = isValidLabelValue(value);
  if (valueErrs.length > 0) {
    return `invalid label value: "${value}" does not match allowed pattern: ${valueErrs.join('; ')}`;
  }
  return undefined;
}

function annotationProblem(key: string): string | undefined {
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) return `invalid annotation key: "${key}": ${keyErrs.join('; ')}`;
  const slash = key.indexOf('/');
  if (slash < 0 || key === SAFE_TO_EVICT) return undefined;
  const domain = key.slice(0, slash).toLowerCase();
  if (RESTRICTED_ANNOTATION_DOMAINS.some((d) => inDomain(domain, d))) {
    return `restricted system domain: "${key}" is not allowed in AdditionalPodMetadata`;
  }
  return undefined;
}

/** Checks every label, then every annotation; an empty allow-list means the default domain. */
export function checkAdditionalPodMetadata(
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> },
  allowedLabelDomains: readonly string[] = DEFAULT_ALLOWED_LABEL_DOMAINS,
): PodMetadataViolation[] {
  const allowed =
    allowedLabelDomains.length > 0 ? allowedLabelDomains : DEFAULT_ALLOWED_LABEL_DOMAINS;
  const out: PodMetadataViolation[] = [];
  for (const [key, value] of Object.entries(metadata.labels ?? {})) {
    const problem = labelProblem(
      key,
      value,
      allowed.map((d) => d.toLowerCase()),
    );
    if (problem)
      out.push({ kind: 'label', key, message: `failed to validate label "${key}": ${problem}` });
  }
  for (const key of Object.keys(metadata.annotations ?? {})) {
    const problem = annotationProblem(key);
    if (problem) {
      out.push({
        kind: 'annotation',
        key,
        message: `failed to validate annotation "${key}": ${problem}`,
      });
    }
  }
  return out;
}
