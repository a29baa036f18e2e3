// A running Sandbox controller for the integration and cluster tests: a real Manager with
// sandboxController(), plus small helpers to create Sandboxes and wait for their state.
import { SandboxConditionType } from '@agent-sandbox/api';
import type { Condition, v1beta1 } from '@agent-sandbox/api';
// eslint-disable-next-line no-restricted-imports -- scenario suites install our CRDs on the cluster
import { readOurCrds } from '@agent-sandbox/apiserver/testing';
import {
  CONFIG_MAPS,
  KubeClient,
  NAMESPACES,
  PODS,
  isAlreadyExists,
  isNotFound,
  kubeConfigFromFile,
  type Clock,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type {
  CustomResourceDefinition,
  KubeObject,
  OwnerReference,
  Pod,
} from '@agent-sandbox/kube-types';
import { Manager, type ReconcileContext } from '@agent-sandbox/runtime';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
// eslint-disable-next-line no-restricted-imports -- the scenario suites choose their target
import { connectTarget, type TestTarget } from '../../../../test/support/target.ts';
import { sandboxController } from '../sandbox/sandbox-controller.ts';
import { sandboxCacheTransforms } from '../sandbox/pod-cache-transform.ts';
import { SANDBOXES } from '../sandbox/sandbox-reconciler.ts';

export type SandboxObject = v1beta1.Sandbox & KubeObject;

export interface RunningController {
  manager: Manager;
  /** Aborts the manager and waits for its graceful shutdown. */
  stop(): Promise<void>;
}

/** Starts a Manager restricted to `namespace` with the Sandbox controller. */
export function startSandboxController(
  client: KubeClient,
  namespace: string,
  options: {
    clusterDomain?: string;
    writeBehindWindowMs?: number;
    tracer?: Tracer;
    clock?: Clock;
  } = {},
): RunningController {
  const { tracer, ...controllerOptions } = options;
  const manager = new Manager({
    client,
    logger: pino({ level: 'silent' }),
    namespace,
    cacheTransforms: sandboxCacheTransforms,
    ...(tracer !== undefined ? { tracer } : {}),
  });
  manager.add(
    sandboxController({ client, informers: manager, concurrency: 4, ...controllerOptions }),
  );
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  done.catch(() => undefined);
  return {
    manager,
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}

export async function createNamespace(client: KubeClient, name: string): Promise<void> {
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** Polls until `check` returns a value other than undefined (assertion errors retry too). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 20_000,
): Promise<T> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err: unknown) {
      last = err;
    }
    if (Date.now() - start > timeoutMs) {
      throw new Error(`condition not met in ${timeoutMs} ms`, { cause: last });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A v1beta1 Sandbox with one busybox container listening on 8080. */
export function newSandbox(
  namespace: string,
  name: string,
  spec: Partial<v1beta1.SandboxSpec> = {},
): SandboxObject {
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: { name, namespace },
    spec: {
      podTemplate: {
        metadata: { labels: { app: 'agent' } },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 8080 }] }],
        },
      },
      ...spec,
    },
  };
}

export async function getSandbox(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<SandboxObject> {
  return client.get<SandboxObject>(SANDBOXES, namespace, name);
}

export function condition(
  sandbox: SandboxObject,
  type: keyof typeof SandboxConditionType,
): Condition | undefined {
  return sandbox.status?.conditions?.find((c) => c.type === type);
}

export type PodObject = Pod & KubeObject;

export async function waitForPod(client: KubeClient, ns: string, name: string): Promise<PodObject> {
  return eventually(() => client.get<PodObject>(PODS, ns, name));
}

/**
 * A schedulerName no scheduler serves: on the real cluster kube-scheduler and kwok leave such a Pod
 * alone, so a test can script its status exactly as it does on the embedded server (no kubelet).
 */
export const SCRIPTED_SCHEDULER = 'agent-sandbox-test-scripted';

/** Writes a Pod's status through `pods/status` (merge patch), as a kubelet would. */
export async function setPodStatus(
  client: KubeClient,
  ns: string,
  name: string,
  status: NonNullable<Pod['status']>,
): Promise<void> {
  await client.patch(
    PODS,
    ns,
    name,
    { type: 'merge', body: { status } },
    { subresource: 'status' },
  );
}

/** Plays the kubelet (the embedded server has none): the Pod is Running and Ready with an IP. */
export async function markPodRunning(
  client: KubeClient,
  ns: string,
  name: string,
  ip = '10.0.0.7',
): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const status = {
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
      { type: 'Ready', status: 'True', lastTransitionTime: now },
    ],
  };
  await setPodStatus(client, ns, name, status);
}

