// ADR 0046 through the ApiServer on a real file store: a GET waits only for the revisions it
// read. The store's write is left in the open batch (committed and fsynced at the next check
// phase), so an answer that had to wait for it cannot settle within a microtask.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiServer } from './server.ts';
import { openStore } from './storage/index.ts';
import type { Store } from './storage/store.ts';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0).reverse()) c();
});

async function setup(): Promise<{ store: Store; server: ApiServer }> {
  const dir = mkdtempSync(join(tmpdir(), 'seen-durable-'));
  const store = openStore({ path: join(dir, 'state.db') });
  cleanup.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => store.close(),
  );
  const server = new ApiServer({ store, token: 't', controllers: false });
  server.start();
  await server.durable();
  return { store, server };
}

const configMap = (name: string) =>
  JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'default' } });
const get = (server: ApiServer, name: string) =>
  server.handleSeen(
    new Request(`http://x/api/v1/namespaces/default/configmaps/${name}`, {
      headers: { Authorization: 'Bearer t' },
    }),
  );
const settledNow = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  return done;
};

describe('an answer waits for the revisions it saw', () => {
  it('a GET of an old object does not wait for a newer unrelated pending write', async () => {
    const { store, server } = await setup();
    const old = store.create('/registry/core/configmaps/default/old', configMap('old'));
    await store.durable();
    const newer = store.create('/registry/core/configmaps/default/new', configMap('new'));
    const { response, seen } = await get(server, 'old');
    expect(response.status).toBe(200);
    expect(seen).toBe(old.revision);
    expect(newer.revision).toBeGreaterThan(seen);
    // With a newer write in the open batch, the old revision is already durable.
    store.create('/registry/core/configmaps/default/newest', configMap('newest'));
    expect(await settledNow(server.durable(seen))).toBe(true);
    expect(await settledNow(server.durable())).toBe(false);
  });

  it('a GET that read the pending write waits for it', async () => {
    const { store, server } = await setup();
    const pending = store.create('/registry/core/configmaps/default/new', configMap('new'));
    const { response, seen } = await get(server, 'new');
    expect(response.status).toBe(200);
    expect(seen).toBe(pending.revision);
    const wait = server.durable(seen);
    expect(await settledNow(wait)).toBe(false);
    await wait;
  });
});
