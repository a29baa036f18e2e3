// The authorization modes (dataplane §2.9). An Authorizer resolves when the request may go on and
// throws RouterError Unauthenticated (401), Forbidden (403) or Authz (500, the message is the
// detail). allow-all is upstream's default.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { KubeObject } from '@agent-sandbox/kube-types';
import type { KubeClient, ResourceRef } from '@agent-sandbox/kube';
import { RouterDetail } from '@agent-sandbox/protocol';
import { RouterError } from './errors.ts';

export interface AuthzRequest {
  /** The raw Authorization header, if any. */
  authorization: string | undefined;
  namespace: string;
  id: string;
  /** X-Sandbox-Pod-IP or X-Sandbox-UID present (they could redirect the dial). */
  redirects: boolean;
}

/** Contract: resolves to allow; throws RouterError to refuse. Never mutates the request. */
export interface Authorizer {
  authorize(req: AuthzRequest): Promise<void>;
}

export const allowAll: Authorizer = { authorize: async () => undefined };

/** `Bearer <token>`: case-insensitive scheme, trimmed; empty counts as absent. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^\s*bearer\s+(.*)$/i.exec(header ?? '');
  const token = m?.[1]?.trim();
  return token ? token : undefined;
}

const unauthenticated = () => new RouterError('Unauthenticated', RouterDetail.unauthenticated);
const forbidden = () => new RouterError('Forbidden', RouterDetail.forbidden);

export const TOKEN_REVIEWS: ResourceRef = {
  group: 'authentication.k8s.io',
  version: 'v1',
  plural: 'tokenreviews',
  namespaced: false,
  kind: 'TokenReview',
};

interface TokenReview extends KubeObject {
  spec: { token: string; audiences?: string[] };
  status?: { authenticated?: boolean; error?: string };
}

type Decision = { allowed: boolean; expiresMs: number } | { error: string; expiresMs: number };

export interface TokenReviewOptions {
  client: KubeClient;
  /** @default [] (no audience check) */
  audiences?: string[];
  /** @default 30_000 */
  ttlMs?: number;
  /** @default 2048 */
  cacheSize?: number;
  /** @default false (a request without a token is allowed: transitional mode) */
  requireToken?: boolean;
  now?: () => number;
}

/** tokenreview mode: authenticates through the API server; decisions cached by SHA-256. */
export function tokenReviewAuthorizer(o: TokenReviewOptions): Authorizer {
  const ttl = o.ttlMs ?? 30_000;
  const size = o.cacheSize ?? 2048;
  const now = o.now ?? Date.now;
  const cache = new Map<string, Decision>();
  const remember = (key: string, d: Decision) => {
    cache.delete(key);
    cache.set(key, d);
    while (cache.size > size) cache.delete(cache.keys().next().value!);
  };
  return {
    async authorize(req) {
      const token = bearerToken(req.authorization);
      if (!token) {
        if (o.requireToken) throw unauthenticated();
        return;
      }
      const key = createHash('sha256').update(token).digest('hex');
      const hit = cache.get(key);
      if (hit && hit.expiresMs > now()) {
        if ('error' in hit) throw new RouterError('Authz', `tokenreview (cached): ${hit.error}`);
        if (!hit.allowed) throw unauthenticated();
        return;
      }
      let review: TokenReview;
      try {
        review = await o.client.create<TokenReview>(
          TOKEN_REVIEWS,
          {
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenReview',
            metadata: {},
            spec: { token, ...(o.audiences?.length ? { audiences: o.audiences } : {}) },
          },
          { signal: AbortSignal.timeout(3000) },
        );
      } catch (err: unknown) {
        const error = err instanceof Error ? err.message : String(err);
        remember(key, { error, expiresMs: now() + Math.max(1000, ttl / 3) });
        throw new RouterError('Authz', `tokenreview: ${error}`, { cause: err });
      }
      const allowed = review.status?.authenticated === true;
      remember(key, { allowed, expiresMs: now() + ttl });
      if (!allowed) throw unauthenticated();
    },
  };
}

const SCOPED_PREFIX = 'agent-sandbox/scoped-token/v1.';
const b64url = (b: Buffer) => b.toString('base64url');

/** Mints a scoped token `v1.<payload>.<sig>` (dataplane §2.9); for tests and tooling. */
export function mintScopedToken(
  secret: string,
  ns: string,
  name: string,
  ttlSeconds: number,
  nowMs = Date.now(),
): string {
  if (!(ttlSeconds >= 1))
    throw new RouterError('InvalidArgument', `ttl ${ttlSeconds}s must be at least 1s`);
  if (!ns || !name)
    throw new RouterError('InvalidArgument', 'namespace and name must not be empty');
  const payload = b64url(
    Buffer.from(JSON.stringify({ ns, name, exp: Math.floor(nowMs / 1000) + ttlSeconds })),
  );
  const sig = b64url(
    createHmac('sha256', secret)
      .update(SCOPED_PREFIX + payload)
      .digest(),
  );
  return `v1.${payload}.${sig}`;
}

/** scoped-token mode: an HMAC token bound to one sandbox; no redirecting headers allowed. */
export function scopedTokenAuthorizer(secret: string, now: () => number = Date.now): Authorizer {
  if (Buffer.byteLength(secret.trim()) < 32) {
    throw new RouterError(
      'InvalidArgument',
      'scoped-token secret must be at least 32 bytes after trimming (--authz-scoped-token-secret-file)',
    );
  }
  const key = secret.trim();
  return {
    async authorize(req) {
      const token = bearerToken(req.authorization);
      const parts = token?.split('.') ?? [];
      if (parts.length !== 3 || parts[0] !== 'v1') throw unauthenticated();
      const [, payload = '', sig = ''] = parts;
      const want = createHmac('sha256', key)
        .update(SCOPED_PREFIX + payload)
        .digest();
      const got = Buffer.from(sig, 'base64url');
      if (got.length !== want.length || !timingSafeEqual(got, want)) throw unauthenticated();
      let claims: { ns?: unknown; name?: unknown; exp?: unknown };
      try {
        claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
      } catch {
        throw unauthenticated();
      }
      if (typeof claims.exp !== 'number' || now() / 1000 >= claims.exp) throw unauthenticated();
      if (req.redirects) throw forbidden();
      if (claims.ns !== req.namespace || claims.name !== req.id) throw forbidden();
    },
  };
}
