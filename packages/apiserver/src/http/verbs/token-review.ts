// authentication.k8s.io/v1 TokenReview (semantics doc §11): a create that answers whether a
// bearer token is valid here and stores nothing. The single-user server knows one token.
import { readObject } from '../body.ts';
import type { Call } from '../context.ts';
import { jsonResponse } from '../response.ts';

export async function tokenReview(call: Call, serverToken: string | undefined): Promise<Response> {
  const review = await readObject(call.http, 'TokenReview');
  const token = (review['spec'] as { token?: unknown } | undefined)?.token;
  const authenticated =
    serverToken !== undefined && typeof token === 'string' && token === serverToken;
  const status = authenticated
    ? {
        authenticated: true,
        user: {
          username: 'agent-sandbox:admin',
          groups: ['system:masters', 'system:authenticated'],
        },
      }
    : { user: {}, error: 'invalid bearer token' };
  const body = {
    kind: 'TokenReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: review['spec'] ?? {},
    status,
  };
  return jsonResponse(body, 201, call.warnings);
}
