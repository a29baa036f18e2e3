// The conversion webhook's request → response logic (spec §17): a ConversionReview in, a
// ConversionReview out, every object converted by @agent-sandbox/api. Pure: no I/O, so the
// HTTPS adapter (cli controller-webhook.ts) stays thin and tests need no socket.
import {
  convert,
  ConversionError,
  EXTENSIONS_GROUP,
  Kinds,
  V1ALPHA1_SANDBOX_CLAIM_STATE_ANNOTATION,
  V1ALPHA1_SANDBOX_STATE_ANNOTATION,
  V1ALPHA1_SANDBOX_TEMPLATE_STATE_ANNOTATION,
  V1ALPHA1_SANDBOX_WARM_POOL_STATE_ANNOTATION,
  V1BETA1_VOLUME_CLAIM_TEMPLATES_POLICY_ANNOTATION,
} from '@agent-sandbox/api';
import type { KubeObject } from '@agent-sandbox/kube-types';

/** The ConversionReview versions kube-apiserver may send; the response uses the request's. */
export const CONVERSION_REVIEW_VERSIONS = [
  'apiextensions.k8s.io/v1',
  'apiextensions.k8s.io/v1beta1',
] as const;
export type ConversionReviewVersion = (typeof CONVERSION_REVIEW_VERSIONS)[number];

/** The review's outcome as kube reads it: metav1.Status, `status` Success or Failure. */
export interface ConversionResult {
  status: 'Success' | 'Failure';
  message?: string;
}

export interface ConversionReviewResponse {
  apiVersion: ConversionReviewVersion;
  kind: 'ConversionReview';
  response: {
    uid: string;
    convertedObjects: KubeObject[];
    result: ConversionResult;
  };
}

export interface ReviewConversionOptions {
  /**
   * Whether SandboxTemplate, SandboxClaim and SandboxWarmPool convert: upstream registers them in
   * the webhook's scheme only with --extensions (spec §17, §18.1).
   * @default false
   */
  extensions?: boolean;
}

/**
 * A review that cannot be answered at all: the body is not a ConversionReview with a request
 * uid. The HTTP adapter answers it with 400, as controller-runtime does for an undecodable body.
 */
export class ConversionReviewError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionReviewError';
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isReviewVersion(v: unknown): v is ConversionReviewVersion {
  return (CONVERSION_REVIEW_VERSIONS as readonly unknown[]).includes(v);
}

/** `Kind namespace/name` (or `Kind name`) for messages; tolerant of malformed objects. */
function describeObject(obj: unknown, index: number): string {
  if (!isRecord(obj)) return `objects[${index}]`;
  const kind = typeof obj['kind'] === 'string' ? obj['kind'] : 'object';
  const meta = isRecord(obj['metadata']) ? obj['metadata'] : {};
  const name = typeof meta['name'] === 'string' ? meta['name'] : '<unnamed>';
  const ns = typeof meta['namespace'] === 'string' ? `${meta['namespace']}/` : '';
  return `objects[${index}] ${kind} ${ns}${name}`;
}

const STATE_ANNOTATIONS: Readonly<Record<string, string>> = {
  Sandbox: V1ALPHA1_SANDBOX_STATE_ANNOTATION,
  SandboxTemplate: V1ALPHA1_SANDBOX_TEMPLATE_STATE_ANNOTATION,
  SandboxClaim: V1ALPHA1_SANDBOX_CLAIM_STATE_ANNOTATION,
  SandboxWarmPool: V1ALPHA1_SANDBOX_WARM_POOL_STATE_ANNOTATION,
};

/**
 * The field a per-object ConversionError is about, and the fix, for the codes whose messages
 * (upstream's wording, kept for compatibility) name neither.
 */
function fieldAndFix(err: ConversionError, kind: string): string {
  if (err.code === 'InvalidState') {
    const key = STATE_ANNOTATIONS[kind] ?? 'v1alpha1 state';
    return `metadata.annotations["${key}"]: ${err.message} (remove the annotation or set it to the JSON of a v1alpha1 ${kind})`;
  }
  if (err.code === 'InvalidAnnotation')
    return `metadata.annotations["${V1BETA1_VOLUME_CLAIM_TEMPLATES_POLICY_ANNOTATION}"]: ${err.message} (use Disallowed, Allowed or Overrides, or remove it)`;
  return err.message;
}

const EXTENSION_KINDS: readonly string[] = [
  Kinds.SandboxTemplate,
  Kinds.SandboxClaim,
  Kinds.SandboxWarmPool,
];

/**
 * Answers a ConversionReview. Conversion failures are not thrown: kube-apiserver expects them in
 * `response.result` (status Failure, a message naming the object and the field), with no
 * converted objects — one failure fails the whole review, as in controller-runtime.
 * @throws ConversionReviewError when `body` is not a ConversionReview request (no answer can
 *   carry its uid).
 */
export function reviewConversion(
  body: unknown,
  options: ReviewConversionOptions = {},
): ConversionReviewResponse {
  if (!isRecord(body))
    throw new ConversionReviewError('the request body is not a JSON ConversionReview object');
  const { apiVersion, kind, request } = body;
  if (kind !== 'ConversionReview' || !isReviewVersion(apiVersion))
    throw new ConversionReviewError(
      `expected kind ConversionReview with apiVersion ${CONVERSION_REVIEW_VERSIONS.join(' or ')}, got kind ${JSON.stringify(kind)} apiVersion ${JSON.stringify(apiVersion)}`,
    );
  if (!isRecord(request) || typeof request['uid'] !== 'string' || request['uid'] === '')
    throw new ConversionReviewError('ConversionReview request.uid is missing or not a string');
  const uid = request['uid'];
  const answer = (result: ConversionResult, convertedObjects: KubeObject[] = []) => ({
    apiVersion,
    kind: 'ConversionReview' as const,
    response: { uid, convertedObjects, result },
  });
  const fail = (message: string) => answer({ status: 'Failure', message });

  const desired = request['desiredAPIVersion'];
  if (typeof desired !== 'string' || desired === '')
    return fail('request.desiredAPIVersion is missing: set it to the apiVersion to convert to');
  const objects = request['objects'];
  if (!Array.isArray(objects))
    return fail('request.objects is missing or not a list: send the objects to convert');

  const converted: KubeObject[] = [];
  for (const [i, obj] of objects.entries()) {
    const what = describeObject(obj, i);
    if (!options.extensions && isRecord(obj) && EXTENSION_KINDS.includes(String(obj['kind'])))
      return fail(
        `${what}: kind ${String(obj['kind'])} (${EXTENSIONS_GROUP}) converts only when the controller runs with --extensions`,
      );
    try {
      converted.push(convert(obj, desired));
    } catch (err: unknown) {
      if (!(err instanceof ConversionError)) throw err;
      return fail(`${what}: ${fieldAndFix(err, isRecord(obj) ? String(obj['kind']) : '')}`);
    }
  }
  return answer({ status: 'Success' }, converted);
}
