// Where one cold create's time goes (a claim on the template's replicas-0 shadow pool: the
// controller makes a Sandbox, its Pod is bound and started, the node's daemon starts in it), as
// points in ms after create() was called. From four sources, all on the host's wall clock: up's
// audit log (every write, when its answer was ready), the in-sandbox daemon's own lines in up.log
// (when its process began, reached main, listened, dialled the node), the bench's watches (which
// of a Pod's status writes made it Running, then Ready) and the SDK's spans (timeline.ts). Pure.
import type { Milestones } from './milestones.ts';
import type { Timeline } from './timeline.ts';

/** The points in the order a cold create reaches them (`source` says who saw each). */
export const COLD_POINTS = [
  ['shadow pool POST received', 'audit'],
  ['shadow pool POST answered', 'audit'],
  ['claim POST received', 'audit'],
  ['claim POST ready to answer', 'audit'],
  ['claim POST answered', 'sdk'],
  ['controller first observed', 'claim annotation'],
  ['choice recorded on the claim', 'audit'],
  ['Sandbox created', 'audit'],
  ['Pod created', 'audit'],
  ['Pod bound', 'audit'],
  ['Pod Running written', 'audit + bench watch'],
  ['daemon process began', 'daemon log'],
  ['daemon main reached', 'daemon log'],
  ['daemon listening', 'daemon log'],
  ['daemon registered', 'daemon log'],
  ['Pod Ready written', 'audit + bench watch'],
  ['Sandbox Ready written', 'audit + bench watch'],
  ['claim Ready written', 'audit + sdk watch'],
  ['Ready seen by the SDK', 'sdk watch'],
  ['create() returned', 'sdk'],
  ['daemon channel connected', 'sdk'],
  ['Start sent', 'sdk'],
  ['process started (init frame)', 'sdk'],
  ['first output frame', 'sdk'],
] as const;
export type ColdPoint = (typeof COLD_POINTS)[number][0];
export type ColdTimeline = Partial<Record<ColdPoint, number>>;

/** The fields of an audit event this reads (Metadata level: no bodies). */
export interface AuditLine {
  verb: string;
  userAgent?: string;
  objectRef: { resource: string; subresource?: string; name?: string };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

/** A line of up.log; the node logs each in-sandbox daemon line as `daemon` (pod-daemon.ts). */
export interface UpLogLine {
  msg?: string;
  container?: string;
  daemon?: {
    msg?: string;
    ts?: string;
    loadedMs?: number;
    servingMs?: number;
    sinceStartMs?: number;
  };
}

/** Each line of a JSON-lines text that parses (a line cut by a crash is skipped). */
export function jsonLines<T>(text: string): T[] {
  const out: T[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      continue;
    }
  }
  return out;
}

export interface ColdRound {
  /** The claim's name: its Sandbox and Pod are named after it. */
  name: string;
  /** create() was called, epoch ms. */
  t0: number;
  /** The SDK's and the claim annotations' points (timelineOf). */
  sdk: Timeline;
}

const answered = (e: AuditLine): number => Date.parse(e.stageTimestamp);

/** The writes of one object, in the order they were answered. */
function writesOf(audit: readonly AuditLine[], resource: string, name: string): AuditLine[] {
  return audit
    .filter((e) => e.objectRef.resource === resource && e.objectRef.name === name)
    .filter((e) => !['get', 'list', 'watch'].includes(e.verb))
    .sort((a, b) => answered(a) - answered(b));
}

/** The last write among `writes` answered by `seen` (the one whose result was then seen). */
function lastBy(writes: readonly AuditLine[], seen: number | undefined): number | undefined {
  if (seen === undefined) return undefined;
  const before = writes.filter((e) => answered(e) <= seen);
  const last = before[before.length - 1];
  return last === undefined ? undefined : answered(last);
}

function daemonPoints(log: readonly UpLogLine[], name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of log) {
    const d = l.daemon;
    if (l.msg !== 'in-sandbox daemon' || d?.ts === undefined) continue;
    if (!l.container?.startsWith(`default/${name}/`)) continue;
    const at = Date.parse(d.ts);
    if (d.msg === 'serving' && d.servingMs !== undefined && d.loadedMs !== undefined) {
      out['daemon process began'] ??= at - d.servingMs;
      out['daemon main reached'] ??= at - d.servingMs + d.loadedMs;
      out['daemon listening'] ??= at;
    }
    if (d.msg === 'node-exec registered') out['daemon registered'] ??= at;
  }
  return out;
}

/** One cold round's points, ms after create() was called. */
export function coldTimelineOf(
  round: ColdRound,
  audit: readonly AuditLine[],
  log: readonly UpLogLine[],
  seen: { pods: Milestones; sandboxes: Milestones },
): ColdTimeline {
  const { name, t0, sdk } = round;
  const abs: Record<string, number | undefined> = {};
  const pool = audit.find(
    (e) =>
      e.verb === 'create' &&
      e.objectRef.resource === 'sandboxwarmpools' &&
      e.userAgent?.startsWith('@agent-sandbox/sdk') === true &&
      Date.parse(e.requestReceivedTimestamp) >= t0 - 1,
  );
  abs['shadow pool POST received'] = pool && Date.parse(pool.requestReceivedTimestamp);
  abs['shadow pool POST answered'] = pool && answered(pool);
  const claim = writesOf(audit, 'sandboxclaims', name);
  const post = claim.find((e) => e.verb === 'create');
  abs['claim POST received'] = post && Date.parse(post.requestReceivedTimestamp);
  abs['claim POST ready to answer'] = post && answered(post);
  const choice = claim.find((e) => e.verb === 'update' && e.objectRef.subresource === undefined);
  abs['choice recorded on the claim'] = choice && answered(choice);
  const first = (resource: string, sub?: string): number | undefined => {
    const e = writesOf(audit, resource, name).find(
      (w) => w.verb === 'create' && w.objectRef.subresource === sub,
    );
    return e && answered(e);
  };
  abs['Sandbox created'] = first('sandboxes');
  abs['Pod created'] = first('pods');
  abs['Pod bound'] = first('pods', 'binding');
  const status = (resource: string) =>
    writesOf(audit, resource, name).filter((e) => e.objectRef.subresource === 'status');
  const pod = seen.pods.get(name) ?? {};
  abs['Pod Running written'] = lastBy(status('pods'), pod['Pod Running seen']);
  abs['Pod Ready written'] = lastBy(status('pods'), pod['Pod Ready seen']);
  const sandboxReady = seen.sandboxes.get(name)?.['Sandbox Ready seen'];
  abs['Sandbox Ready written'] = lastBy(status('sandboxes'), sandboxReady);
  const sdkReady = sdk['Ready seen by the SDK'];
  abs['claim Ready written'] = lastBy(
    status('sandboxclaims'),
    sdkReady === undefined ? undefined : t0 + sdkReady,
  );
  Object.assign(abs, daemonPoints(log, name));
  const out: ColdTimeline = {};
  for (const [point] of COLD_POINTS) {
    const v = abs[point];
    if (v !== undefined) out[point] = v - t0;
    else if (point in sdk) out[point] = sdk[point as keyof Timeline];
  }
  return out;
}
