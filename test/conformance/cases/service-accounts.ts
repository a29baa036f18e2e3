// ServiceAccount tokens (TokenRequest, TokenReview) and what kube-controller-manager keeps in
// every namespace (the default ServiceAccount, kube-root-ca.crt). Token strings, expiry times and
// CA certificates differ between any two servers, so they are recorded by shape.
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import type { HttpResult, Target } from '../target.ts';

const V1 = '/api/v1';
const REVIEWS = '/apis/authentication.k8s.io/v1/tokenreviews';
type Json = Record<string, unknown>;

/** A TokenRequest response with its token and expiry replaced by whether they look right. */
function seenToken(res: HttpResult): unknown {
  const o = observe(res) as Json;
  const body = o['body'] as Json | undefined;
  const status = body?.['status'] as Json | undefined;
  if (!body || body['kind'] !== 'TokenRequest' || !status) return o;
  const spec = body['spec'] as Json;
  const expires = Date.parse(String(status['expirationTimestamp']));
  const created = Date.parse(String((body['metadata'] as Json)['creationTimestamp']));
  return {
    ...o,
    body: {
      ...body,
      status: {
        token: /^[\w-]+\.[\w-]+\.[\w-]+$/.test(String(status['token'])) ? '<jwt>' : status['token'],
        expirationTimestamp:
          (expires - created) / 1000 === spec['expirationSeconds']
            ? '<creation + expirationSeconds>'
            : status['expirationTimestamp'],
      },
    },
  };
}

async function createSa(t: Target, ns: string, name: string): Promise<void> {
  const res = await t.request('POST', nsPath(V1, ns, 'serviceaccounts'), {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
  });
  if (res.status !== 201) throw new Error(`${t.name}: create sa ${name}: ${res.status}`);
}

function tokenPath(ns: string, sa: string): string {
  return `${nsPath(V1, ns, 'serviceaccounts', sa)}/token`;
}

async function issue(t: Target, ns: string, sa: string, spec: Json = {}): Promise<string> {
  const res = await t.request('POST', tokenPath(ns, sa), {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec },
  });
  if (res.status !== 201)
    throw new Error(`${t.name}: token for ${sa}: ${res.status} ${JSON.stringify(res.body)}`);
  return String(((res.body as Json)['status'] as Json)['token']);
}

async function review(t: Target, token: string, audiences?: string[]): Promise<Json> {
  const res = await t.request('POST', REVIEWS, {
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, ...(audiences ? { audiences } : {}) },
    },
  });
  return (res.body as Json)['status'] as Json;
}

/** The whole TokenReview answer, with the (per-server) token replaced. */
async function fullReview(t: Target, token: string): Promise<unknown> {
  const res = await t.request('POST', REVIEWS, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
  });
  return JSON.parse(JSON.stringify(observe(res)).split(token).join('<token>'));
}

