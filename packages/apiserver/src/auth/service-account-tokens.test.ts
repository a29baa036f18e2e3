// The hand-made ES256 signature (ADR 0041) against an independent verifier: jose's jwtVerify with
// the public key, the header and claims kube's tokens carry, and the refusal of keys ES256 cannot
// name.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ApiServerError } from '../errors.ts';
import { generateServiceAccountKey } from '../tls/service-account-key.ts';
import { DEFAULT_ISSUER, ServiceAccountTokens, TokenRejected } from './service-account-tokens.ts';

const NOW = new Date('2026-12-03T11:00:00Z');
const claim = {
  namespace: 'default',
  serviceaccount: { name: 'default', uid: 'sa-uid' },
  pod: { name: 'p', uid: 'pod-uid' },
};

describe('ServiceAccountTokens.issue', () => {
  it('signs a JWT that jose verifies with the public key, with kube claims', async () => {
    const { privateKey } = generateServiceAccountKey();
    const tokens = new ServiceAccountTokens(privateKey);
    const { token, expires } = tokens.issue({
      claim,
      audiences: ['https://a', 'b'],
      now: NOW,
      expirationSeconds: 3600,
    });
    const iat = NOW.getTime() / 1000;
    const { payload, protectedHeader } = await jwtVerify(token, createPublicKey(privateKey), {
      algorithms: ['ES256'],
      issuer: DEFAULT_ISSUER,
      audience: 'b',
      currentDate: NOW,
    });
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: expect.stringMatching(/^[\w-]{43}$/) });
    expect(payload).toEqual({
      'kubernetes.io': claim,
      iss: DEFAULT_ISSUER,
      sub: 'system:serviceaccount:default:default',
      aud: ['https://a', 'b'],
      iat,
      nbf: iat,
      exp: iat + 3600,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(expires).toEqual(new Date((iat + 3600) * 1000));
    // And our own verifier reads it back.
    const verified = await tokens.verify(token, NOW);
    expect(verified?.claim).toEqual(claim);
  });

  it('gives every token its own jti and the same kid', () => {
    const tokens = new ServiceAccountTokens(generateServiceAccountKey().privateKey);
    const issue = () =>
      tokens.issue({ claim, audiences: ['x'], now: NOW, expirationSeconds: 600 }).token;
    const [a, b] = [issue(), issue()];
    expect(a).not.toBe(b);
    expect(decodeProtectedHeader(a).kid).toBe(decodeProtectedHeader(b).kid);
  });

  it('fails verification once a signature byte changes, and after expiry', async () => {
    const tokens = new ServiceAccountTokens(generateServiceAccountKey().privateKey);
    const { token } = tokens.issue({ claim, audiences: ['x'], now: NOW, expirationSeconds: 600 });
    const sig = Buffer.from(token.split('.')[2] ?? '', 'base64url');
    expect(sig.length).toBe(64); // r ‖ s, not DER
    sig[10] = (sig[10] ?? 0) ^ 1;
    const forged = `${token.split('.').slice(0, 2).join('.')}.${sig.toString('base64url')}`;
    await expect(tokens.verify(forged, NOW)).resolves.toBeUndefined();
    await expect(tokens.verify(token, new Date(NOW.getTime() + 601_000))).rejects.toThrow(
      TokenRejected,
    );
  });

  it('refuses a key that is not an ECDSA P-256 private key, naming the option', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    const pub = createPublicKey(generateServiceAccountKey().privateKey);
    for (const key of [rsa, p384, pub]) {
      expect(() => new ServiceAccountTokens(key)).toThrow(ApiServerError);
      expect(() => new ServiceAccountTokens(key)).toThrow(/serviceAccountKey: expected an ECDSA/);
    }
  });
});
