// The controllers kube-controller-manager would run that the API semantics depend on (semantics
// doc §9): without a garbage collector, Foreground and Orphan deletes hang forever, and without a
// namespace controller no namespace ever goes away; workloads also expect the default
// ServiceAccount, kube-root-ca.crt and their Services' endpoints. The embedded server runs them on
// its own revision log; start() after the CRD controller has installed the stored CRDs.
import type { ServerParts } from '../http/context.ts';
import { ClusterRoleAggregation } from './clusterrole-aggregation.ts';
import type { ControllerOptions } from './controller-options.ts';
import { EndpointControllers } from './endpoints/endpoint-controllers.ts';
import { GarbageCollector } from './garbage-collector.ts';
import { NamespaceController } from './namespace-controller.ts';
import {
  DEFAULT_SERVICE_ACCOUNT,
  NamespacePublisher,
  rootCaConfigMap,
} from './namespace-publisher.ts';

export interface InServerControllerOptions extends ControllerOptions {
  /** PEM CA certificate to publish as kube-root-ca.crt; without it no ConfigMap is published. */
  caCert?: string;
}

export class InServerControllers {
  readonly garbageCollector: GarbageCollector;
  readonly namespaces: NamespaceController;
  /** The default ServiceAccount and (with a CA) kube-root-ca.crt in every namespace. */
  readonly publishers: NamespacePublisher[];
  /** EndpointSlices and Endpoints of Services with selectors. */
  readonly endpoints: EndpointControllers;
  /** The rules of aggregated ClusterRoles (admin, edit, view). */
  readonly aggregation: ClusterRoleAggregation;

  constructor(parts: ServerParts, options: InServerControllerOptions = {}) {
    this.garbageCollector = new GarbageCollector(parts, options);
    this.namespaces = new NamespaceController(parts, options);
    this.publishers = [new NamespacePublisher(parts, DEFAULT_SERVICE_ACCOUNT, options)];
    this.endpoints = new EndpointControllers(parts, options);
    this.aggregation = new ClusterRoleAggregation(parts, options);
    if (options.caCert !== undefined)
      this.publishers.push(new NamespacePublisher(parts, rootCaConfigMap(options.caCert), options));
  }

  /** Rebuilds each controller's state from the log and starts following it. */
  start(): void {
    this.garbageCollector.start();
    this.namespaces.start();
    for (const p of this.publishers) p.start();
    this.endpoints.start();
    this.aggregation.start();
  }

  /** Idempotent; afterwards no controller timer or watch keeps the process alive. */
  stop(): void {
    this.aggregation.stop();
    this.endpoints.stop();
    for (const p of this.publishers) p.stop();
    this.namespaces.stop();
    this.garbageCollector.stop();
  }

  /** Resolves when neither controller has queued work. */
  async idle(): Promise<void> {
    await Promise.all([
      this.garbageCollector.idle(),
      this.namespaces.idle(),
      ...this.publishers.map((p) => p.idle()),
      this.endpoints.idle(),
      this.aggregation.idle(),
    ]);
  }
}
