// The endpointslice and endpoints controllers (kube-controller-manager's), in the server on the
// revision log: for each Service with a selector they publish its ready, serving and terminating
// Pods as EndpointSlices (discovery.k8s.io/v1) and as the core Endpoints object of the same name.
// One queue keyed `<namespace>/<service>`; a Pod's change wakes every Service of its namespace,
// a managed object's change wakes its Service (so edits and deletions are repaired).
import type { ServerParts } from '../../http/context.ts';
import type { KubeObject } from '../../objects.ts';
import { keyPrefix, objectKey } from '../../resource-store.ts';
import type { ResourceInfo } from '../../resources/resource.ts';
import type { WatchEvent } from '../../storage/store.ts';
import { reportToStderr, type ControllerOptions } from '../controller-options.ts';
import { LogDrivenLoop } from '../log-driven-loop.ts';
import { parseKey, parseObject, readStored, resourceAt, writeStored } from '../stored-objects.ts';
import {
  managedSelector,
  MANAGED_BY_LABEL,
  podEndpoints,
  publishedLabels,
  SERVICE_NAME_LABEL,
  SLICE_CONTROLLER,
  TRIGGER_TIME_ANNOTATION,
  TriggerTimeTracker,
} from './desired.ts';
import { endpointSubsets, serviceOwner, sliceContents, type SliceContent } from './shapes.ts';
import { createObject, deleteObject } from './writer.ts';

const NAME = 'endpoint-controllers';
/** The label kube's endpoints controller puts on the Endpoints it manages. */
const ENDPOINTS_MANAGED_BY = 'endpoints.kubernetes.io/managed-by';
const ENDPOINTS_CONTROLLER = 'endpoint-controller';

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

export class EndpointControllers {
  readonly #parts: ServerParts;
  readonly #onError: NonNullable<ControllerOptions['onError']>;
  /** Service names per namespace, for waking them on Pod changes. */
  readonly #services = new Map<string, Set<string>>();
  readonly #slicesTracker = new TriggerTimeTracker();
  readonly #endpointsTracker = new TriggerTimeTracker();
  readonly #loop: LogDrivenLoop;

  constructor(parts: ServerParts, options: ControllerOptions = {}) {
    this.#parts = parts;
    this.#onError = options.onError ?? reportToStderr;
    this.#loop = new LogDrivenLoop(parts.store, {
      name: NAME,
      observe: (e) => this.#observe(e),
      reconcile: (key) => this.#reconcile(key),
      reset: () => this.#services.clear(),
      onError: this.#onError,
      follow: { watchPrefix: '/registry/', listPrefix: '/registry/core/services/' },
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
    if (!loc || loc.namespace === undefined) return;
    const ns = loc.namespace;
    if (loc.group === '' && loc.plural === 'services') {
      const names = this.#services.get(ns) ?? new Set<string>();
      if (e.type === 'DELETED') names.delete(loc.name);
      else names.add(loc.name);
      this.#services.set(ns, names);
      this.#loop.enqueue(`${ns}/${loc.name}`);
    } else if (loc.group === '' && loc.plural === 'pods') {
      for (const svc of this.#services.get(ns) ?? []) this.#loop.enqueue(`${ns}/${svc}`);
    } else if (loc.group === '' && loc.plural === 'endpoints') {
      this.#loop.enqueue(`${ns}/${loc.name}`);
    } else if (loc.group === 'discovery.k8s.io' && loc.plural === 'endpointslices') {
      const labels = parseObject(e.value)?.metadata.labels ?? {};
      const svc = labels[SERVICE_NAME_LABEL];
      if (svc !== undefined && labels[MANAGED_BY_LABEL] === SLICE_CONTROLLER)
        this.#loop.enqueue(`${ns}/${svc}`);
    }
  }

  #resource(group: string, plural: string): ResourceInfo {
    const r = resourceAt(this.#parts.registry, { group, plural });
    if (!r) throw new Error(`${plural}.${group} is not served`);
    return r;
  }

  #list(prefix: string): KubeObject[] {
    return this.#parts.store
      .list(prefix)
      .items.map((i) => parseObject(i.value))
      .filter((o): o is KubeObject => o !== undefined);
  }

