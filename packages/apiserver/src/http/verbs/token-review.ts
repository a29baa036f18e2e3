// authentication.k8s.io/v1 TokenReview (semantics doc §11): a create that answers whether a
// bearer token is valid here (the admin token or a service account token this server issued,
// for the requested audiences) and stores nothing.
import { authenticate, type Authenticator } from '../../auth/authenticate.ts';
import { readObject } from '../body.ts';
import type { Call } from '../context.ts';
import { formatTime } from '../../objects.ts';
import { managerName, writeOptions } from '../options.ts';
import { jsonResponse } from '../response.ts';
import { fieldsOf } from './token-request.ts';

export async function tokenReview(call: Call, authenticator: Authenticator): Promise<Response> {
  const now = authenticator.now;
  const review = await readObject(call.http, 'TokenReview');
  const spec = (review['spec'] ?? {}) as { token?: unknown; audiences?: unknown };
  const audiences = Array.isArray(spec.audiences) ? spec.audiences.map(String) : [];
  const result =
    typeof spec.token === 'string'
      ? await authenticate(authenticator, spec.token, audiences)
      : ({ authenticated: false, error: 'invalid bearer token' } as const);
  const status = result.authenticated
    ? { authenticated: true, user: result.user, audiences: result.audiences }
    : { user: {}, error: result.error };
  const rawSpec = review['spec'];
  const requestSpec =
    typeof rawSpec === 'object' && rawSpec !== null && !Array.isArray(rawSpec)
      ? (rawSpec as Record<string, unknown>)
      : {};
  const metadata = reviewMetadata(call, requestSpec, 'authentication.k8s.io/v1', now());
  const body = {
    kind: 'TokenReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata,
    spec: requestSpec,
    status,
  };
  return jsonResponse(body, 201, call.warnings);
}

/**
 * The metadata of a review's answer: nothing is stored, but like kube the answer carries the
 * managedFields of the request's spec (none for an empty spec).
 */
export function reviewMetadata(
  call: Call,
  spec: Record<string, unknown>,
  apiVersion: string,
  now: Date,
): Record<string, unknown> {
  if (Object.keys(spec).length === 0) return {};
  return {
    managedFields: [
      {
        manager: managerName(writeOptions(call.url, 'CreateOptions'), call.http),
        operation: 'Update',
        apiVersion,
        time: formatTime(now),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': withPresence(fieldsOf(spec)) },
      },
    ],
  };
}

/** Nested structs below spec own their own presence (`.`), as kube's structured-merge-diff says. */
function withPresence(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    const inner = v as Record<string, unknown>;
    out[k] = Object.keys(inner).length > 0 ? { '.': {}, ...withPresence(inner) } : inner;
  }
  return out;
}
