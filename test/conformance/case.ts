// A conformance case: a function run once against each target in a fresh namespace, recording
// observations (status codes, Status reasons and causes, objects, watch events) that must agree.
import { normalize } from './normalize.ts';
import type { HttpResult, Target } from './target.ts';

export interface Recorder {
  /** Records one observation under a label. */
  (label: string, value: unknown): void;
}

export interface ConformanceCase {
  name: string;
  run(t: Target, ns: string, record: Recorder): Promise<void>;
}

/** What a response says, in comparable form: Status errors by code, reason, message and causes. */
export function observe(res: HttpResult): unknown {
  const body = res.body as Record<string, unknown> | string;
  if (typeof body === 'object' && body !== null && body['kind'] === 'Status') {
    const details = body['details'] as Record<string, unknown> | undefined;
    return {
      status: res.status,
      reason: body['reason'],
      message: body['message'],
      causes: details?.['causes'],
      code: body['code'],
    };
  }
  return { status: res.status, body };
}

/** Runs a case and returns its normalized observations. */
export async function runCase(
  c: ConformanceCase,
  t: Target,
  ns: string,
): Promise<[string, unknown][]> {
  const out: [string, unknown][] = [];
  await c.run(t, ns, (label, value) => out.push([label, normalize(value, ns)]));
  return out;
}

/** Path helpers. */
export function nsPath(prefix: string, ns: string, plural: string, name?: string): string {
  return `${prefix}/namespaces/${ns}/${plural}${name ? `/${name}` : ''}`;
}
