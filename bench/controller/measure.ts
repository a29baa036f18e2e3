// What one phase costs, from before/after snapshots: kube-apiserver's write requests by resource,
// our controller's reconciles and client requests, and CPU seconds per process.
import { cpuSnapshot, cpuUsed, type CpuSnapshot } from './proc.ts';
import { delta, parseSamples, sumBy, total, type Sample } from './prom.ts';

/** The verbs of apiserver_request_total that change stored state. */
export const WRITE_VERBS = ['POST', 'PUT', 'PATCH', 'DELETE', 'DELETECOLLECTION', 'APPLY'];

export interface Snapshot {
  at: number;
  apiserver: Sample[];
  controller: Sample[];
  cpu: CpuSnapshot;
}

export function snapshot(
  apiserverText: string,
  controllerText: string,
  pids: Readonly<Record<string, number>>,
): Snapshot {
  return {
    at: performance.now(),
    apiserver: parseSamples(apiserverText, [
      'apiserver_request_total',
      'apiserver_terminated_watchers_total',
    ]),
    controller: parseSamples(controllerText, [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_time_seconds_sum',
      'controller_runtime_reconcile_time_seconds_count',
      'rest_client_requests_total',
      'workqueue_retries_total',
      'workqueue_depth',
      'workqueue_queue_duration_seconds_sum',
      'workqueue_queue_duration_seconds_count',
      'rest_client_request_duration_seconds_sum',
      'rest_client_request_duration_seconds_count',
      'rest_client_rate_limiter_duration_seconds_sum',
    ]),
    cpu: cpuSnapshot(pids),
  };
}

export interface PhaseCost {
  seconds: number;
  /** kube-apiserver write requests (all clients), by `resource[/subresource]`. */
  apiWrites: Record<string, number>;
  apiWritesTotal: number;
  /** Of those, answered 409 Conflict or AlreadyExists. */
  apiWrites409: number;
  /** Watches kube-apiserver closed because the client read too slowly, by resource. */
  terminatedWatchers: Record<string, number>;
  /** Our controller's reconciles by result (success, error, requeue, requeue_after). */
  reconciles?: Record<string, number>;
  reconcilesTotal?: number;
  reconcileMeanMs?: number;
  workqueueRetries?: number;
  /** Mean time a key waited in the sandbox work queue before a worker took it. */
  queueWaitMeanMs?: number;
  /** Mean latency of the controller's API requests, as its client saw them. */
  requestMeanMs?: number;
  /** Seconds the controller's requests waited in its client-side rate limiter, summed. */
  rateLimiterWaitSeconds?: number;
  /** Our controller's own requests, by HTTP method (its rest_client_requests_total). */
  controllerRequests?: Record<string, number>;
  cpuSeconds: CpuSnapshot;
}

const obj = (m: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...m].sort((a, b) => b[1] - a[1]));

export function phaseCost(before: Snapshot, after: Snapshot, withController: boolean): PhaseCost {
  const isWrite = (l: Record<string, string>): boolean => WRITE_VERBS.includes(l.verb ?? '');
  const writes = (s: Sample[]): Map<string, number> =>
    sumBy(s, 'apiserver_request_total', ['resource', 'subresource'], isWrite);
  const conflicts = (s: Sample[]): number =>
    total(sumBy(s, 'apiserver_request_total', [], (l) => isWrite(l) && l.code === '409'));
  const apiWrites = new Map(
    [...delta(writes(before.apiserver), writes(after.apiserver))].map(([k, v]) => [
      k.replace(/\/$/, ''),
      v,
    ]),
  );
  const cost: PhaseCost = {
    seconds: Math.round(after.at - before.at) / 1000,
    apiWrites: obj(apiWrites),
    apiWritesTotal: total(apiWrites),
    apiWrites409: conflicts(after.apiserver) - conflicts(before.apiserver),
    terminatedWatchers: obj(
      delta(
        sumBy(before.apiserver, 'apiserver_terminated_watchers_total', ['resource']),
        sumBy(after.apiserver, 'apiserver_terminated_watchers_total', ['resource']),
      ),
    ),
    cpuSeconds: cpuUsed(before.cpu, after.cpu),
  };
  if (!withController) return cost;
  const sandbox = (l: Record<string, string>): boolean => (l.controller ?? l.name) === 'sandbox';
  const ctl = (name: string, by: string[]): Map<string, number> =>
    delta(sumBy(before.controller, name, by, sandbox), sumBy(after.controller, name, by, sandbox));
  const reconciles = ctl('controller_runtime_reconcile_total', ['result']);
  const timeSum = total(ctl('controller_runtime_reconcile_time_seconds_sum', []));
  const timeCount = total(ctl('controller_runtime_reconcile_time_seconds_count', []));
  const requests = delta(
    sumBy(before.controller, 'rest_client_requests_total', ['method']),
    sumBy(after.controller, 'rest_client_requests_total', ['method']),
  );
  cost.reconciles = obj(reconciles);
  cost.reconcilesTotal = total(reconciles);
  if (timeCount > 0) cost.reconcileMeanMs = Math.round((timeSum / timeCount) * 1e5) / 100;
  cost.workqueueRetries = total(ctl('workqueue_retries_total', []));
  cost.controllerRequests = obj(requests);
  const all = (name: string): number =>
    total(sumBy(after.controller, name, [])) - total(sumBy(before.controller, name, []));
  const mean = (sum: number, count: number): number | undefined =>
    count > 0 ? Math.round((sum / count) * 1e5) / 100 : undefined;
  const queueWait = mean(
    total(ctl('workqueue_queue_duration_seconds_sum', [])),
    total(ctl('workqueue_queue_duration_seconds_count', [])),
  );
  if (queueWait !== undefined) cost.queueWaitMeanMs = queueWait;
  const requestMean = mean(
    all('rest_client_request_duration_seconds_sum'),
    all('rest_client_request_duration_seconds_count'),
  );
  if (requestMean !== undefined) cost.requestMeanMs = requestMean;
  cost.rateLimiterWaitSeconds =
    Math.round(all('rest_client_rate_limiter_duration_seconds_sum') * 1000) / 1000;
  return cost;
}

/** Sum of reconciles of the sandbox controller so far, and its queue depth (for settling). */
export function reconcileProgress(controllerText: string): { total: number; depth: number } {
  const s = parseSamples(controllerText, ['controller_runtime_reconcile_total', 'workqueue_depth']);
  const sandbox = (l: Record<string, string>): boolean => (l.controller ?? l.name) === 'sandbox';
  return {
    total: total(sumBy(s, 'controller_runtime_reconcile_total', [], sandbox)),
    depth: total(sumBy(s, 'workqueue_depth', [], sandbox)),
  };
}