/** true once the object is gone (NotFound), undefined while it exists. */
export async function gone(
  client: KubeClient,
  ref: ResourceRef,
  ns: string,
  name: string,
): Promise<true | undefined> {
  return client.get(ref, ns, name).then(
    () => undefined,
    (err: unknown) => (isNotFound(err) ? true : Promise.reject(err)),
  );
}

// ---- Scenario suites (sandbox/scenarios/): the same scenarios on the embedded server and cluster.

/** A finalizer tests put on a Pod to keep it terminating; closeScenarioWorld() releases it. */
export const TEST_FINALIZER = 'test.agent-sandbox.dev/hold';

/** One scenario file's world on a target: a client, a fresh namespace, a running controller. */
export interface ScenarioWorld {
  target: TestTarget;
  client: KubeClient;
  ns: string;
  controller: RunningController;
  /** Stops the controller, releases TEST_FINALIZER holds, deletes the namespace. */
  close(): Promise<void>;
}

const CUSTOM_RESOURCE_DEFINITIONS: ResourceRef = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};

/**
 * Connects to `target` (a fresh embedded API server, or the shared cluster with our CRDs
 * installed), creates a random namespace and starts the Sandbox controller restricted to it.
 */
export async function openScenarioWorld(
  target: TestTarget,
  options: {
    clusterDomain?: string;
    writeBehindWindowMs?: number;
    tracer?: Tracer;
    clock?: Clock;
  } = {},
): Promise<ScenarioWorld> {
  const handle = await connectTarget(target);
  const client = new KubeClient({ config: kubeConfigFromFile(handle.kubeconfigPath) });
  if (target === 'cluster') {
    for (const crd of readOurCrds()) {
      await client
        .create(CUSTOM_RESOURCE_DEFINITIONS, crd as CustomResourceDefinition & KubeObject)
        .catch((err: unknown) => {
          if (!isAlreadyExists(err)) throw err;
        });
    }
  }
  const ns = `sbx-${randomBytes(4).toString('hex')}`;
  await createNamespace(client, ns);
  // The kinds are served once a list succeeds (CRDs just created on the cluster).
  await eventually(() => client.list(SANDBOXES, ns), 60_000);
  const controller = startSandboxController(client, ns, options);
  return {
    target,
    client,
    ns,
    controller,
    close: async () => {
      await controller.stop();
      await releaseTestFinalizers(client, ns).catch(() => undefined);
      await client.delete(NAMESPACES, undefined, ns).catch(() => undefined);
      await client.close();
      await handle.close();
    },
  };
}

/** Removes TEST_FINALIZER from every Pod in `ns` so the Pods (and the namespace) can go. */
export async function releaseTestFinalizers(client: KubeClient, ns: string): Promise<void> {
  const pods = await client.list<PodObject>(PODS, ns);
  for (const pod of pods.items) {
    const finalizers = pod.metadata.finalizers ?? [];
    if (!finalizers.includes(TEST_FINALIZER)) continue;
    await client.patch(PODS, ns, pod.metadata.name ?? '', {
      type: 'merge',
      body: { metadata: { finalizers: finalizers.filter((f) => f !== TEST_FINALIZER) } },
    });
  }
}