  #reconcile(key: string): void {
    const [ns = '', name = ''] = key.split('/');
    const services = this.#resource('', 'services');
    const svc = readStored(this.#parts.store, objectKey(services, ns, name))?.obj;
    const live = svc && svc.metadata.deletionTimestamp === undefined ? svc : undefined;
    const pods =
      live && managedSelector(live) ? this.#list(keyPrefix(this.#resource('', 'pods'), ns)) : [];
    const endpoints = live ? podEndpoints(live, pods) : [];
    if (!live) {
      this.#slicesTracker.forget(key);
      this.#endpointsTracker.forget(key);
    }
    // Each kube controller tracks what it has published on its own.
    this.#syncSlices(
      ns,
      name,
      live,
      endpoints,
      live && this.#slicesTracker.compute(key, live, pods),
    );
    this.#syncEndpoints(
      ns,
      name,
      live,
      endpoints,
      live && this.#endpointsTracker.compute(key, live, pods),
    );
  }

  #syncSlices(
    ns: string,
    name: string,
    svc: KubeObject | undefined,
    endpoints: ReturnType<typeof podEndpoints>,
    time: string | undefined,
  ): void {
    const r = this.#resource('discovery.k8s.io', 'endpointslices');
    const labelled = this.#list(keyPrefix(r, ns)).filter((s) => {
      const labels = s.metadata.labels ?? {};
      return labels[SERVICE_NAME_LABEL] === name && labels[MANAGED_BY_LABEL] === SLICE_CONTROLLER;
    });
    // Slices of an earlier Service of the same name are not reused: they go.
    const owned = (s: KubeObject) =>
      svc !== undefined &&
      (s.metadata.ownerReferences ?? []).some((o) => o.uid === svc.metadata.uid);
    const existing = labelled.filter(owned);
    const stale = labelled.filter((s) => !owned(s));
    const wanted = svc && managedSelector(svc) ? sliceContents(endpoints) : [];
    const labels = svc
      ? publishedLabels(svc, { [MANAGED_BY_LABEL]: SLICE_CONTROLLER, [SERVICE_NAME_LABEL]: name })
      : {};
    // Slices already holding a wanted content stay as they are; the rest are rewritten in place,
    // then created or deleted to match the count.
    const unmatched = existing.filter((s) => {
      const i = wanted.findIndex(
        (w) => same(w.endpoints, s['endpoints']) && same(w.ports, s['ports']),
      );
      if (i < 0) return true;
      wanted.splice(i, 1);
      return false;
    });
    const write = (slice: KubeObject, content: SliceContent): boolean => {
      const changed =
        !same(slice['endpoints'], content.endpoints) || !same(slice['ports'], content.ports);
      if (!changed && same(slice.metadata.labels, labels)) return false;
      // Null lists are not stored (they are no fields to own); reads show them as null.
      for (const k of ['endpoints', 'ports'] as const) {
        if (content[k] === null) delete slice[k];
        else slice[k] = content[k];
      }
      slice.metadata.labels = { ...labels };
      if (time !== undefined)
        slice.metadata.annotations = {
          ...slice.metadata.annotations,
          [TRIGGER_TIME_ANNOTATION]: time,
        };
      if (changed) slice.metadata.generation = (slice.metadata.generation ?? 1) + 1;
      return true;
    };
    for (const content of wanted) {
      const reuse = unmatched.shift();
      if (reuse) {
        const key = objectKey(r, ns, reuse.metadata.name ?? '');
        writeStored(this.#parts.store, r, key, reuse.metadata.uid, (s) => write(s, content));
      } else if (svc) {
        createObject(this.#parts, r, ns, {
          metadata: {
            generateName: `${name}-`,
            labels: { ...labels },
            ...(time !== undefined ? { annotations: { [TRIGGER_TIME_ANNOTATION]: time } } : {}),
            ownerReferences: [serviceOwner(svc)],
          },
          addressType: 'IPv4',
          ...(content.endpoints ? { endpoints: content.endpoints } : {}),
          ...(content.ports ? { ports: content.ports } : {}),
        });
      }
    }
    for (const s of [...unmatched, ...stale])
      deleteObject(this.#parts, r, ns, s.metadata.name ?? '');
  }

  #syncEndpoints(
    ns: string,
    name: string,
    svc: KubeObject | undefined,
    endpoints: ReturnType<typeof podEndpoints>,
    time: string | undefined,
  ): void {
    const r = this.#resource('', 'endpoints');
    const key = objectKey(r, ns, name);
    const current = readStored(this.#parts.store, key)?.obj;
    if (!svc) {
      // Like kube's endpoints controller: the Service is gone, so is its Endpoints object.
      if (current) deleteObject(this.#parts, r, ns, name);
      return;
    }
    // Services without a selector have user-managed Endpoints.
    if (!managedSelector(svc)) return;
    const subsets = endpointSubsets(endpoints);
    const labels = publishedLabels(svc, { [ENDPOINTS_MANAGED_BY]: ENDPOINTS_CONTROLLER });
    const annotations = time !== undefined ? { [TRIGGER_TIME_ANNOTATION]: time } : undefined;
    if (!current) {
      createObject(this.#parts, r, ns, {
        metadata: { name, labels, ...(annotations ? { annotations } : {}) },
        ...(subsets ? { subsets } : {}),
      });
      return;
    }
    writeStored(this.#parts.store, r, key, current.metadata.uid, (ep) => {
      if (same(ep['subsets'], subsets) && same(ep.metadata.labels, labels)) return false;
      if (subsets) ep['subsets'] = subsets;
      else delete ep['subsets'];
      ep.metadata.labels = labels;
      if (annotations) ep.metadata.annotations = { ...ep.metadata.annotations, ...annotations };
      return true;
    });
  }
}