/** Polls until `check` holds (controllers and the real server's caches act asynchronously). */
async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, tries = 100): Promise<T> {
  let v = await read();
  for (let i = 0; i < tries && !check(v); i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  return v;
}

/** kube-root-ca.crt with its certificate replaced by whether it is one PEM certificate. */
function seenRootCa(res: HttpResult): unknown {
  const o = observe(res) as Json;
  const body = o['body'] as Json | undefined;
  const data = body?.['data'] as Json | undefined;
  if (!data) return o;
  const pem = String(data['ca.crt']);
  const isPem = /^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/.test(pem);
  return {
    ...o,
    body: { ...body, data: { ...data, 'ca.crt': isPem ? '<PEM certificate>' : pem } },
  };
}

export const SERVICE_ACCOUNT_CASES: ConformanceCase[] = [
  {
    name: 'serviceaccounts/token: TokenRequest defaults audiences and expirationSeconds',
    run: async (t, ns, rec) => {
      await createSa(t, ns, 'bot');
      const res = await t.request('POST', tokenPath(ns, 'bot'), {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
      });
      rec('create', seenToken(res));
      const custom = await t.request('POST', tokenPath(ns, 'bot'), {
        body: { spec: { audiences: ['vault', 'other'], expirationSeconds: 7200 } },
      });
      rec('custom', seenToken(custom));
    },
  },
  {
    name: 'serviceaccounts/token: expirationSeconds bounds and a missing service account',
    run: async (t, ns, rec) => {
      await createSa(t, ns, 'bot');
      for (const seconds of [599, 600, 4294967296, 4294967297])
        rec(
          `expirationSeconds ${seconds}`,
          seenToken(
            await t.request('POST', tokenPath(ns, 'bot'), {
              body: { spec: { expirationSeconds: seconds } },
            }),
          ),
        );
      rec(
        'missing',
        observe(await t.request('POST', tokenPath(ns, 'nobody'), { body: { spec: {} } })),
      );
    },
  },
  {
    name: 'serviceaccounts/token: boundObjectRef must name an existing Pod or Secret with its uid',
    run: async (t, ns, rec) => {
      await createSa(t, ns, 'bot');
      await t.request('POST', nsPath(V1, ns, 'secrets'), {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } },
      });
      const bound = (ref: Json) =>
        t.request('POST', tokenPath(ns, 'bot'), { body: { spec: { boundObjectRef: ref } } });
      rec('secret', seenToken(await bound({ kind: 'Secret', apiVersion: 'v1', name: 's1' })));
      rec(
        'wrong uid',
        observe(await bound({ kind: 'Secret', apiVersion: 'v1', name: 's1', uid: 'wrong' })),
      );
      rec('missing pod', observe(await bound({ kind: 'Pod', apiVersion: 'v1', name: 'nopod' })));
      rec('configmap', observe(await bound({ kind: 'ConfigMap', apiVersion: 'v1', name: 'x' })));
      rec(
        'other group',
        observe(await bound({ kind: 'Secret', apiVersion: 'example.com/v1', name: 's1' })),
      );
    },
  },
  {
    name: 'tokenreviews: service account tokens authenticate for their audiences until the account is deleted',
    run: async (t, ns, rec) => {
      await createSa(t, ns, 'bot');
      const token = await issue(t, ns, 'bot');
      rec('review', await review(t, token));
      rec('other audience', await review(t, token, ['other']));
      const vault = await issue(t, ns, 'bot', { audiences: ['vault'] });
      rec('vault token for vault', await review(t, vault, ['vault', 'x']));
      rec('vault token for the API', await review(t, vault));
      rec('garbage', await review(t, 'not-a-token'));
      rec('whole answer', await fullReview(t, token));
      rec('whole answer for garbage', await fullReview(t, 'not-a-token'));
      await t.request('DELETE', nsPath(V1, ns, 'serviceaccounts', 'bot'));
      rec(
        'after delete',
        await until(
          () => review(t, token),
          (s) => s['authenticated'] !== true,
        ),
      );
    },
  },
  {
    name: 'serviceaccounts: every namespace gets the default ServiceAccount',
    run: async (t, ns, rec) => {
      const path = nsPath(V1, ns, 'serviceaccounts', 'default');
      rec(
        'get',
        observe(
          await until(
            () => t.request('GET', path),
            (r) => r.status === 200,
          ),
        ),
      );
      await t.request('DELETE', path);
      const again = await until(
        () => t.request('GET', path),
        (r) => r.status === 200,
      );
      rec('recreated', observe(again));
    },
  },
  {
    name: 'configmaps: kube-root-ca.crt is published, recreated and repaired',
    run: async (t, ns, rec) => {
      const path = nsPath(V1, ns, 'configmaps', 'kube-root-ca.crt');
      const first = await until(
        () => t.request('GET', path),
        (r) => r.status === 200,
      );
      rec('get', seenRootCa(first));
      const uid = ((first.body as Json)['metadata'] as Json)['uid'];
      await t.request('DELETE', path);
      const again = await until(
        () => t.request('GET', path),
        (r) => r.status === 200 && ((r.body as Json)['metadata'] as Json)['uid'] !== uid,
      );
      rec('recreated', seenRootCa(again));
      const edited = structuredClone(again.body) as Json;
      edited['data'] = { 'ca.crt': 'tampered', extra: 'x' };
      (edited['metadata'] as Json)['annotations'] = { mine: 'kept' };
      rec('edit', (await t.request('PUT', path, { body: edited })).status);
      const repaired = await until(
        () => t.request('GET', path),
        (r) => ((r.body as Json)['data'] as Json)['ca.crt'] !== 'tampered',
      );
      rec('repaired', seenRootCa(repaired));
    },
  },
];
