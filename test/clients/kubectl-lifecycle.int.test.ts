// Must show (issue 4), continued: kubectl delete --cascade=background|foreground|orphan with
// owner and dependent ConfigMaps, wait --for=condition and --for=delete, and get --watch
// --output-watch-events, against the embedded API server and its in-server garbage collector.
import { describe, expect, it } from 'vitest';
import {
  condition,
  eventually,
  sandboxManifest,
  uniqueName,
  useKubectlServer,
  type JsonObject,
} from './support.ts';

const env = useKubectlServer('lifecycle');
const cms = `/api/v1/namespaces/${env.ns}/configmaps`;
const sandboxes = `/apis/agents.x-k8s.io/v1beta1/namespaces/${env.ns}/sandboxes`;
/** A finalizer only the test removes: it holds an object so the server's own steps show. */
const HOLD = 'example.com/hold';

/** An owner ConfigMap and a dependent pointing at it (blockOwnerDeletion), optionally held. */
async function family(
  owner: string,
  holdOwner: boolean,
  holdDependent: boolean,
): Promise<{ owner: JsonObject; dependent: JsonObject }> {
  const o = await env.api.create(cms, {
    metadata: { name: owner, ...(holdOwner ? { finalizers: [HOLD] } : {}) },
  });
  const d = await env.api.create(cms, {
    metadata: {
      name: `${owner}-dep`,
      ...(holdDependent ? { finalizers: [HOLD] } : {}),
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: owner,
          uid: o.metadata?.uid,
          blockOwnerDeletion: true,
        },
      ],
    },
  });
  return { owner: o, dependent: d };
}

async function current(name: string): Promise<JsonObject | undefined> {
  const r = await env.api.get(`${cms}/${name}`);
  if (r.status === 404) return undefined;
  expect(r.status).toBe(200);
  return r.body;
}

async function release(name: string): Promise<void> {
  await env.api.mergePatch(`${cms}/${name}`, { metadata: { finalizers: null } });
}

describe('kubectl delete --cascade', () => {
  it('background: the owner goes at once, the collector deletes the dependent', async () => {
    const name = uniqueName('bg');
    await family(name, false, false);
    const out = await env.kubectl.ok([
      'delete',
      'configmap',
      name,
      '-n',
      env.ns,
      '--cascade=background',
    ]);
    expect(out.trim()).toBe(`configmap "${name}" deleted`);
    expect(await current(name)).toBeUndefined();
    await eventually(
      async () => ((await current(`${name}-dep`)) ? undefined : true),
      'the dependent to be collected',
    );
  });

  it('foreground: foregroundDeletion holds the owner until the blocking dependent is gone', async () => {
    const name = uniqueName('fg');
    await family(name, false, true);
    const out = await env.kubectl.ok([
      ...['delete', 'configmap', name, '-n', env.ns],
      ...['--cascade=foreground', '--wait=false'],
    ]);
    expect(out.trim()).toBe(`configmap "${name}" deleted`);
    const owner = await current(name);
    expect(owner?.metadata?.finalizers).toEqual(['foregroundDeletion']);
    expect(owner?.metadata?.deletionTimestamp).toEqual(expect.any(String));
    // The collector deletes the dependent, which our finalizer holds, so the owner waits.
    const dep = await eventually(async () => {
      const d = await current(`${name}-dep`);
      return d?.metadata?.deletionTimestamp ? d : undefined;
    }, 'the dependent to be deleted');
    expect(dep.metadata?.finalizers).toEqual([HOLD]);
    expect((await current(name))?.metadata?.finalizers).toEqual(['foregroundDeletion']);

    await release(`${name}-dep`);
    await eventually(
      async () => ((await current(name)) ? undefined : true),
      'the owner to go once its dependent is gone',
    );
    expect(await current(`${name}-dep`)).toBeUndefined();
  });

  it('orphan: the dependent loses its owner reference and stays', async () => {
    const name = uniqueName('orphan');
    await family(name, true, false);
    const out = await env.kubectl.ok([
      ...['delete', 'configmap', name, '-n', env.ns],
      ...['--cascade=orphan', '--wait=false'],
    ]);
    expect(out.trim()).toBe(`configmap "${name}" deleted`);
    // The server adds the orphan finalizer (ours holds the owner after the collector is done).
    const owner = await current(name);
    expect(owner?.metadata?.deletionTimestamp).toEqual(expect.any(String));
    await eventually(async () => {
      const o = await current(name);
      return o?.metadata?.finalizers?.join() === HOLD ? true : undefined;
    }, 'the collector to remove the orphan finalizer');
    expect((await current(`${name}-dep`))?.metadata?.ownerReferences).toBeUndefined();

    await release(name);
    await eventually(async () => ((await current(name)) ? undefined : true), 'the owner to go');
    expect((await current(`${name}-dep`))?.metadata?.name).toBe(`${name}-dep`);
  });

  it('orphan: the server sets the orphan finalizer on the owner', async () => {
    const name = uniqueName('orphan-fin');
    await family(name, true, true);
    // A dry run shows what the server does to the owner before any controller acts.
    const r = await env.api.request('DELETE', `${cms}/${name}?dryRun=All`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Orphan',
    });
    expect(r.status).toBe(200);
    expect(r.body.metadata?.finalizers).toEqual([HOLD, 'orphan']);
    expect(r.body.metadata?.deletionTimestamp).toEqual(expect.any(String));
    await release(name);
    await release(`${name}-dep`);
  });

  it('foreground on a Sandbox waits until the collector has deleted its ConfigMaps', async () => {
    const name = uniqueName('owner');
    await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, env.ns));
    const owner = (await env.api.get(`${sandboxes}/${name}`)).body;
    const ref = { apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', name };
    for (const i of [1, 2])
      await env.api.create(cms, {
        metadata: {
          name: `${name}-cm${i}`,
          ownerReferences: [
            { ...ref, uid: owner.metadata?.uid, controller: true, blockOwnerDeletion: true },
          ],
        },
      });
    // kubectl's default --wait: it returns once the owner is gone.
    const out = await env.kubectl.ok([
      ...['delete', 'sandbox', name, '-n', env.ns, '--cascade=foreground'],
    ]);
    expect(out.trim()).toBe(`sandbox.agents.x-k8s.io "${name}" deleted`);
    expect((await env.api.get(`${sandboxes}/${name}`)).status).toBe(404);
    for (const i of [1, 2]) expect(await current(`${name}-cm${i}`)).toBeUndefined();
  });
});