/** newSandbox() whose Pod no scheduler or kwok touches: the test scripts its status. */
export function scriptedSandbox(
  namespace: string,
  name: string,
  spec: Partial<v1beta1.SandboxSpec> = {},
): SandboxObject {
  const sandbox = newSandbox(namespace, name, spec);
  const podSpec = sandbox.spec.podTemplate.spec;
  sandbox.spec.podTemplate.spec = { ...podSpec, schedulerName: SCRIPTED_SCHEDULER };
  return sandbox;
}

/** A Pod created by the test (not the controller), on the scripted scheduler. */
export function scriptedPod(
  namespace: string,
  name: string,
  metadata: Omit<NonNullable<Pod['metadata']>, 'name' | 'namespace'> = {},
): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { ...metadata, name, namespace },
    spec: {
      schedulerName: SCRIPTED_SCHEDULER,
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image: 'busybox' }],
    },
  };
}

/** The controller reference a Sandbox puts on its children, for Pods the test pre-creates. */
export function sandboxControllerRef(sandbox: SandboxObject): OwnerReference {
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    name: sandbox.metadata.name ?? '',
    uid: sandbox.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * "Another controller": a ConfigMap that exists (so garbage collection keeps its dependents) and
 * a controller reference to it.
 */
export async function createForeignOwner(
  client: KubeClient,
  ns: string,
  name: string,
): Promise<OwnerReference> {
  const configMap: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns },
  };
  const owner = await client.create(CONFIG_MAPS, configMap);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name,
    uid: owner.metadata.uid ?? '',
    controller: true,
  };
}

/** How many reconciles the controller has finished (controller_runtime_reconcile_total). */
export async function reconcileCount(controller: RunningController): Promise<number> {
  const metric = await controller.manager.metrics.reconcileTotal.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

/**
 * Makes the controller reconcile `name` once more (a test-owned annotation on the Sandbox) and
 * waits until that reconcile has finished and the queue is idle. Returns the Sandbox as the
 * test's own write left it, so a caller can prove the controller wrote nothing afterwards.
 */
export async function pokeAndSettle(
  world: Pick<ScenarioWorld, 'client' | 'ns' | 'controller'>,
  name: string,
): Promise<SandboxObject> {
  return patchAndSettle(world, name, {
    metadata: { annotations: { 'test.agent-sandbox.dev/poke': String(Date.now()) } },
  });
}

/**
 * Merge-patches the Sandbox, waits until the controller's cache holds that version, then until
 * the reconciles it caused have finished and the queue is idle. Returns the patched Sandbox.
 */
export async function patchAndSettle(
  world: Pick<ScenarioWorld, 'client' | 'ns' | 'controller'>,
  name: string,
  body: Record<string, unknown>,
): Promise<SandboxObject> {
  const before = await reconcileCount(world.controller);
  const patched = await world.client.patch<SandboxObject>(SANDBOXES, world.ns, name, {
    type: 'merge',
    body,
  });
  const cache = world.controller.manager.getInformer<SandboxObject>(SANDBOXES).cache;
  const metrics = world.controller.manager.metrics;
  await eventually(async () => {
    const cached = cache.get(`${world.ns}/${name}`)?.metadata.resourceVersion;
    if (!notOlder(cached, patched.metadata.resourceVersion)) return undefined;
    if ((await reconcileCount(world.controller)) <= before) return undefined;
    const depth = (await metrics.queueDepth.get()).values.reduce((s, v) => s + v.value, 0);
    const active = (await metrics.activeWorkers.get()).values.reduce((s, v) => s + v.value, 0);
    return depth === 0 && active === 0 ? true : undefined;
  });
  return patched;
}

/** resourceVersions are opaque, but both targets issue increasing integers. */
function notOlder(cached: string | undefined, written: string | undefined): boolean {
  if (cached === undefined || written === undefined) return false;
  if (/^\d+$/.test(cached) && /^\d+$/.test(written)) return BigInt(cached) >= BigInt(written);
  return cached === written;
}

// ---- Scenario helpers of conditions/reconcile/expiry scenarios.

/** The real OpenTelemetry Tracer interface, as the runtime hands it to reconcilers. */
export type Tracer = ReconcileContext['tracer'];
type Span = ReturnType<Tracer['startSpan']>;
type SpanAttributes = NonNullable<NonNullable<Parameters<Tracer['startSpan']>[1]>['attributes']>;

/** A span as the RecordingTracer saw it. */
export interface RecordedSpan {
  name: string;
  attributes: Record<string, unknown>;
  ended: boolean;
}

/**
 * Keeps every span in memory, like the SDK's InMemorySpanExporter. Why not the SDK: every
 * Node-20 release of @opentelemetry/sdk-trace-base declares the peer `@opentelemetry/api
 * <1.10.0` and the workspace pins 1.10.0 (see packages/cli/src/commands/tracing-sdk.ts).
 */
export class RecordingTracer implements Tracer {
  readonly spans: RecordedSpan[] = [];

  startSpan(name: string, options: { attributes?: SpanAttributes } = {}): Span {
    const recorded: RecordedSpan = { name, attributes: { ...options.attributes }, ended: false };
    this.spans.push(recorded);
    return recordingSpan(recorded);
  }

  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: unknown[]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as { attributes?: SpanAttributes }) : {};
    return fn(this.startSpan(name, options)) as ReturnType<F>;
  }
}

