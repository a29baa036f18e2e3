// `kubectl create token` against the embedded API server: the TokenRequest subresource issues a
// token that the server's TokenReview accepts as the service account, for the asked audience
// and duration, bound to a Secret when asked.
import { describe, expect, it } from 'vitest';
import { useKubectlServer } from './support.ts';

const env = useKubectlServer('kubectl-token');

function reviewManifest(token: string, audience?: string): string {
  return JSON.stringify({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec: { token, ...(audience ? { audiences: [audience] } : {}) },
  });
}

interface Claims {
  aud: string[];
  exp: number;
  iat: number;
  sub: string;
  'kubernetes.io': { secret?: { name: string } };
}

function claimsOf(token: string): Claims {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Claims;
}

describe('kubectl create token', () => {
  it('issues a token the server authenticates as the service account', async () => {
    await env.kubectl.ok(['create', 'serviceaccount', 'bot', '-n', env.ns]);
    const token = (await env.kubectl.ok(['create', 'token', 'bot', '-n', env.ns])).trim();
    expect(claimsOf(token).sub).toBe(`system:serviceaccount:${env.ns}:bot`);
    const user = await env.kubectl.ok(
      ['create', '-f', '-', '-o', 'jsonpath={.status.user.username}'],
      reviewManifest(token),
    );
    expect(user).toBe(`system:serviceaccount:${env.ns}:bot`);
  });

  it('honours --audience, --duration and --bound-object-*', async () => {
    await env.kubectl.ok(['create', 'serviceaccount', 'bound', '-n', env.ns]);
    await env.kubectl.ok(['create', 'secret', 'generic', 's1', '-n', env.ns]);
    const token = (
      await env.kubectl.ok([
        'create',
        'token',
        'bound',
        '-n',
        env.ns,
        '--audience',
        'vault',
        '--duration',
        '20m',
        '--bound-object-kind',
        'Secret',
        '--bound-object-name',
        's1',
      ])
    ).trim();
    const claims = claimsOf(token);
    expect(claims.aud).toEqual(['vault']);
    expect(claims.exp - claims.iat).toBe(1200);
    expect(claims['kubernetes.io'].secret?.name).toBe('s1');
    const authenticated = await env.kubectl.ok(
      ['create', '-f', '-', '-o', 'jsonpath={.status.authenticated}'],
      reviewManifest(token, 'vault'),
    );
    expect(authenticated).toBe('true');
    const short = await env.kubectl.run([
      'create',
      'token',
      'bound',
      '-n',
      env.ns,
      '--duration',
      '5m',
    ]);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('may not specify a duration less than 10 minutes');
  });
});
