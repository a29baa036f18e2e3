// Sandbox lifecycle against the embedded API server with the real controllers: warm pool,
// template and image sources, connect, list by labels, suspend/resume, setTimeout, kill,
// `await using`, and the errors a user meets.
import { Annotations, Labels } from '@agent-sandbox/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  ConfigError,
  ConnectionError,
  InvalidArgumentError,
  NotFoundError,
  Sandbox,
  TemplateNotFoundError,
  TimeoutError,
  WarmPoolNotFoundError,
  type ConnectionOptions,
} from './index.ts';
import { SANDBOXES, SANDBOX_CLAIMS, type ClaimObject, type SandboxObject } from './resources.ts';
import { openSdkWorld, type SdkWorld } from './testing/world.ts';

describe('Sandbox lifecycle (embedded API server + controllers)', () => {
  let world: SdkWorld;
  let conn: ConnectionOptions;
  beforeAll(async () => {
    world = await openSdkWorld();
    conn = { kubeconfig: world.kubeconfigPath, namespace: world.namespace, hostEnv: {} };
    await world.createTemplate('python');
    await world.createPool('python-warm', 'python', 2);
  });
  afterAll(async () => {
    await world?.close();
  });

  const claim = (name: string): Promise<ClaimObject> =>
    world.client.get<ClaimObject>(SANDBOX_CLAIMS, world.namespace, name);

  it('creates from a warm pool: a claim with labels, metadata, env-free spec and a shutdownTime; connect and info see it', async () => {
    const before = Date.now();
    const sandbox = await Sandbox.create({
      ...conn,
      warmPool: 'python-warm',
      labels: { team: 'a' },
      metadata: { 'example.com/task': 't-1' },
      timeoutMs: 600_000,
    });
    try {
      expect(sandbox.claimName).toBe(sandbox.id);
      expect(sandbox.id).toMatch(/^sandbox-[0-9a-f]{8}$/);
      const c = await claim(sandbox.id);
      expect(c.metadata.labels).toEqual({ team: 'a', [Labels.CreatedBy]: 'typescript-client' });
      expect(c.metadata.annotations?.['example.com/task']).toBe('t-1');
      expect(c.metadata.annotations?.[Annotations.ClientFirstRequestedAt]).toMatch(/Z$/);
      expect(c.spec.warmPoolRef.name).toBe('python-warm');
      expect(c.spec.lifecycle?.shutdownPolicy).toBe('Delete');
      const at = Date.parse(c.spec.lifecycle?.shutdownTime ?? '');
      expect(at).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 600_000);
      expect(at).toBeLessThanOrEqual(Date.now() + 600_000);
      // Warm: the bound Sandbox is a pool member, not one named after the claim.
      expect(sandbox.sandboxName).not.toBe(sandbox.id);

      const info = await sandbox.info();
      expect(info).toMatchObject({
        id: sandbox.id,
        claimName: sandbox.id,
        sandboxName: sandbox.sandboxName,
        namespace: world.namespace,
        state: 'Running',
        warmPool: 'python-warm',
        template: 'python',
        labels: { team: 'a' },
        metadata: { 'example.com/task': 't-1' },
        podIPs: ['127.0.0.1'],
      });
      expect(info.expiresAt?.getTime()).toBe(at);

      const again = await Sandbox.connect(sandbox.id, conn);
      expect(again.sandboxName).toBe(sandbox.sandboxName);
      await again.close();
      // The Sandbox's own name also connects, and finds its claim.
      const bySandbox = await Sandbox.connect(sandbox.sandboxName, conn);
      expect(bySandbox.claimName).toBe(sandbox.id);
      await bySandbox.close();
    } finally {
      expect(await sandbox.kill()).toBe(true);
      expect(await sandbox.kill()).toBe(false);
      await sandbox.close();
    }
    await expect(Sandbox.connect(sandbox.id, conn)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('creates cold from a template through its shadow pool, with env; list selects by labels', async () => {
    const a = await Sandbox.create({
      ...conn,
      template: 'python',
      env: { GREETING: 'hi' },
      labels: { journey: 'list' },
    });
    const b = await Sandbox.create({ ...conn, image: 'busybox:1.36', labels: { journey: 'list' } });
    try {
      expect((await claim(a.id)).spec).toMatchObject({
        warmPoolRef: { name: 'shadow-pool-python' },
        env: [{ name: 'GREETING', value: 'hi' }],
      });
      expect(a.sandboxName).toBe(a.id); // cold: the Sandbox is named after the claim
      const sandbox = await world.client.get<SandboxObject>(SANDBOXES, world.namespace, a.id);
      expect(sandbox.spec.podTemplate.spec.containers[0]?.env).toContainEqual({
        name: 'GREETING',
        value: 'hi',
      });
      expect(b.claimName).toBeUndefined();
      const image = await world.client.get<SandboxObject>(SANDBOXES, world.namespace, b.id);
      expect(image.spec.podTemplate.spec.containers).toEqual([
        { name: 'sandbox', image: 'busybox:1.36' },
      ]);

      const listed = await Sandbox.list({ ...conn, labels: { journey: 'list' } });
      expect(listed.map((i) => [i.id, i.state, i.template ?? i.image])).toEqual(
        [
          [a.id, 'Running', 'python'],
          [b.id, 'Running', 'busybox:1.36'],
        ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      );
      expect(await Sandbox.list({ ...conn, labels: { journey: 'none' } })).toEqual([]);
      const all = await Sandbox.list(conn);
      // Warm pool members that no claim holds are not sandboxes a user created.
      expect(all.every((i) => i.claimName !== undefined || i.image !== undefined)).toBe(true);
    } finally {
      await a.kill();
      await b.kill();
      await a.close();
      await b.close();
    }
  });

  it('suspend keeps the Sandbox and removes the Pod; resume makes it Ready again', async () => {
    const sandbox = await Sandbox.create({ ...conn, template: 'python' });
    try {
      await sandbox.suspend();
      expect((await sandbox.info()).state).toBe('Suspended');
      await sandbox.resume();
      expect((await sandbox.info()).state).toBe('Running');
    } finally {
      await sandbox.kill();
      await sandbox.close();
    }
  });

  it('setTimeout moves the claim shutdownTime and keeps its policy; an image Sandbox gets spec.shutdownTime', async () => {
    const sandbox = await Sandbox.create({ ...conn, warmPool: 'python-warm' });
    const image = await Sandbox.create({ ...conn, image: 'busybox' });
    try {
      await sandbox.setTimeout(3_600_000);
      const c = await claim(sandbox.id);
      expect(Date.parse(c.spec.lifecycle?.shutdownTime ?? '')).toBeGreaterThan(
        Date.now() + 3_500_000,
      );
      expect(c.spec.lifecycle?.shutdownPolicy).toBe('Delete');
      await image.setTimeout(120_000);
      const s = await world.client.get<SandboxObject>(SANDBOXES, world.namespace, image.id);
      expect(s.spec).toMatchObject({ shutdownPolicy: 'Delete' });
      expect(Date.parse(s.spec.shutdownTime ?? '')).toBeGreaterThan(Date.now() + 100_000);
      await expect(sandbox.setTimeout(-1)).rejects.toBeInstanceOf(InvalidArgumentError);
    } finally {
      await sandbox.kill();
      await image.kill();
      await sandbox.close();
      await image.close();
    }
  });

  it('await using kills the sandbox at the end of the scope', async () => {
    let id: string | undefined;
    {
      await using sandbox = await Sandbox.create({ ...conn, warmPool: 'python-warm' });
      id = sandbox.id;
      expect((await sandbox.info()).state).toBe('Running');
    }
    const gone = await claim(id ?? '').then(
      (c) => c.metadata.deletionTimestamp !== undefined,
      () => true,
    );
    expect(gone).toBe(true);
  });

  it('fails fast on a missing pool or template and deletes its claim', async () => {
    const noPool = Sandbox.create({ ...conn, warmPool: 'absent', name: 'no-pool' });
    await expect(noPool).rejects.toBeInstanceOf(WarmPoolNotFoundError);
    await expect(noPool).rejects.toThrow('SandboxWarmPool "absent" not found');
    const noTemplate = Sandbox.create({ ...conn, template: 'absent-tpl', name: 'no-tpl' });
    await expect(noTemplate).rejects.toBeInstanceOf(TemplateNotFoundError);
    await expect(claim('no-pool')).rejects.toThrow(/not found/);
    await expect(claim('no-tpl')).rejects.toThrow(/not found/);
  });

  it('a taken name is AlreadyExists; a readiness timeout is Timeout with the last conditions', async () => {
    const first = await Sandbox.create({ ...conn, warmPool: 'python-warm', name: 'taken' });
    try {
      const err = await Sandbox.create({ ...conn, warmPool: 'python-warm', name: 'taken' }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AlreadyExistsError);
      expect((err as Error).message).toContain('Sandbox.connect("taken")');
    } finally {
      await first.kill();
      await first.close();
    }
    // No controller serves this namespace's claims quickly enough for 1 ms.
    const slow = await Sandbox.create({ ...conn, template: 'python', readyTimeoutMs: 1 }).catch(
      (e: unknown) => e,
    );
    expect(slow).toBeInstanceOf(TimeoutError);
    expect((slow as TimeoutError).code).toBe('Timeout');
  });

  it('bad inputs and bad connections are typed errors that name the field', async () => {
    await expect(Sandbox.create({ ...conn })).rejects.toThrow(
      'Sandbox.create needs one of warmPool, template or image',
    );
    await expect(Sandbox.create({ ...conn, warmPool: 'a', image: 'b' })).rejects.toThrow(
      'not warmPool and image',
    );
    await expect(Sandbox.create({ ...conn, warmPool: 'Bad_Pool' })).rejects.toThrow(
      /warmPool "Bad_Pool" must be a DNS subdomain/,
    );
    await expect(
      Sandbox.create({ ...conn, warmPool: 'p', labels: { 'bad key': 'x' } }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(Sandbox.create({ ...conn, warmPool: 'p', env: { '1X': 'y' } })).rejects.toThrow(
      /env name "1X"/,
    );
    await expect(Sandbox.connect('UPPER', conn)).rejects.toThrow(/id "UPPER" must be a DNS label/);
    await expect(Sandbox.list({ ...conn, namespace: 'Not A Namespace' })).rejects.toThrow(
      /namespace "Not A Namespace"/,
    );
    await expect(
      Sandbox.list({ hostEnv: {}, kubeconfig: '/nonexistent/kubeconfig' }),
    ).rejects.toBeInstanceOf(ConfigError);
    const down = await Sandbox.list({
      hostEnv: {},
      apiServer: { url: 'http://127.0.0.1:9' },
    }).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(ConnectionError);
    expect((down as ConnectionError).code).toBe('Connection');
  });

  it('each operation is a span on the given provider; a failure is an error span with its code', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const sandbox = await Sandbox.create({ ...conn, tracerProvider, warmPool: 'python-warm' });
    await sandbox.info();
    await sandbox.kill();
    await sandbox.close();
    await Sandbox.create({ ...conn, tracerProvider, warmPool: 'absent' }).catch(() => undefined);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual([
      'sandbox.create',
      'sandbox.info',
      'sandbox.kill',
      'sandbox.create',
    ]);
    expect(spans[0]?.attributes).toMatchObject({
      'sandbox.namespace': world.namespace,
      'sandbox.claim.name': sandbox.id,
      'sandbox.name': sandbox.sandboxName,
    });
    expect(spans[3]?.status).toMatchObject({ code: 2 });
    expect(spans[3]?.attributes['error.type']).toBe('WarmPoolNotFound');
    await tracerProvider.shutdown();
  });

  it('reads its defaults from the injected environment', async () => {
    const listed = await Sandbox.list({
      hostEnv: { KUBECONFIG: world.kubeconfigPath, AGENT_SANDBOX_NAMESPACE: world.namespace },
    });
    expect(Array.isArray(listed)).toBe(true);
    await expect(
      Sandbox.list({
        hostEnv: { KUBECONFIG: world.kubeconfigPath, AGENT_SANDBOX_NAMESPACE: 'Bad' },
      }),
    ).rejects.toThrow(/namespace "Bad"/);
  });
});
