// Signs and verifies service account tokens (kube's bound service account tokens): ES256 JWTs
// with kube's claims. Signing and verification use `jose` (ADR 0009); this file only decides the
// claims. Whether the service account and the bound object still exist is checked by the caller
// (authenticate.ts), which has the store.
import { createHash, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { ApiServerError } from '../errors.ts';

/** kube-apiserver's --service-account-issuer in the harness, and our default API audience. */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface ObjectRef {
  name: string;
  uid: string;
}

/** The private `kubernetes.io` claim of a bound token. */
export interface KubernetesClaim {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
}

export interface IssueOptions {
  claim: KubernetesClaim;
  audiences: readonly string[];
  now: Date;
  expirationSeconds: number;
}

export interface VerifiedToken {
  claim: KubernetesClaim;
  audiences: string[];
  /** The `jti`, which kube reports as the credential id. */
  id: string;
}

/** Why a token that looked like one of ours was refused (kube's authenticator messages). */
export class TokenRejected extends ApiServerError {
  constructor(message: string) {
    super('TokenRejected', message);
  }
}

function isRef(v: unknown): v is ObjectRef {
  const o = v as Partial<ObjectRef> | null;
  return (
    typeof o === 'object' && o !== null && typeof o.name === 'string' && typeof o.uid === 'string'
  );
}

function parseClaim(v: unknown): KubernetesClaim | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o['namespace'] !== 'string' || !isRef(o['serviceaccount'])) return undefined;
  const claim: KubernetesClaim = { namespace: o['namespace'], serviceaccount: o['serviceaccount'] };
  for (const k of ['pod', 'secret', 'node'] as const) if (isRef(o[k])) claim[k] = o[k];
  return claim;
}

export class ServiceAccountTokens {
  readonly issuer: string;
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  /** Like kube's key id: base64url(sha256(DER public key)). */
  readonly #kid: string;

  constructor(privateKey: KeyObject, issuer = DEFAULT_ISSUER) {
    this.issuer = issuer;
    this.#privateKey = privateKey;
    this.#publicKey = createPublicKey(privateKey);
    this.#kid = createHash('sha256')
      .update(this.#publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64url');
  }

  /** A signed token and its expiry. */
  async issue(options: IssueOptions): Promise<{ token: string; expires: Date }> {
    const iat = Math.floor(options.now.getTime() / 1000);
    const exp = iat + options.expirationSeconds;
    const token = await new SignJWT({ 'kubernetes.io': { ...options.claim } })
      .setProtectedHeader({ alg: 'ES256', kid: this.#kid })
      .setIssuer(this.issuer)
      .setSubject(
        `system:serviceaccount:${options.claim.namespace}:${options.claim.serviceaccount.name}`,
      )
      .setAudience([...options.audiences])
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.#privateKey);
    return { token, expires: new Date(exp * 1000) };
  }

  /**
   * Verifies signature, issuer and time claims. Undefined for tokens that are not JWTs of this
   * issuer (another authenticator may know them).
   * @throws TokenRejected for our tokens that are expired or malformed
   */
  async verify(token: string, now: Date): Promise<VerifiedToken | undefined> {
    if (token.split('.').length !== 3) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.#publicKey, {
        issuer: this.issuer,
        algorithms: ['ES256'],
        currentDate: now,
      });
      const claim = parseClaim(payload['kubernetes.io']);
      if (!claim || typeof payload.jti !== 'string')
        throw new TokenRejected('service account token claims are malformed');
      const aud = payload.aud;
      const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
      return { claim, audiences, id: payload.jti };
    } catch (err: unknown) {
      if (err instanceof TokenRejected) throw err;
      if (err instanceof errors.JWTExpired)
        throw new TokenRejected('service account token has expired');
      return undefined;
    }
  }
}
