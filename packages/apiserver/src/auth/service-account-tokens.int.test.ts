// TokenRequest and service account token authentication through the real server: issued tokens
// authenticate requests and TokenReviews as the service account, for their audiences only, until
// they expire or their service account or bound object is deleted; the key in the data dir keeps
// them valid across a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiServer } from '../server.ts';
import { openStore } from '../storage/index.ts';
import type { Store } from '../storage/store.ts';
import { ensureServiceAccountKey } from '../tls/service-account-key.ts';

const ADMIN = 'admin-token-0123456789abcdef';
const NS = '/api/v1/namespaces/default';

interface Json {
  [k: string]: unknown;
}

class Harness {
  clock = new Date('2026-11-30T10:00:00Z');
  readonly store: Store = openStore({ path: ':memory:' });
  server: ApiServer;
  readonly dir = mkdtempSync(join(tmpdir(), 'sa-tokens-'));

  constructor() {
    this.server = this.#start();
  }

  #start(): ApiServer {
    const server = new ApiServer({
      store: this.store,
      token: ADMIN,
      serviceAccountKey: ensureServiceAccountKey({ path: join(this.dir, 'pki', 'sa.key') }),
      controllers: false,
      context: { now: () => this.clock },
    });
    server.start();
    return server;
  }

  restart(): void {
    this.server.stop();
    this.server = this.#start();
  }

  /** Binds the `view` ClusterRole to a service account of `default`. */
  async grantView(sa: string): Promise<void> {
    const res = await this.call(
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
      {
        metadata: { name: `${sa}-view` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'ServiceAccount', name: sa }],
      },
    );
    expect(res.status).toBe(201);
  }

  async call(
    method: string,
    path: string,
    body?: unknown,
    token = ADMIN,
  ): Promise<{ status: number; body: Json }> {
    const res = await this.server.handle(
      new Request(`http://x${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    return { status: res.status, body: (await res.json()) as Json };
  }

  async token(sa: string, spec: Json = {}): Promise<string> {
    const res = await this.call('POST', `${NS}/serviceaccounts/${sa}/token`, { spec });
    expect(res.status).toBe(201);
    return (res.body['status'] as { token: string }).token;
  }

  async review(token: string, audiences?: string[]): Promise<Json> {
    const res = await this.call('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, ...(audiences ? { audiences } : {}) },
    });
    return res.body['status'] as Json;
  }

  close(): void {
    this.server.stop();
    this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('service account tokens', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('issue a TokenRequest with kube defaults that authenticates as the service account', async () => {
    h = new Harness();
    const sa = await h.call('POST', `${NS}/serviceaccounts`, { metadata: { name: 'bot' } });
    const res = await h.call('POST', `${NS}/serviceaccounts/bot/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {},
    });
    expect(res.status).toBe(201);
    expect(res.body['spec']).toEqual({
      audiences: ['https://kubernetes.default.svc.cluster.local'],
      expirationSeconds: 3600,
      boundObjectRef: null,
    });
    const status = res.body['status'] as { token: string; expirationTimestamp: string };
    expect(status.expirationTimestamp).toBe('2026-11-30T11:00:00Z');
    const saUid = (sa.body['metadata'] as { uid: string }).uid;
    expect(res.body['metadata']).toMatchObject({ name: 'bot', namespace: 'default', uid: saUid });

    const review = await h.review(status.token);
    expect(review).toMatchObject({
      authenticated: true,
      user: {
        username: 'system:serviceaccount:default:bot',
        uid: saUid,
        groups: [
          'system:serviceaccounts',
          'system:serviceaccounts:default',
          'system:authenticated',
        ],
      },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    // Authenticated (403, not 401) but granted nothing until a RoleBinding says so.
    const denied = await h.call('GET', `${NS}/configmaps`, undefined, status.token);
    expect(denied.status).toBe(403);
    expect(denied.body['message']).toBe(
      'configmaps is forbidden: User "system:serviceaccount:default:bot" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    await h.grantView('bot');
    const asBot = await h.call('GET', `${NS}/configmaps`, undefined, status.token);
    expect(asBot.status).toBe(200);
  });

  it('reject bad expirationSeconds and missing service accounts as kube does', async () => {
    h = new Harness();
    await h.call('POST', `${NS}/serviceaccounts`, { metadata: { name: 'bot' } });
    const short = await h.call('POST', `${NS}/serviceaccounts/bot/token`, {
      spec: { expirationSeconds: 599 },
    });
    expect(short.status).toBe(422);
    expect(short.body['message']).toBe(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
    );
    const long = await h.call('POST', `${NS}/serviceaccounts/bot/token`, {
      spec: { expirationSeconds: 2 ** 32 + 1 },
    });
    expect(long.body['message']).toContain('may not specify a duration larger than 2^32 seconds');
    const missing = await h.call('POST', `${NS}/serviceaccounts/nobody/token`, { spec: {} });
    expect(missing.status).toBe(404);
    expect(missing.body['message']).toBe('serviceaccounts "nobody" not found');
  });

  it('honour audiences', async () => {
    h = new Harness();
    await h.call('POST', `${NS}/serviceaccounts`, { metadata: { name: 'bot' } });
    const token = await h.token('bot', { audiences: ['vault'] });
    expect(await h.review(token, ['vault', 'other'])).toMatchObject({
      authenticated: true,
      audiences: ['vault'],
    });
    expect(await h.review(token)).toEqual({
      user: {},
      error:
        '[invalid bearer token, token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]]',
    });
    // The API's own audience is the issuer: a vault-only token does not reach the API.
    expect((await h.call('GET', `${NS}/configmaps`, undefined, token)).status).toBe(401);
  });

  it('reject expired tokens and tokens of deleted service accounts', async () => {
    h = new Harness();
    await h.call('POST', `${NS}/serviceaccounts`, { metadata: { name: 'bot' } });
    const token = await h.token('bot', { expirationSeconds: 600 });
    h.clock = new Date(h.clock.getTime() + 601_000);
    expect(await h.review(token)).toEqual({
      user: {},
      error: '[invalid bearer token, service account token has expired]',
    });
    const fresh = await h.token('bot');
    await h.call('DELETE', `${NS}/serviceaccounts/bot`);
    expect((await h.review(fresh))['error']).toBe(
      '[invalid bearer token, serviceaccounts "bot" not found]',
    );
    // A same-named successor is another service account.
    await h.call('POST', `${NS}/serviceaccounts`, { metadata: { name: 'bot' } });
    expect(String((await h.review(fresh))['error'])).toMatch(
      /service account UID \(.+\) does not match claim/,
    );
    expect((await h.call('GET', `${NS}/configmaps`, undefined, fresh)).status).toBe(401);
  });

  it('bind to a Secret or Pod that must exist with the given uid', async () => {
    h = new Harness();
    await h.call('POST', `${NS}/serviceaccounts`, { metadata: { name: 'bot' } });
    const secret = await h.call('POST', `${NS}/secrets`, { metadata: { name: 's1' } });
    const ref = { kind: 'Secret', apiVersion: 'v1', name: 's1' };
    const wrong = await h.call('POST', `${NS}/serviceaccounts/bot/token`, {
      spec: { boundObjectRef: { ...ref, uid: 'wrong' } },
    });
    expect(wrong.status).toBe(409);
    expect(wrong.body['message']).toBe(
      'Operation cannot be fulfilled on Secret "s1": the UID in the bound object reference (wrong) does not match the UID in record. The object might have been deleted and then recreated',
    );
    const noPod = await h.call('POST', `${NS}/serviceaccounts/bot/token`, {
      spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nopod' } },
    });
    expect(noPod.body['message']).toBe('pods "nopod" not found');
    const cm = await h.call('POST', `${NS}/serviceaccounts/bot/token`, {
      spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } },
    });
    expect(cm.status).toBe(400);
    expect(cm.body['message']).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');

    const uid = (secret.body['metadata'] as { uid: string }).uid;
    const token = await h.token('bot', { boundObjectRef: { ...ref, uid } });
    expect((await h.review(token))['authenticated']).toBe(true);
    await h.call('DELETE', `${NS}/secrets/s1`);
    expect((await h.review(token))['error']).toBe('[invalid bearer token, secrets "s1" not found]');
  });

  it('stay valid across a restart with the key kept in the data dir', async () => {
    h = new Harness();
    await h.call('POST', `${NS}/serviceaccounts`, { metadata: { name: 'bot' } });
    const token = await h.token('bot');
    await h.grantView('bot');
    h.restart();
    expect((await h.review(token))['authenticated']).toBe(true);
    expect((await h.call('GET', `${NS}/serviceaccounts/bot`, undefined, token)).status).toBe(200);
  });
});
