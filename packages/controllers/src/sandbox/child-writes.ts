// The Sandbox reconciler's reads (the manager's informer caches) and child writes (spec §11.4–11.6):
// PVC creates and adoptions, the Pod write and pod-name annotation, the Service decision. A create
// that hits AlreadyExists (the cache lagged) decides again on the live object.
import { Annotations, nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import {
  InvalidArgumentError,
  PERSISTENT_VOLUME_CLAIMS,
  PODS,
  SERVICES,
  isAlreadyExists,
  isNotFound,
  type KubeClient,
  type ResourceRef,
} from '@agent-sandbox/kube';
import type { KubeObject, PersistentVolumeClaim, Pod, Service } from '@agent-sandbox/kube-types';
import type { InformerSource } from '@agent-sandbox/runtime';
import { SANDBOX_FIELD_OWNER } from './desired-pod.ts';
import { pvcActions, pvcName, type PvcAction } from './desired-pvcs.ts';
import { serviceAction, type ServiceAction } from './desired-service.ts';
import { resolvePodName } from './ownership.ts';
import type { SandboxReads } from './plan.ts';
import { planPod, podNameAnnotationPatch, type PodObservation, type PodPlan } from './pod-plan.ts';

type Sandbox = v1beta1.Sandbox & KubeObject;
type Obj<T> = T & KubeObject;

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

export class SandboxChildren {
  readonly #client: KubeClient;
  readonly #informers: InformerSource;

  constructor(client: KubeClient, informers: InformerSource) {
    this.#client = client;
    this.#informers = informers;
    const pods = informers.getInformer<Obj<Pod>>(PODS);
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

  cached<T extends KubeObject>(ref: ResourceRef, namespace: string, name: string): T | undefined {
    return this.#informers.getInformer<T>(ref).cache.get(`${namespace}/${name}`);
  }

  reads(sandbox: Sandbox): SandboxReads {
    const ns = sandbox.metadata.namespace ?? '';
    const name = sandbox.metadata.name ?? '';
    const pvcs = new Map<string, PersistentVolumeClaim>();
    for (const template of sandbox.spec.volumeClaimTemplates ?? []) {
      const pvc = this.cached<Obj<PersistentVolumeClaim>>(
        PERSISTENT_VOLUME_CLAIMS,
        ns,
        pvcName(template, sandbox),
      );
      if (pvc !== undefined) pvcs.set(pvcName(template, sandbox), pvc);
    }
    return {
      pvcs,
      pods: this.podObservation(sandbox),
      service: this.cached<Obj<Service>>(SERVICES, ns, name),
    };
  }

  /** The tracking-label index and the Pod under the resolved pod name (§11.5 steps 1–2). */
  podObservation(sandbox: Sandbox): PodObservation {
    const ns = sandbox.metadata.namespace ?? '';
    const indexedPods = this.#informers
      .getInformer<Obj<Pod>>(PODS)
      .cache.byIndex(POD_NAME_HASH_INDEX, `${ns}/${nameHash(sandbox.metadata.name ?? '')}`);
    return { indexedPods, fetchedPod: this.cached<Obj<Pod>>(PODS, ns, resolvePodName(sandbox)) };
  }

  /**
   * reads(), except that a Pod named by the pod-name annotation and missing from the cache is
   * looked up on the API server before the pass treats it as gone (and drops the annotation): the
   * Pod cache can lag the Sandbox cache, e.g. for a warm Pod created just before the Sandbox.
   */
  async readsConfirmed(sandbox: Sandbox, signal: AbortSignal): Promise<SandboxReads> {
    const reads = this.reads(sandbox);
    const pods = reads.pods;
    const annotated = sandbox.metadata.annotations?.[Annotations.PodName];
    if ('readError' in pods || pods.fetchedPod !== undefined || !annotated) return reads;
    try {
      const live = await this.#client.get<Obj<Pod>>(PODS, sandbox.metadata.namespace, annotated, {
        signal,
      });
      return { ...reads, pods: { ...pods, fetchedPod: live } };
    } catch (err: unknown) {
      if (isNotFound(err)) return reads;
      return { ...reads, pods: { readError: asError(err) } };
    }
  }

  /** PVCs in template order; stops at the first failed write (§11.4). */
  async pvcs(
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

  /**
   * The Pod write, then the pod-name annotation; AlreadyExists re-plans on the live Pod.
   * `sandboxVersion` is the resourceVersion the annotation patch produced, if it was sent.
   */
  async pod(
    sandbox: Sandbox,
    podPlan: PodPlan,
    signal: AbortSignal,
  ): Promise<{ plan: PodPlan; pod?: Pod; sandboxVersion?: string }> {
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
        const { indexedPods } = this.podObservation(sandbox);
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
      await this.delete(PODS, ns, current.write.name, uid, signal);
    }
    let sandboxVersion: string | undefined;
    if (current.podNameAnnotation !== undefined) {
      const patched = await this.#client.patch<Sandbox>(
        SANDBOXES,
        ns,
        sandbox.metadata.name ?? '',
        { type: 'merge', body: podNameAnnotationPatch(current.podNameAnnotation) },
        { fieldManager: SANDBOX_FIELD_OWNER, signal },
      );
      sandboxVersion = patched.metadata.resourceVersion;
    }
    return {
      plan: current,
      ...(pod !== undefined ? { pod } : {}),
      ...(sandboxVersion !== undefined ? { sandboxVersion } : {}),
    };
  }

  /** The Service decision; AlreadyExists on create decides once more on the live Service. */
  async service(
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
        const uid = this.cached<Obj<Service>>(SERVICES, ns, current.name)?.metadata.uid;
        await this.delete(SERVICES, ns, current.name, uid, signal);
        return { action: current };
      }
      default:
        return { action: current };
    }
  }

  /** Delete with a UID precondition; NotFound means done. */
  async delete(
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
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
