// Where one warm create's time goes: the SDK's span events (sandbox.create, the first
// commands.run), the claim's latency annotations (written by the SDK and the claim controller)
// and the benchmark's own watch on Sandboxes (when the adoption patch was seen, milestones.ts),
// as points in ms after the create started. Pure.
import { Annotations } from '@agent-sandbox/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** The points in the order the code reaches them (`source` says who saw each). */
export const POINTS = [
  ['claim POST answered', 'sdk'],
  ['controller first observed', 'claim annotation'],
  ['adoption pass began', 'claim annotation'],
  ['adoption recorded on the claim', 'sdk watch'],
  ['daemon address read', 'sdk'],
  ['daemon channel connected', 'sdk'],
  ['adoption patch seen', 'bench watch'],
  ['Ready seen by the SDK', 'sdk watch'],
  ['create() returned', 'sdk'],
  ['Start sent', 'sdk'],
  ['process started (init frame)', 'sdk'],
  ['first output frame', 'sdk'],
] as const;
export type Point = (typeof POINTS)[number][0];
export type Timeline = Partial<Record<Point, number>>;

const EVENT_POINT: Record<string, Point> = {
  'sandbox.claim.created': 'claim POST answered',
  'sandbox.claim.assigned': 'adoption recorded on the claim',
  'sandbox.ready': 'Ready seen by the SDK',
  'sandbox.daemon.dialling': 'daemon address read',
  'sandbox.daemon.connected': 'daemon channel connected',
  'process.start.sent': 'Start sent',
  'process.started': 'process started (init frame)',
  'process.output.first': 'first output frame',
};

const ms = (t: readonly [number, number]): number => t[0] * 1000 + t[1] / 1e6;

/**
 * One round's timeline from its spans (one `sandbox.create`, then the first `commands.run`),
 * the claim's annotations and when the bench saw the adoption patch (epoch ms).
 */
export function timelineOf(
  spans: readonly ReadableSpan[],
  claimAnnotations: Record<string, string>,
  adoptionSeenAt: number | undefined,
): Timeline {
  const create = spans.find((s) => s.name === 'sandbox.create');
  const run = spans.find((s) => s.name === 'commands.run');
  if (!create) return {};
  const t0 = ms(create.startTime);
  const out: Timeline = { 'create() returned': ms(create.endTime) - t0 };
  for (const span of [create, run]) {
    for (const e of span?.events ?? []) {
      const point = EVENT_POINT[e.name];
      if (point !== undefined && out[point] === undefined) out[point] = ms(e.time) - t0;
    }
  }
  const at = (key: string): number | undefined => {
    const v = Date.parse(claimAnnotations[key] ?? '');
    return Number.isNaN(v) ? undefined : v - t0;
  };
  const observed = at(Annotations.ControllerFirstObservedAt);
  if (observed !== undefined) out['controller first observed'] = observed;
  // The `now` of the pass that made the claim Ready (its start, not when Ready was written).
  const pass = at(Annotations.ClaimFirstReadyAt);
  if (pass !== undefined) out['adoption pass began'] = pass;
  if (adoptionSeenAt !== undefined) out['adoption patch seen'] = adoptionSeenAt - t0;
  return out;
}
