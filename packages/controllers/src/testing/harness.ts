// A running Sandbox controller for the integration and cluster tests: a real Manager with
// sandboxController(), plus small helpers to create Sandboxes and wait for their state.
import { SandboxConditionType } from '@agent-sandbox/api';
import type { Condition, v1beta1 } from '@agent-sandbox/api';
import {
  NAMESPACES,
  PODS,
  isNotFound,
  type Clock,
  type KubeClient,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { KubeObject, Pod } from '@agent-sandbox/kube-types';
import { Manager } from '@agent-sandbox/runtime';
import { pino, type Logger } from 'pino';
import {
  extensionControllers,
  type ExtensionControllersOptions,
} from '../extensions/extension-controllers.ts';
import { sandboxController } from '../sandbox/sandbox-controller.ts';
import { AdoptionsInFlight } from '../warm-queue/adoptions-in-flight.ts';
import { sandboxCacheTransforms } from '../sandbox/pod-cache-transform.ts';
import { SANDBOXES } from '../sandbox/sandbox-reconciler.ts';
import type { Tracer } from './recording-tracer.ts';

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
    /** The manager's logger (reconcilers log through it). @default silent */
    logger?: Logger;
    /** Also run the extension controllers (SandboxTemplate, SandboxWarmPool, SandboxClaim). */
    extensions?: Omit<ExtensionControllersOptions, 'client' | 'informers'>;
  } = {},
): RunningController {
  const { tracer, logger, extensions, ...controllerOptions } = options;
  const manager = new Manager({
    client,
    logger: logger ?? pino({ level: 'silent' }),
    namespace,
    cacheTransforms: sandboxCacheTransforms,
    ...(tracer !== undefined ? { tracer } : {}),
  });
  // One per manager, as the controller manager makes it (ADR 0039).
  const adoptionsInFlight = extensions?.adoptionsInFlight ?? new AdoptionsInFlight();
  manager.add(
    sandboxController({
      client,
      informers: manager,
      concurrency: 4,
      adoptionsInFlight,
      ...controllerOptions,
    }),
  );
  if (extensions !== undefined) {
    const clock = controllerOptions.clock !== undefined ? { clock: controllerOptions.clock } : {};
    const shared = { adoptionsInFlight, ...clock, ...extensions };
    for (const c of extensionControllers({ client, informers: manager, ...shared })) manager.add(c);
  }
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
/** The Pod template every test Sandbox and SandboxTemplate starts from: one busybox container, 1 s grace. */
export function testPodTemplate(): v1beta1.SandboxSpec['podTemplate'] {
  return {
    metadata: { labels: { app: 'agent' } },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 8080 }] }],
    },
  };
}

export function newSandbox(
  namespace: string,
  name: string,
  spec: Partial<v1beta1.SandboxSpec> = {},
): SandboxObject {
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: { name, namespace },
    spec: { podTemplate: testPodTemplate(), ...spec },
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

/** The status a kubelet reports for a started Pod: Running and Ready with one IP. */
export function runningPodStatus(ip: string): NonNullable<Pod['status']> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    phase: 'Running',
    podIP: ip,
    podIPs: [{ ip }],
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
      { type: 'Ready', status: 'True', lastTransitionTime: now },
    ],
  };
}

/** Plays the kubelet (the embedded server has none): the Pod is Running and Ready with an IP. */
export async function markPodRunning(
  client: KubeClient,
  ns: string,
  name: string,
  ip = '10.0.0.7',
): Promise<void> {
  await setPodStatus(client, ns, name, runningPodStatus(ip));
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

export * from './scenario-world.ts';
export * from './recording-tracer.ts';
