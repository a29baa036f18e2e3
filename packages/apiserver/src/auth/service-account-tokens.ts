// Signs and verifies service account tokens (kube's bound service account tokens): ES256 JWTs
// with kube's claims. Verification uses `jose` (ADR 0009); signing is node:crypto's synchronous
// ECDSA sign (ADR 0041): jose's is WebCrypto's, a libuv threadpool job whose answer waits behind
// the node agent's file work and one more event loop turn, on every cold start's kube-api-access
// volume. Whether the service account and the bound object still exist is checked by the caller
// (authenticate.ts), which has the store.
import { createHash, createPublicKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import { errors, jwtVerify } from 'jose';
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

function base64url(json: unknown): string {
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}

export class ServiceAccountTokens {
  readonly issuer: string;
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  /** Like kube's key id: base64url(sha256(DER public key)). */
  readonly #kid: string;

  /** @throws ApiServerError `InvalidArgument` when `privateKey` is not an ECDSA P-256 private key */
  constructor(privateKey: KeyObject, issuer = DEFAULT_ISSUER) {
    // ES256 names the curve: another key would sign tokens no verifier accepts.
    const curve = privateKey.asymmetricKeyDetails?.namedCurve;
    if (privateKey.type !== 'private' || curve !== 'prime256v1')
      throw new ApiServerError(
        'InvalidArgument',
        `serviceAccountKey: expected an ECDSA P-256 private key, got a ${privateKey.type} ${privateKey.asymmetricKeyType ?? ''} ${curve ?? ''} key`,
      );
    this.issuer = issuer;
    this.#privateKey = privateKey;
    this.#publicKey = createPublicKey(privateKey);
    this.#kid = createHash('sha256')
      .update(this.#publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64url');
  }

  /** A signed token and its expiry (synchronous: no threadpool trip, ADR 0041). */
  issue(options: IssueOptions): { token: string; expires: Date } {
    const iat = Math.floor(options.now.getTime() / 1000);
    const exp = iat + options.expirationSeconds;
    const claims = {
      'kubernetes.io': { ...options.claim },
      iss: this.issuer,
      sub: `system:serviceaccount:${options.claim.namespace}:${options.claim.serviceaccount.name}`,
      aud: [...options.audiences],
      iat,
      nbf: iat,
      exp,
      jti: randomUUID(),
    };
    const input = `${base64url({ alg: 'ES256', kid: this.#kid })}.${base64url(claims)}`;
    // JWS ES256 (RFC 7518 §3.4): the signature is r ‖ s, 32 bytes each, not DER.
    const signature = sign('sha256', Buffer.from(input), {
      key: this.#privateKey,
      dsaEncoding: 'ieee-p1363',
    });
    return { token: `${input}.${signature.toString('base64url')}`, expires: new Date(exp * 1000) };
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
