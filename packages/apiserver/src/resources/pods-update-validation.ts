// kube-apiserver's ValidatePodUpdate beyond the spec checks (pkg/apis/core/validation): a Pod's
// spec is immutable except container and init container images, activeDeadlineSeconds (only
// lowered), tolerations (only added), terminationGracePeriodSeconds (-N to 1) and
// schedulingGates (only removed). Containers cannot be added or removed; anything else changed
// is one Forbidden on `spec` with kube's fixed text, followed by a diff of what changed. kube's
// diff prints its internal Go structs, which a TypeScript server cannot reproduce; ours lists the
// changed JSON paths. Pure.
import { forbidden, invalid, required, type FieldIssue } from '@agent-sandbox/crd-schema';
import { isDeepStrictEqual } from 'node:util';
import { validatePodSpec } from './pods-validation.ts';

type Json = Record<string, unknown>;

export const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

const MAX_INT32 = 2147483647;

function record(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

function list(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(record) : [];
}

/** ValidateContainerUpdates: same count, every image set. `stop` when the count changed. */
function containerUpdates(
  next: Json[],
  old: Json[],
  path: string,
): { issues: FieldIssue[]; stop: boolean } {
  if (next.length !== old.length)
    return {
      issues: [forbidden(path, 'pod updates may not add or remove containers')],
      stop: true,
    };
  const issues = next
    .map((c, i) =>
      typeof c['image'] === 'string' && c['image'] !== ''
        ? undefined
        : required(`${path}[${i}].image`),
    )
    .filter((i): i is FieldIssue => i !== undefined);
  return { issues, stop: false };
}

function activeDeadlineIssues(next: unknown, old: unknown): FieldIssue[] {
  const path = 'spec.activeDeadlineSeconds';
  if (typeof next === 'number') {
    if (next < 0 || next > MAX_INT32)
      return [invalid(path, next, `must be between 0 and ${MAX_INT32}, inclusive`)];
    if (typeof old === 'number' && old < next)
      return [invalid(path, next, 'must be less than or equal to previous value')];
    return [];
  }
  if (typeof old === 'number')
    return [invalid(path, null, 'must not update from a positive integer to nil value')];
  return [];
}

/** validateOnlyAddedTolerations: every stored toleration is still there (tolerationSeconds aside). */
function onlyAddedTolerations(next: Json[], old: Json[]): FieldIssue[] {
  const kept = (t: Json) =>
    next.some((n) =>
      isDeepStrictEqual(
        { ...t, tolerationSeconds: n['tolerationSeconds'] },
        { ...n, tolerationSeconds: n['tolerationSeconds'] },
      ),
    );
  if (old.every(kept)) return [];
  return [
    forbidden(
      'spec.tolerations',
      'existing toleration can not be modified except its tolerationSeconds',
    ),
  ];
}

/** The new spec with every field a Pod update may change set back to the stored value. */
function mungedSpec(next: Json, old: Json): Json {
  const out = structuredClone(next);
  for (const key of ['containers', 'initContainers'] as const) {
    const oldList = list(old[key]);
    if (Array.isArray(out[key]))
      out[key] = list(out[key]).map((c, i) => {
        const copy = { ...c };
        if (oldList[i]?.['image'] === undefined) delete copy['image'];
        else copy['image'] = oldList[i]['image'];
        return copy;
      });
  }
  for (const key of ['activeDeadlineSeconds', 'tolerations', 'schedulingGates'] as const) {
    if (old[key] === undefined) delete out[key];
    else out[key] = old[key];
  }
  const oldGates = list(old['schedulingGates']);
  if (!list(next['schedulingGates']).every((g) => oldGates.some((o) => isDeepStrictEqual(o, g))))
    out['schedulingGates'] = next['schedulingGates'];
  const oldGrace = old['terminationGracePeriodSeconds'];
  if (typeof oldGrace === 'number' && oldGrace < 0 && next['terminationGracePeriodSeconds'] === 1)
    out['terminationGracePeriodSeconds'] = oldGrace;
  return out;
}

/** "- path: old" / "+ path: new" lines for each leaf that differs. */
function diffLines(old: unknown, next: unknown, path: string, out: string[]): void {
  if (isDeepStrictEqual(old, next)) return;
  const bothObjects =
    typeof old === 'object' && old !== null && typeof next === 'object' && next !== null;
  if (bothObjects && Array.isArray(old) === Array.isArray(next)) {
    const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
    for (const k of keys) {
      const child = Array.isArray(old) ? `${path}[${k}]` : `${path}.${k}`;
      diffLines((old as Json)[k], (next as Json)[k], child, out);
    }
    return;
  }
  if (old !== undefined) out.push(`- ${path}: ${JSON.stringify(old)}`);
  if (next !== undefined) out.push(`+ ${path}: ${JSON.stringify(next)}`);
}

/** ValidatePodUpdate's spec part: the new spec's own checks, then what an update may change. */
export function validatePodSpecUpdate(nextSpec: unknown, oldSpec: unknown): FieldIssue[] {
  const next = record(nextSpec);
  const old = record(oldSpec);
  const issues = validatePodSpec(next);
  for (const key of ['containers', 'initContainers'] as const) {
    const r = containerUpdates(list(next[key]), list(old[key]), `spec.${key}`);
    issues.push(...r.issues);
    if (r.stop) return issues;
  }
  issues.push(...onlyAddedTolerations(list(next['tolerations']), list(old['tolerations'])));
  const deadline = activeDeadlineIssues(
    next['activeDeadlineSeconds'],
    old['activeDeadlineSeconds'],
  );
  if (deadline.length > 0) return [...issues, ...deadline];
  if (isDeepStrictEqual(next, old)) return issues;
  const munged = mungedSpec(next, old);
  if (!isDeepStrictEqual(munged, old)) {
    const lines: string[] = [];
    diffLines(old, munged, 'spec', lines);
    issues.push(forbidden('spec', `${POD_UPDATE_FORBIDDEN}\n${lines.join('\n')}\n`));
  }
  return issues;
}
