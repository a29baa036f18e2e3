// The Sandbox reconciler (spec §11): the I/O around the pure plan. It reads the manager's informer
// caches, calls planSandbox, executes the writes (creates, metadata merge patches, deletes with a
// UID precondition), records events, and writes the status as an unlocked merge patch of
// `sandboxes/status` (§11.8). Level-triggered and idempotent; it never writes the user's spec.
import { nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import {
  InvalidArgumentError,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  SERVICES,
  isAlreadyExists,
  isNotFound,
  realClock,
  type Clock,
  type KubeClient,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { KubeObject, PersistentVolumeClaim, Pod, Service } from '@agent-sandbox/kube-types';
import type {
  InformerSource,
  ReconcileContext,
  Reconciler,
  Request,
  Result,
} from '@agent-sandbox/runtime';
import { ControllersError } from '../errors.ts';
import { SANDBOX_FIELD_OWNER } from './desired-pod.ts';
import { pvcActions, pvcName, type PvcAction } from './desired-pvcs.ts';
import { serviceAction, type ServiceAction } from './desired-service.ts';
import { recordSandboxEvent } from './events.ts';
import { expiredStatus, expiryAfterReconcile, type ExpiryTeardown } from './expiry.ts';
import { resolvePodName } from './ownership.ts';
import {
  observedChildren,
  planSandbox,
  reconcileSpanAttributes,
  returnedErrors,
  type PlanOutcome,
  type SandboxPlan,
  type SandboxReads,
} from './plan.ts';
import { planPod, podNameAnnotationPatch, type PodObservation, type PodPlan } from './pod-plan.ts';
import { computeStatus, isStatusWriteNeeded, statusMergePatch } from './status.ts';

type Sandbox = v1beta1.Sandbox & KubeObject;
type SandboxStatus = v1beta1.SandboxStatus;
type Obj<T> = T & KubeObject;
type ReconcilePlan = Extract<SandboxPlan, { phase: 'Reconcile' }>;

/** The Sandbox kind (agents.x-k8s.io/v1beta1, namespaced). */
export const SANDBOXES: ResourceRef = {
  group: 'agents.x-k8s.io',
  version: 'v1beta1',
  plural: 'sandboxes',
  kind: 'Sandbox',
  namespaced: true,
};

/** The Pod cache index (§11.1): `<namespace>/<agents.x-k8s.io/sandbox-name-hash label>`. */
export const POD_NAME_HASH_INDEX = 'sandbox-name-hash';
const NAME_HASH_LABEL = 'agents.x-k8s.io/sandbox-name-hash';

export interface SandboxReconcilerOptions {
  client: KubeClient;
  /** The manager (its shared informers for Sandboxes, Pods, Services and PVCs). */
  informers: InformerSource;
  /** The DNS domain of `status.serviceFQDN`. @default 'cluster.local' */
  clusterDomain?: string;
  clock?: Clock;
}

export class SandboxReconciler implements Reconciler {
  readonly #client: KubeClient;
  readonly #informers: InformerSource;
  readonly #clusterDomain: string | undefined;
  readonly #clock: Clock;

  constructor(options: SandboxReconcilerOptions) {
    if (!options.client) throw new InvalidArgumentError('sandbox reconciler needs a client');
    if (!options.informers) throw new InvalidArgumentError('sandbox reconciler needs informers');
    this.#client = options.client;
    this.#informers = options.informers;
    this.#clusterDomain = options.clusterDomain;
    this.#clock = options.clock ?? realClock;
    const pods = options.informers.getInformer<Obj<Pod>>(PODS);
    try {
      pods.addIndex(POD_NAME_HASH_INDEX, (pod) => {
        const hash = pod.metadata.labels?.[NAME_HASH_LABEL];
        return hash === undefined ? [] : [`${pod.metadata.namespace ?? ''}/${hash}`];
      });
    } catch (err: unknown) {
      // Another Sandbox controller on the same manager added it already.
      if (!(err instanceof InvalidArgumentError)) throw err;
    }
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result | void> {
    const sandbox = this.#cache<Sandbox>(SANDBOXES, req.namespace, req.name);
    if (sandbox === undefined) return;
    const span = ctx.tracer.startSpan('ReconcileSandbox', {
      attributes: reconcileSpanAttributes(sandbox),
    });
    try {
      return await this.#reconcile(sandbox, ctx);
    } finally {
      span.end();
    }
  }

  async #reconcile(sandbox: Sandbox, ctx: ReconcileContext): Promise<Result | void> {
    const now = new Date(this.#clock.now());
    const plan = planSandbox(sandbox, this.#reads(sandbox), now);
    switch (plan.phase) {
      case 'Deleting':
        return;
      case 'MarkExpired': {
        const next = { ...(sandbox.status ?? {}), conditions: plan.conditions };
        await this.#writeStatus(sandbox, next, ctx.signal);
        return { requeueAfterMs: plan.requeueAfterMs };
      }
      case 'Teardown':
        await this.#teardown(sandbox, plan.teardown, now, ctx);
        return;
      case 'Reconcile':
        return this.#reconcileChildren(sandbox, plan, now, ctx);
    }
  }

  #cache<T extends KubeObject>(ref: ResourceRef, namespace: string, name: string): T | undefined {
    return this.#informers.getInformer<T>(ref).cache.get(`${namespace}/${name}`);
  }

  #reads(sandbox: Sandbox): SandboxReads {
    const ns = sandbox.metadata.namespace ?? '';
    const name = sandbox.metadata.name ?? '';
    const pvcs = new Map<string, PersistentVolumeClaim>();
    for (const template of sandbox.spec.volumeClaimTemplates ?? []) {
      const pvc = this.#cache<Obj<PersistentVolumeClaim>>(
        PERSISTENT_VOLUME_CLAIMS,
        ns,
        pvcName(template, sandbox),
      );
      if (pvc !== undefined) pvcs.set(pvcName(template, sandbox), pvc);
    }
    return {
      pvcs,
      pods: this.#podObservation(sandbox),
      service: this.#cache<Obj<Service>>(SERVICES, ns, name),
    };
  }

  /** The tracking-label index and the Pod under the resolved pod name (§11.5 steps 1–2). */
  #podObservation(sandbox: Sandbox): PodObservation {
    const ns = sandbox.metadata.namespace ?? '';
    const indexedPods = this.#informers
      .getInformer<Obj<Pod>>(PODS)
      .cache.byIndex(POD_NAME_HASH_INDEX, `${ns}/${nameHash(sandbox.metadata.name ?? '')}`);
    return { indexedPods, fetchedPod: this.#cache<Obj<Pod>>(PODS, ns, resolvePodName(sandbox)) };
  }

  async #reconcileChildren(
    sandbox: Sandbox,
    plan: ReconcilePlan,
    now: Date,
    ctx: ReconcileContext,
  ): Promise<Result | void> {
    const outcome: PlanOutcome = { now };
    outcome.pvcError = await this.#executePvcs(sandbox, plan.pvcs, ctx.signal);

    let podPlan = plan.pod;
    try {
      const executed = await this.#executePod(sandbox, podPlan, ctx.signal);
      podPlan = executed.plan;
      outcome.pod = executed.pod;
    } catch (err: unknown) {
      outcome.podWriteError = asError(err);
    }
    if (plan.multiplePodsEvent !== undefined) {
      const failed = await recordSandboxEvent(
        this.#client,
        sandbox,
        {
          type: 'Warning',
          reason: 'MultiplePods',
          action: 'Reconciling',
          note: plan.multiplePodsEvent,
        },
        now,
      );
      if (failed !== undefined) ctx.logger.warn({ err: failed }, 'recording an event failed');
    }

    let serviceAct = plan.service;
    if (serviceAct !== undefined) {
      try {
        const executed = await this.#executeService(sandbox, serviceAct, ctx.signal);
        serviceAct = executed.action;
        outcome.service = executed.service;
      } catch (err: unknown) {
        outcome.serviceWriteError = asError(err);
      }
    }

    const executedPlan: ReconcilePlan = {
      ...plan,
      pod: podPlan,
      ...(serviceAct !== undefined ? { service: serviceAct } : {}),
    };
    const observed = observedChildren(sandbox, executedPlan, outcome);
    const computed = computeStatus(
      sandbox,
      observed,
      this.#clusterDomain !== undefined ? { clusterDomain: this.#clusterDomain } : {},
    );
    const { status, requeueAfterMs } = expiryAfterReconcile(sandbox, computed, now);
    const errors = returnedErrors(observed);
    try {
      await this.#writeStatus(sandbox, status, ctx.signal);
    } catch (err: unknown) {
      errors.push(asError(err));
    }
    throwJoined(errors);
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
  }

  /** PVCs in template order; stops at the first failed write (§11.4). */
  async #executePvcs(
    sandbox: Sandbox,
    actions: readonly PvcAction[],
    signal: AbortSignal,
  ): Promise<Error | undefined> {
    const ns = sandbox.metadata.namespace ?? '';
    for (let action of actions) {
      try {
        if (action.action === 'Create') {
          try {
            await this.#client.create(
              PERSISTENT_VOLUME_CLAIMS,
              action.pvc as Obj<PersistentVolumeClaim>,
              {
                fieldManager: SANDBOX_FIELD_OWNER,
                signal,
              },
            );
            continue;
          } catch (err: unknown) {
            if (!isAlreadyExists(err)) throw err;
            // The cache lagged: decide again on the live object.
            const name = action.pvc.metadata?.name ?? '';
            const live = await this.#client.get<Obj<PersistentVolumeClaim>>(
              PERSISTENT_VOLUME_CLAIMS,
              ns,
              name,
              { signal },
            );
            const again = pvcActions(sandbox, new Map([[name, live]])).find(
              (a) => a.action !== 'Create' && a.name === name,
            );
            if (again === undefined) continue;
            action = again;
          }
        }
        if (action.action === 'Error') return action.error;
        if (action.action === 'Adopt') {
          await this.#client.patch(
            PERSISTENT_VOLUME_CLAIMS,
            ns,
            action.name,
            { type: 'merge', body: { ...action.patch } },
            { fieldManager: SANDBOX_FIELD_OWNER, signal },
          );
        }
      } catch (err: unknown) {
        return asError(err);
      }
    }
    return undefined;
  }

  /** The Pod write, then the pod-name annotation; AlreadyExists re-plans on the live Pod. */
  async #executePod(
    sandbox: Sandbox,
    podPlan: PodPlan,
    signal: AbortSignal,
  ): Promise<{ plan: PodPlan; pod?: Pod }> {
    const ns = sandbox.metadata.namespace ?? '';
    let current = podPlan;
    let pod: Pod | undefined;
    const write = current.write;
    if (write.action === 'Create') {
      try {
        pod = await this.#client.create(PODS, write.pod as Obj<Pod>, {
          fieldManager: SANDBOX_FIELD_OWNER,
          signal,
        });
      } catch (err: unknown) {
        if (!isAlreadyExists(err)) throw err;
        const live = await this.#client.get<Obj<Pod>>(PODS, ns, write.pod.metadata?.name ?? '', {
          signal,
        });
        const { indexedPods } = this.#podObservation(sandbox);
        current = planPod(sandbox, { indexedPods, fetchedPod: live });
        if (current.write.action === 'Create') return { plan: current };
      }
    }
    if (current.write.action === 'Patch') {
      pod = await this.#client.patch<Obj<Pod>>(
        PODS,
        ns,
        current.write.name,
        { type: 'merge', body: { ...current.write.patch } },
        { fieldManager: SANDBOX_FIELD_OWNER, signal },
      );
    } else if (current.write.action === 'Delete') {
      const uid = current.pod?.metadata?.uid;
      await this.#delete(PODS, ns, current.write.name, uid, signal);
    }
    if (current.podNameAnnotation !== undefined) {
      await this.#client.patch(
        SANDBOXES,
        ns,
        sandbox.metadata.name ?? '',
        { type: 'merge', body: podNameAnnotationPatch(current.podNameAnnotation) },
        { fieldManager: SANDBOX_FIELD_OWNER, signal },
      );
    }
    return pod === undefined ? { plan: current } : { plan: current, pod };
  }

  /** The Service decision; AlreadyExists on create decides once more on the live Service. */
  async #executeService(
    sandbox: Sandbox,
    action: ServiceAction,
    signal: AbortSignal,
  ): Promise<{ action: ServiceAction; service?: Service }> {
    const ns = sandbox.metadata.namespace ?? '';
    const opts = { fieldManager: SANDBOX_FIELD_OWNER, signal };
    let current = action;
    if (current.action === 'Create') {
      try {
        const created = await this.#client.create(SERVICES, current.service as Obj<Service>, opts);
        return { action: current, service: created };
      } catch (err: unknown) {
        if (!isAlreadyExists(err)) throw err;
        const live = await this.#client.get<Obj<Service>>(
          SERVICES,
          ns,
          sandbox.metadata.name ?? '',
          {
            signal,
          },
        );
        current = serviceAction(sandbox, live);
        if (current.action === 'Create') return { action: current };
      }
    }
    switch (current.action) {
      case 'Patch': {
        const name = current.inUse.metadata?.name ?? '';
        const body = { ...current.patch };
        const service = await this.#client.patch<Obj<Service>>(
          SERVICES,
          ns,
          name,
          { type: 'merge', body },
          opts,
        );
        return { action: current, service };
      }
      case 'Update': {
        const service = await this.#client.update(SERVICES, current.service as Obj<Service>, opts);
        return { action: current, service };
      }
      case 'Delete': {
        const uid = this.#cache<Obj<Service>>(SERVICES, ns, current.name)?.metadata.uid;
        await this.#delete(SERVICES, ns, current.name, uid, signal);
        return { action: current };
      }
      default:
        return { action: current };
    }
  }

  /** Second expiry pass (§11.7): delete owned children, then the Sandbox or reset the status. */
  async #teardown(
    sandbox: Sandbox,
    teardown: ExpiryTeardown,
    now: Date,
    ctx: ReconcileContext,
  ): Promise<void> {
    const ns = sandbox.metadata.namespace ?? '';
    const errors: Error[] = [];
    const attempt = async (fn: () => Promise<void>): Promise<void> => {
      try {
        await fn();
      } catch (err: unknown) {
        errors.push(asError(err));
      }
    };
    if (teardown.deletePod !== undefined) {
      const name = teardown.deletePod;
      const uid = this.#cache<Obj<Pod>>(PODS, ns, name)?.metadata.uid;
      await attempt(() => this.#delete(PODS, ns, name, uid, ctx.signal));
    }
    if (teardown.deleteService !== undefined) {
      const name = teardown.deleteService;
      const uid = this.#cache<Obj<Service>>(SERVICES, ns, name)?.metadata.uid;
      await attempt(() => this.#delete(SERVICES, ns, name, uid, ctx.signal));
    }
    if (teardown.deleteSandbox && errors.length === 0) {
      const name = sandbox.metadata.name ?? '';
      await attempt(() => this.#delete(SANDBOXES, ns, name, sandbox.metadata.uid, ctx.signal));
      throwJoined(errors);
      return; // deleted: no status write
    }
    if (errors.length === 0) {
      await attempt(() => this.#writeStatus(sandbox, expiredStatus(sandbox, now), ctx.signal));
    }
    throwJoined(errors);
  }

  /** Delete with a UID precondition; NotFound means done. */
  async #delete(
    ref: ResourceRef,
    namespace: string,
    name: string,
    uid: string | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await this.#client.delete(ref, namespace, name, {
        ...(uid !== undefined ? { preconditions: { uid } } : {}),
        signal,
      });
    } catch (err: unknown) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** §11.8: skip when unchanged; else an unlocked merge patch of `status`; NotFound ignored. */
  async #writeStatus(sandbox: Sandbox, next: SandboxStatus, signal: AbortSignal): Promise<void> {
    if (!isStatusWriteNeeded(sandbox.status, next)) return;
    try {
      await this.#client.patch(
        SANDBOXES,
        sandbox.metadata.namespace ?? '',
        sandbox.metadata.name ?? '',
        { type: 'merge', body: statusMergePatch(sandbox.status, next) },
        { subresource: 'status', fieldManager: SANDBOX_FIELD_OWNER, signal },
      );
    } catch (err: unknown) {
      if (!isNotFound(err)) throw err;
    }
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** Throws nothing for no errors, the error itself for one, a joined ReconcileFailed for more. */
function throwJoined(errors: readonly Error[]): void {
  if (errors.length === 0) return;
  if (errors.length === 1) throw errors[0];
  throw new ControllersError('ReconcileFailed', errors.map((e) => e.message).join('; '), {
    cause: new AggregateError(errors),
  });
}
