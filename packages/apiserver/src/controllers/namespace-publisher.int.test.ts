// kube-root-ca.crt and the default ServiceAccount in every namespace, through the real server:
// published on namespace creation, recreated when deleted, repaired when edited, left alone in
// terminating namespaces.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApiServer, TEST_CA_CERT, type TestApiServer } from '../testing/test-server.ts';
import { ROOT_CA_DESCRIPTION } from './namespace-publisher.ts';
import { eventually, settle, TestClient } from './test-client.ts';

const CM = (ns: string) => `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`;
const SA = (ns: string) => `/api/v1/namespaces/${ns}/serviceaccounts/default`;

describe('namespace publishers', () => {
  let s: TestApiServer;
  let c: TestClient;

  beforeAll(async () => {
    s = await startTestApiServer();
    c = new TestClient(s.url);
  });
  afterAll(async () => {
    await s.close();
  });

  it('publish kube-root-ca.crt with the CA and the default ServiceAccount in new and bootstrap namespaces', async () => {
    await c.createNamespace('pub-a');
    for (const ns of ['pub-a', 'default', 'kube-system']) {
      await eventually(`kube-root-ca.crt in ${ns}`, () => c.exists(CM(ns)));
      await eventually(`default SA in ${ns}`, () => c.exists(SA(ns)));
    }
    const cm = (await c.get(CM('pub-a'))).body;
    expect(cm['data']).toEqual({ 'ca.crt': TEST_CA_CERT });
    expect(cm.metadata.annotations).toEqual({ 'kubernetes.io/description': ROOT_CA_DESCRIPTION });
    expect(cm.metadata.managedFields?.[0]?.manager).toBe('kube-controller-manager');
    const sa = (await c.get(SA('pub-a'))).body;
    expect(sa.metadata.managedFields).toBeUndefined();
  });

  it('recreate deleted objects', async () => {
    await c.createNamespace('pub-b');
    await eventually(
      'published',
      async () => (await c.exists(CM('pub-b'))) && c.exists(SA('pub-b')),
    );
    const oldCm = (await c.get(CM('pub-b'))).body.metadata.uid;
    const oldSa = (await c.get(SA('pub-b'))).body.metadata.uid;
    expect((await c.delete(CM('pub-b'))).status).toBe(200);
    expect((await c.delete(SA('pub-b'))).status).toBe(200);
    await eventually('new ConfigMap', async () => {
      const got = await c.get(CM('pub-b'));
      return got.status === 200 && got.body.metadata.uid !== oldCm;
    });
    await eventually('new ServiceAccount', async () => {
      const got = await c.get(SA('pub-b'));
      return got.status === 200 && got.body.metadata.uid !== oldSa;
    });
  });

  it('repair edited data and the description annotation, keeping other annotations', async () => {
    await c.createNamespace('pub-c');
    await eventually('published', () => c.exists(CM('pub-c')));
    const res = await c.update(CM('pub-c'), (cm) => {
      cm['data'] = { 'ca.crt': 'tampered', extra: 'x' };
      cm.metadata.annotations = { mine: 'kept' };
    });
    expect(res.status).toBe(200);
    await eventually('repaired', async () => {
      const cm = (await c.get(CM('pub-c'))).body;
      return (cm['data'] as Record<string, string>)['ca.crt'] === TEST_CA_CERT;
    });
    const cm = (await c.get(CM('pub-c'))).body;
    expect(cm['data']).toEqual({ 'ca.crt': TEST_CA_CERT });
    expect(cm.metadata.annotations).toEqual({
      mine: 'kept',
      'kubernetes.io/description': ROOT_CA_DESCRIPTION,
    });
  });

  it('let a terminating namespace go away', async () => {
    await c.createNamespace('pub-d');
    await eventually('published', () => c.exists(CM('pub-d')));
    expect((await c.delete('/api/v1/namespaces/pub-d')).status).toBe(200);
    await eventually('namespace gone', async () => !(await c.exists('/api/v1/namespaces/pub-d')));
    await settle();
    expect(await c.exists(CM('pub-d'))).toBe(false);
  });
});
