// A controller that keeps one object in every active namespace, after kube-controller-manager's
// root-ca-cert-publisher (the `kube-root-ca.crt` ConfigMap) and serviceaccounts controller (the
// `default` ServiceAccount): created when a namespace appears or the object is deleted, repaired
// when edited (when the object says how), never written into a terminating namespace.
import { updateManagedFields } from '../patch/index.ts';
import type { ServerParts } from '../http/context.ts';
import { mergeSchemaFor } from '../http/managed-fields.ts';
import { formatTime, type KubeObject } from '../objects.ts';
import { encode, objectKey } from '../resource-store.ts';
import { groupVersion } from '../resources/resource.ts';
import { isStorageError } from '../storage/errors.ts';
import type { WatchEvent } from '../storage/store.ts';
import { reportToStderr, type ControllerOptions } from './controller-options.ts';
import { LogDrivenLoop } from './log-driven-loop.ts';
import {
  CONTROLLER_MANAGER,
  parseKey,
  readStored,
  resourceAt,
  writeStored,
} from './stored-objects.ts';

export interface PublishedObject {
  /** The controller's name in error reports. */
  controller: string;
  /** Where the object lives: a core namespaced resource. */
  plural: string;
  name: string;
  /** The object's content beyond kind, apiVersion and server-set metadata. */
  build(namespace: string): KubeObject;
  /** Brings an existing object back to what it must hold; false when nothing changed. */
  repair?(obj: KubeObject): boolean;
  /** Whether the create is recorded in managedFields (kube's SA controller's is not). */
  trackCreate: boolean;
}

const NAMESPACES = '/registry/core/namespaces/';

export class NamespacePublisher {
  readonly #parts: ServerParts;
  readonly #what: PublishedObject;
  readonly #onError: NonNullable<ControllerOptions['onError']>;
  readonly #loop: LogDrivenLoop;

  constructor(parts: ServerParts, what: PublishedObject, options: ControllerOptions = {}) {
    this.#parts = parts;
    this.#what = what;
    this.#onError = options.onError ?? reportToStderr;
    this.#loop = new LogDrivenLoop(parts.store, {
      name: what.controller,
      observe: (e) => this.#observe(e),
      reconcile: (key) => this.#reconcile(key),
      onError: this.#onError,
      follow: { watchPrefix: '/registry/core/', listPrefix: NAMESPACES },
    });
  }

  start(): void {
    this.#loop.start();
  }

  stop(): void {
    this.#loop.stop();
  }

  idle(): Promise<void> {
    return this.#loop.idle();
  }

  #observe(e: WatchEvent): void {
    const loc = parseKey(e.key);
    if (!loc || loc.group !== '') return;
    if (loc.plural === 'namespaces' && loc.namespace === undefined) {
      if (e.type !== 'DELETED') this.#loop.enqueue(loc.name);
    } else if (
      loc.plural === this.#what.plural &&
      loc.name === this.#what.name &&
      loc.namespace !== undefined
    ) {
      this.#loop.enqueue(loc.namespace);
    }
  }

  #reconcile(namespace: string): void {
    const { store, registry, ctx } = this.#parts;
    const ns = readStored(store, `${NAMESPACES}${namespace}`);
    if (!ns || ns.obj.metadata.deletionTimestamp !== undefined) return;
    const r = resourceAt(registry, { group: '', plural: this.#what.plural });
    if (!r) return;
    const key = objectKey(r, namespace, this.#what.name);
    const current = readStored(store, key);
    if (current) {
      const repair = this.#what.repair;
      if (repair) writeStored(store, r, key, current.obj.metadata.uid, (obj) => repair(obj));
      return;
    }
    let obj: KubeObject = {
      ...this.#what.build(namespace),
      kind: r.kind,
      apiVersion: groupVersion(r.group, r.storageVersion),
    };
    obj.metadata = {
      ...obj.metadata,
      name: this.#what.name,
      namespace,
      uid: ctx.uid(),
      creationTimestamp: formatTime(ctx.now()),
    };
    if (this.#what.trackCreate)
      obj = updateManagedFields(undefined, obj, {
        manager: CONTROLLER_MANAGER,
        apiVersion: groupVersion(r.group, r.storageVersion),
        schema: mergeSchemaFor(r, r.storageVersion),
        now: formatTime(ctx.now()),
      }).object as KubeObject;
    try {
      store.create(key, encode(obj));
    } catch (err: unknown) {
      // Someone created it first; its ADDED event brings us back to check its content.
      if (!isStorageError(err, 'KeyExists')) throw err;
    }
  }
}

/** kube-controller-manager's description annotation on kube-root-ca.crt. */
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';

/** The `kube-root-ca.crt` ConfigMap holding `caCert` (root-ca-cert-publisher). */
export function rootCaConfigMap(caCert: string): PublishedObject {
  const data = { 'ca.crt': caCert };
  return {
    controller: 'root-ca-cert-publisher',
    plural: 'configmaps',
    name: 'kube-root-ca.crt',
    trackCreate: true,
    build: () => ({
      metadata: { annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
      data: { ...data },
    }),
    repair: (cm) => {
      const annotations = cm.metadata.annotations ?? {};
      if (
        JSON.stringify(cm['data']) === JSON.stringify(data) &&
        (annotations[DESCRIPTION_ANNOTATION] ?? '') !== ''
      )
        return false;
      cm['data'] = { ...data };
      cm.metadata.annotations = { ...annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION };
      return true;
    },
  };
}

/** The `default` ServiceAccount (the serviceaccounts controller); recreated, never edited. */
export const DEFAULT_SERVICE_ACCOUNT: PublishedObject = {
  controller: 'serviceaccount-controller',
  plural: 'serviceaccounts',
  name: 'default',
  trackCreate: false,
  build: () => ({ metadata: {} }),
};
