// @agent-sandbox/runtime: the controller framework (ADR 0008).
export {
  Controller,
  ownerRequests,
  type ControllerOptions,
  type ControllerRunOptions,
  type InformerSource,
  type EventFilter,
  type MappedWatch,
  type OwnedWatch,
  TRACER_NAME,
} from './controller.ts';
export {
  Manager,
  informerKey,
  type ManagerOptions,
  type LeaderElectionOptions,
} from './manager.ts';
export { LeaderElector, type LeaderElectorOptions } from './leader-election.ts';
export { WorkQueue, type WorkQueueOptions, type WorkQueueMetrics } from './work-queue.ts';
export {
  ExponentialFailureRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  type RateLimiter,
  type ExponentialRateLimiterOptions,
} from './rate-limiter.ts';
export type { Reconciler, Request, Result, ReconcileContext } from './reconciler.ts';
export { RuntimeError, TerminalError, isTerminalError, type RuntimeErrorCode } from './errors.ts';
export { RuntimeMetrics, type ReconcileResult } from './metrics.ts';
export { parseBindAddress, type Check } from './http-server.ts';
export { setupSignalHandler } from './signals.ts';