function recordingSpan(recorded: RecordedSpan): Span {
  const span: Span = {
    spanContext: () => ({
      traceId: '0'.repeat(31) + '1',
      spanId: '0'.repeat(15) + '1',
      traceFlags: 1,
    }),
    setAttribute: (key, value) => {
      recorded.attributes[key] = value;
      return span;
    },
    setAttributes: (attributes) => {
      Object.assign(recorded.attributes, attributes);
      return span;
    },
    addEvent: () => span,
    addLink: () => span,
    addLinks: () => span,
    setStatus: () => span,
    updateName: (name) => {
      recorded.name = name;
      return span;
    },
    end: () => {
      recorded.ended = true;
    },
    isRecording: () => !recorded.ended,
    recordException: () => undefined,
  };
  return span;
}

/** Waits until the Sandbox's condition `type` matches `expected` (reason, status, message…). */
export async function waitForCondition(
  client: KubeClient,
  ns: string,
  name: string,
  type: keyof typeof SandboxConditionType,
  expected: Partial<Condition>,
  timeoutMs?: number,
): Promise<SandboxObject> {
  return eventually(async () => {
    const s = await getSandbox(client, ns, name);
    const c = condition(s, type);
    if (c === undefined) return undefined;
    const matches = Object.entries(expected).every(
      ([k, v]) => (c as unknown as Record<string, unknown>)[k] === v,
    );
    return matches ? s : undefined;
  }, timeoutMs);
}

/** Every version of one Sandbox a watch delivers, until stop(). */
export interface SandboxWrites {
  readonly seen: SandboxObject[];
  stop(): Promise<void>;
}

/** Records the Sandbox's MODIFIED events from now on (resourceVersion of `from` onwards). */
export function watchSandbox(
  client: KubeClient,
  ns: string,
  name: string,
  fromResourceVersion: string,
): SandboxWrites {
  const abort = new AbortController();
  const seen: SandboxObject[] = [];
  const running = (async () => {
    const events = client.watch<SandboxObject>(SANDBOXES, ns, {
      signal: abort.signal,
      fieldSelector: `metadata.name=${name}`,
      resourceVersion: fromResourceVersion,
    });
    for await (const event of events) {
      if (event.type === 'MODIFIED') seen.push(event.object);
    }
  })();
  return {
    seen,
    stop: async () => {
      abort.abort();
      await running.catch(() => undefined);
    },
  };
}
