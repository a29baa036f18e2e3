// The controllers kube-controller-manager would run that the API semantics depend on (semantics
// doc §9): without a garbage collector, Foreground and Orphan deletes hang forever, and without a
// namespace controller no namespace ever goes away. The embedded server runs them on its own
// revision log; start() after the CRD controller has installed the stored CRDs.
import type { ServerParts } from '../http/context.ts';
import type { ControllerOptions } from './controller-options.ts';
import { GarbageCollector } from './garbage-collector.ts';
import { NamespaceController } from './namespace-controller.ts';

export class InServerControllers {
  readonly garbageCollector: GarbageCollector;
  readonly namespaces: NamespaceController;

  constructor(parts: ServerParts, options: ControllerOptions = {}) {
    this.garbageCollector = new GarbageCollector(parts, options);
    this.namespaces = new NamespaceController(parts, options);
  }

  /** Rebuilds each controller's state from the log and starts following it. */
  start(): void {
    this.garbageCollector.start();
    this.namespaces.start();
  }

  /** Idempotent; afterwards no controller timer or watch keeps the process alive. */
  stop(): void {
    this.namespaces.stop();
    this.garbageCollector.stop();
  }

  /** Resolves when neither controller has queued work. */
  async idle(): Promise<void> {
    await Promise.all([this.garbageCollector.idle(), this.namespaces.idle()]);
  }
}
