// Kubernetes-aware version ordering (k8s.io/apimachinery/pkg/version.CompareKubeAwareVersionStrings):
// GA before beta before alpha, higher numbers first, then non-conforming names alphabetically.
const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function rank(v: string): [number, number, number, number] | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return [0, Number(m[1]), stability, m[3] === undefined ? 0 : Number(m[3])];
}

/** Negative when `a` is preferred over `b`. */
export function compareKubeVersions(a: string, b: string): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra && rb) {
    if (ra[2] !== rb[2]) return rb[2] - ra[2];
    if (ra[1] !== rb[1]) return rb[1] - ra[1];
    return rb[3] - ra[3];
  }
  if (ra) return -1;
  if (rb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortKubeVersions(versions: readonly string[]): string[] {
  return [...versions].sort(compareKubeVersions);
}
