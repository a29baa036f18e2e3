// Scenario suites (sandbox/scenarios/): the same scenarios on the embedded server and the cluster,
// each file in its own namespace with its own running controller.
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
  kubeConfigFromFile,
  type Clock,
  CUSTOM_RESOURCE_DEFINITIONS,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type {
  CustomResourceDefinition,
  KubeObject,
  OwnerReference,
  Pod,
} from '@agent-sandbox/kube-types';
import { randomBytes } from 'node:crypto';
import { connectTarget, type TestTarget } from './target.ts';
import { SANDBOXES } from '../sandbox/sandbox-reconciler.ts';
import { controllerClient } from './controller-identity.ts';
import {
  SCRIPTED_SCHEDULER,
  condition,
  createNamespace,
  eventually,
  getSandbox,
  newSandbox,
  startSandboxController,
  type PodObject,
  type RunningController,
  type SandboxObject,
} from './harness.ts';
import type { ExtensionControllersOptions } from '../extensions/extension-controllers.ts';
import type { Tracer } from './recording-tracer.ts';
import { startScriptedKubelet } from './scripted-kubelet.ts';
import type { Logger } from 'pino';

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
    logger?: Logger;
    /** Also run the extension controllers; on the embedded server a scripted kubelet too. */
    extensions?: Omit<ExtensionControllersOptions, 'client' | 'informers'>;
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
  // The controllers run under their own identity, as `up` or a deployment runs them.
  const controllerKube = await controllerClient(
    client,
    kubeConfigFromFile(handle.kubeconfigPath),
    ns,
    {
      extensions: options.extensions !== undefined,
      ...(handle.controllerUser ? { embeddedUser: handle.controllerUser } : {}),
    },
  );
  const controller = startSandboxController(controllerKube, ns, options);
  const kubelet =
    options.extensions !== undefined && target === 'embedded'
      ? startScriptedKubelet(client, ns)
      : undefined;
  return {
    target,
    client,
    ns,
    controller,
    close: async () => {
      await controller.stop();
      await kubelet?.stop();
      await releaseTestFinalizers(client, ns).catch(() => undefined);
      await client.delete(NAMESPACES, undefined, ns).catch(() => undefined);
      await controllerKube.close();
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

/** Polls until `name` of `ref` in the world's namespace exists and satisfies `check`. */
export async function objectWhere<T extends KubeObject>(
  world: Pick<ScenarioWorld, 'client' | 'ns'>,
  ref: ResourceRef,
  name: string,
  check: (obj: T) => boolean,
): Promise<T> {
  return eventually(async () => {
    const obj = await world.client.get<T>(ref, world.ns, name);
    return check(obj) ? obj : undefined;
  });
}
