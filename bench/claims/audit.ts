// Writes per resource from the embedded API server's audit log (ADR 0031): which requests a
// claim costs, beyond the manager's per-verb rest_client counter. Only the embedded target has it.
import { readFileSync } from 'node:fs';

interface AuditLine {
  verb: string;
  userAgent?: string;
  objectRef: { resource: string; subresource?: string };
  stageTimestamp: string;
}

/**
 * Writes in [from, to] (ms since the epoch, by the audit event's stageTimestamp), counted per
 * user agent and then per "verb resource[/subresource]", most first.
 */
export function auditWrites(
  text: string,
  from: number,
  to: number,
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const e = JSON.parse(line) as AuditLine;
    const at = Date.parse(e.stageTimestamp);
    if (!(at >= from && at <= to)) continue;
    const sub = e.objectRef.subresource ? `/${e.objectRef.subresource}` : '';
    const key = `${e.verb} ${e.objectRef.resource}${sub}`;
    const agent = (out[e.userAgent ?? '-'] ??= {});
    agent[key] = (agent[key] ?? 0) + 1;
  }
  for (const [agent, counts] of Object.entries(out))
    out[agent] = Object.fromEntries(Object.entries(counts).sort(([, a], [, b]) => b - a));
  return out;
}

export function readAuditWrites(
  path: string,
  from: number,
  to: number,
): Record<string, Record<string, number>> {
  return auditWrites(readFileSync(path, 'utf8'), from, to);
}