describe('kubectl wait', () => {
  it('--for=condition=Ready returns once the status subresource reports it', async () => {
    const name = uniqueName('wait');
    await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, env.ns));
    const waiting = env.kubectl.run([
      ...['wait', '--for=condition=Ready', `sandbox/${name}`, '-n', env.ns],
      '--timeout=20s',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const got = await env.api.get(`${sandboxes}/${name}`);
    // PUT on /status with the stored resourceVersion, as a controller would.
    const put = await env.api.request('PUT', `${sandboxes}/${name}/status`, {
      ...got.body,
      status: {
        conditions: [condition('Ready', 'True', 'PodReady')],
      },
    });
    expect(put.status).toBe(200);
    const r = await waiting;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`sandbox.agents.x-k8s.io/${name} condition met`);
  });

  it('--for=delete returns once the object is gone', async () => {
    const name = uniqueName('gone');
    await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, env.ns));
    // kubectl reads the object, then watches it; deleted before that read, there is nothing to
    // wait for (exit 0, no output). -v=6 logs each request once answered: delete after the watch.
    const waiting = env.kubectl.stream([
      ...['wait', '--for=delete', `sandbox/${name}`, '-n', env.ns],
      ...['--timeout=20s', '-v=6'],
    ]);
    try {
      await eventually(
        () => (/[?&]watch=true/.test(waiting.stderr) ? true : undefined),
        `kubectl wait to watch sandbox/${name}`,
        20_000,
      );
      const del = await env.api.request('DELETE', `${sandboxes}/${name}`);
      expect(del.status).toBe(200);
      expect(await waiting.next((l) => l.includes('condition met'))).toBe(
        `sandbox.agents.x-k8s.io/${name} condition met`,
      );
      expect(await waiting.exited).toBe(0);
    } finally {
      await waiting.kill();
    }
  });
});

/** Runs `kubectl get sandboxes --watch --output-watch-events` through create, status, delete. */
async function watchJourney(): Promise<{ name: string; lines: string[]; stderr: string }> {
  const watchNs = uniqueName('watch');
  await env.kubectl.ok(['create', 'namespace', watchNs]);
  const name = uniqueName('watched');
  const watch = env.kubectl.stream([
    ...['get', 'sandboxes', '-n', watchNs],
    ...['--watch', '--output-watch-events'],
  ]);
  try {
    await env.kubectl.ok(['apply', '-f', '-'], sandboxManifest(name, watchNs));
    await watch.next((l) => l.startsWith('ADDED'));
    const at = watch.lines.length;
    await env.api.mergePatch(
      `/apis/agents.x-k8s.io/v1beta1/namespaces/${watchNs}/sandboxes/${name}/status`,
      {
        status: {
          conditions: [condition('Ready', 'False', 'PodPending')],
        },
      },
    );
    await watch.next((l) => l.startsWith('MODIFIED'), at);
    await env.kubectl.ok(['delete', 'sandbox', name, '-n', watchNs]);
    await watch.next((l) => l.startsWith('DELETED'));
    return { name, lines: [...watch.lines], stderr: watch.stderr };
  } finally {
    await watch.kill();
  }
}

describe('kubectl get --watch', () => {
  it('streams ADDED, MODIFIED and DELETED with --output-watch-events', async () => {
    const { name, lines, stderr } = await watchJourney();
    const events = lines.filter((l) => /^(ADDED|MODIFIED|DELETED)\s/.test(l));
    expect(events.map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      ['ADDED', name],
      ['MODIFIED', name],
      ['DELETED', name],
    ]);
    expect(lines[0]).toMatch(/^EVENT\s+NAME\s/);
    expect(stderr).toBe('');
  });

  // SERVER BUG: a watch requested with kubectl's Table Accept header
  // (`application/json;as=Table;v=v1;g=meta.k8s.io,...`) streams plain objects instead of one-row
  // Tables (semantics doc §10.1), so kubectl falls back to NAME/AGE and drops the printer columns:
  // header `EVENT NAME AGE` instead of kube-apiserver's `EVENT NAME READY REASON AGE`.
  it('prints the printer columns while watching (Table watch events)', async () => {
    const { name, lines } = await watchJourney();
    expect(lines[0]?.split(/\s+/)).toEqual(['EVENT', 'NAME', 'READY', 'REASON', 'AGE']);
    const modified = lines.find((l) => l.startsWith('MODIFIED'));
    expect(modified?.split(/\s+/).slice(0, 4)).toEqual(['MODIFIED', name, 'False', 'PodPending']);
  });
});
