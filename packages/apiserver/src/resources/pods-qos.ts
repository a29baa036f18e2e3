// A Pod's QoS class as kube-apiserver computes it on create (qos.ComputePodQOS): BestEffort when
// no container asks for cpu or memory, Guaranteed when every container (or the pod-level
// resources) limits both and requests equal limits, Burstable otherwise. Pure; quantities are
// compared exactly (resource.Quantity semantics), not as floating point.

type Json = Record<string, unknown>;

export type QosClass = 'BestEffort' | 'Burstable' | 'Guaranteed';

const QOS_RESOURCES = ['cpu', 'memory'] as const;

const DECIMAL_SUFFIX: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };

const QUANTITY =
  /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$/;

/**
 * A resource.Quantity string as an exact count of nano-units (rounded up, as kube rounds values
 * finer than a nano), or undefined when it is not a quantity.
 */
export function quantityNanos(text: unknown): bigint | undefined {
  if (typeof text === 'number' && Number.isFinite(text)) return quantityNanos(String(text));
  if (typeof text !== 'string') return undefined;
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const [, sign = '', number = '', suffix, exponent] = m;
  const [whole = '', fraction = ''] = number.split('.');
  let mantissa = BigInt(`${whole}${fraction}` || '0');
  let exp10 = 9 - fraction.length;
  if (suffix !== undefined && suffix in BINARY_SUFFIX) {
    mantissa *= 1024n ** BigInt(BINARY_SUFFIX[suffix] ?? 0);
  } else if (suffix !== undefined) {
    exp10 += DECIMAL_SUFFIX[suffix] ?? 0;
  } else if (exponent !== undefined) {
    exp10 += Number(exponent);
  }
  let nanos: bigint;
  if (exp10 >= 0) nanos = mantissa * 10n ** BigInt(exp10);
  else {
    const div = 10n ** BigInt(-exp10);
    nanos = mantissa / div + (mantissa % div === 0n ? 0n : 1n);
  }
  return sign === '-' ? -nanos : nanos;
}

function record(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(record) : [];
}

/**
 * Requests as kube's defaulting leaves them: a resource with a limit but no request requests its
 * limit (SetDefaults_Pod; the embedded server does not store that default, so it is applied here).
 */
function effectiveRequests(resources: Json): Json {
  const requests = { ...record(resources['requests']) };
  for (const [name, q] of Object.entries(record(resources['limits'])))
    if (requests[name] === undefined) requests[name] = q;
  return requests;
}

/** Adds the positive cpu and memory quantities of `from` into `into`; returns which were positive. */
function addPositive(into: Map<string, bigint>, from: Json): Set<string> {
  const seen = new Set<string>();
  for (const name of QOS_RESOURCES) {
    const n = quantityNanos(from[name]);
    if (n === undefined || n <= 0n) continue;
    into.set(name, (into.get(name) ?? 0n) + n);
    seen.add(name);
  }
  return seen;
}

/** qos.ComputePodQOS over a v1 Pod spec (ephemeral containers cannot set resources). */
export function computePodQos(spec: unknown): QosClass {
  const s = record(spec);
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const podLevel = s['resources'] === undefined ? undefined : record(s['resources']);
  const sources =
    podLevel !== undefined
      ? [podLevel]
      : [...list(s['containers']), ...list(s['initContainers'])].map((c) => record(c['resources']));
  for (const resources of sources) {
    addPositive(requests, effectiveRequests(resources));
    if (resources['limits'] !== undefined || podLevel === undefined) {
      const limited = addPositive(limits, record(resources['limits']));
      if (!limited.has('cpu') || !limited.has('memory')) guaranteed = false;
    }
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      if (limits.get(name) !== req) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
