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
  // Like kube: nothing is stored, but the answer carries the managedFields of the request.
  const metadata =
    Object.keys(requestSpec).length > 0
      ? {
          managedFields: [
            {
              manager: managerName(writeOptions(call.url, 'CreateOptions'), call.http),
              operation: 'Update',
              apiVersion: 'authentication.k8s.io/v1',
              time: formatTime(now()),
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:spec': fieldsOf(requestSpec) },
            },
          ],
        }
      : {};
  const body = {
    kind: 'TokenReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata,
    spec: requestSpec,
    status,
  };
  return jsonResponse(body, 201, call.warnings);
}
