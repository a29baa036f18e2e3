// Kubernetes resource quantities (`64Mi`, `500m`, `1.5`, `2e3`) as numbers: pure. The API server
// has its own parser; the layer rule keeps packages apart, so the node agent carries this one.
import { InvalidArgumentError } from '../errors.ts';

const SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The value of a quantity; throws naming `field` when it does not parse. */
export function parseQuantity(q: string | number, field: string): number {
  if (typeof q === 'number') return q;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(
    q.trim(),
  );
  if (!m) throw new InvalidArgumentError(`${field}: "${q}" is not a quantity (e.g. 64Mi, 500m, 2)`);
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  return base * (SUFFIX[m[3] ?? ''] ?? 1);
}
