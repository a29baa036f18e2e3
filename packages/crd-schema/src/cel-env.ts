// The CEL environment x-kubernetes-validations rules run in. kube-apiserver declares `self` and
// `oldSelf` with types derived from the schema and adds the Kubernetes CEL libraries
// (k8s.io/apiserver/pkg/cel/library). We use @marcbachmann/cel-js with `self`/`oldSelf` as
// `dyn` (values are converted per schema type before evaluation, see cel-value.ts) and register
// the most used library functions; the rest are listed in the package README as unsupported.
import { Environment } from '@marcbachmann/cel-js';
import { compileRE2 } from './regex.ts';

type CelValue = unknown;

function compare(a: CelValue, b: CelValue): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function deepEqual(a: CelValue, b: CelValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every((k) =>
        deepEqual((a as Record<string, CelValue>)[k], (b as Record<string, CelValue>)[k]),
      )
    );
  }
  return false;
}

/** CEL regexes are RE2, translated like schema patterns (regex.ts). */
function toRegExp(pattern: string, global = false): RegExp {
  const re = compileRE2(pattern, 'cel');
  return global ? new RegExp(re.source, `${re.flags}g`) : re;
}

/**
 * The environments rules compile in, built lazily and at most once per compiled schema
 * (construction is the expensive part). Rules with `optionalOldSelf: true` see `oldSelf` as
 * `optional<dyn>`, as kube declares it for them.
 */
export class CelEnvironments {
  #plain: Environment | undefined;
  #optional: Environment | undefined;

  forRule(optionalOldSelf: boolean): Environment {
    if (optionalOldSelf) return (this.#optional ??= createCelEnvironment('optional<dyn>'));
    return (this.#plain ??= createCelEnvironment('dyn'));
  }
}

function createCelEnvironment(oldSelfType: 'dyn' | 'optional<dyn>'): Environment {
  return (
    new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false })
      .registerVariable('self', 'dyn')
      .registerVariable('oldSelf', oldSelfType)
      // k8s.io/apiserver/pkg/cel/library/lists.go
      .registerFunction('list.isSorted(): bool', (l: CelValue[]) =>
        l.every((v, i) => i === 0 || compare(l[i - 1], v) <= 0),
      )
      .registerFunction('list.sum(): dyn', (l: CelValue[]) =>
        l.reduce<CelValue>(
          (acc, v) =>
            typeof acc === 'bigint' && typeof v === 'bigint' ? acc + v : Number(acc) + Number(v),
          typeof l[0] === 'number' ? 0 : 0n,
        ),
      )
      .registerFunction('list.min(): dyn', (l: CelValue[]) => {
        if (l.length === 0) throw new Error('min called on empty list');
        return l.reduce((m, v) => (compare(v, m) < 0 ? v : m));
      })
      .registerFunction('list.max(): dyn', (l: CelValue[]) => {
        if (l.length === 0) throw new Error('max called on empty list');
        return l.reduce((m, v) => (compare(v, m) > 0 ? v : m));
      })
      .registerFunction('list.indexOf(dyn): int', (l: CelValue[], x: CelValue) =>
        BigInt(l.findIndex((v) => deepEqual(v, x))),
      )
      .registerFunction('list.lastIndexOf(dyn): int', (l: CelValue[], x: CelValue) => {
        for (let i = l.length - 1; i >= 0; i--) if (deepEqual(l[i], x)) return BigInt(i);
        return -1n;
      })
      // k8s.io/apiserver/pkg/cel/library/regex.go
      .registerFunction('string.find(string): string', (s: string, re: string) => {
        const m = toRegExp(re).exec(s);
        return m === null ? '' : m[0];
      })
      .registerFunction('string.findAll(string): list<string>', (s: string, re: string) =>
        [...s.matchAll(toRegExp(re, true))].map((m) => m[0]),
      )
      .registerFunction(
        'string.findAll(string, int): list<string>',
        (s: string, re: string, n: bigint) => {
          const all = [...s.matchAll(toRegExp(re, true))].map((m) => m[0]);
          return n < 0n ? all : all.slice(0, Number(n));
        },
      )
      // k8s.io/apiserver/pkg/cel/library/urls.go (isURL accepts what url.ParseRequestURI does)
      .registerFunction('isURL(string): bool', (s: string) => {
        if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:|^\//.test(s)) return false;
        try {
          new URL(s, s.startsWith('/') ? 'http://localhost' : undefined);
          return true;
        } catch {
          return false;
        }
      })
      // cel-go ext strings (version 2, as kube-apiserver enables it)
      .registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
        const cps = [...s];
        if (i < 0n || i > BigInt(cps.length)) throw new Error(`index out of range: ${i}`);
        return cps[Number(i)] ?? '';
      })
      .registerFunction(
        'string.replace(string, string): string',
        (s: string, a: string, b: string) => s.split(a).join(b),
      )
      .registerFunction(
        'string.replace(string, string, int): string',
        (s: string, a: string, b: string, n: bigint) => {
          if (n < 0n) return s.split(a).join(b);
          let out = s;
          let from = 0;
          for (let k = 0n; k < n; k++) {
            const at = out.indexOf(a, from);
            if (at < 0) break;
            out = out.slice(0, at) + b + out.slice(at + a.length);
            from = at + b.length;
          }
          return out;
        },
      )
      .registerFunction('string.reverse(): string', (s: string) => [...s].reverse().join(''))
  );
}
