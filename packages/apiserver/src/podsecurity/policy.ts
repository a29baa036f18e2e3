// Pod Security admission's policy: the namespace labels pod-security.kubernetes.io/{enforce,
// audit,warn}[-version] over a configurable default, parsed with kube's errors, and the
// evaluation of a Pod against one level:version into kube's aggregated message. Pure.
import type { PodSpec } from '@agent-sandbox/kube-types';
import { checksFor, type Level, type Violation } from './checks.ts';

export type { Level };

/** The newest Pod Security version this table implements (kube-apiserver 1.36). */
export const LATEST_MINOR = 36;

export interface LevelVersion {
  level: Level;
  /** 'latest' or a 1.x minor. */
  version: 'latest' | number;
}

export interface PodSecurityPolicy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export interface LabelError {
  label: string;
  value: string;
  message: string;
}

const PREFIX = 'pod-security.kubernetes.io/';
const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];
const LATEST: LevelVersion = { level: 'privileged', version: 'latest' };

/** kube's default AdmissionConfiguration: everything privileged:latest. */
export const PRIVILEGED_DEFAULTS: PodSecurityPolicy = {
  enforce: LATEST,
  audit: LATEST,
  warn: LATEST,
};

export function formatLevelVersion(lv: LevelVersion): string {
  return `${lv.level}:${lv.version === 'latest' ? 'latest' : `v1.${lv.version}`}`;
}

function strictness(l: Level): number {
  return LEVELS.indexOf(l);
}

function parseLevel(v: string): Level | undefined {
  return (LEVELS as readonly string[]).includes(v) ? (v as Level) : undefined;
}

function parseVersion(v: string): LevelVersion['version'] | undefined {
  if (v === 'latest') return 'latest';
  const m = /^v1\.(0|[1-9][0-9]*)$/.exec(v);
  return m ? Number(m[1]) : undefined;
}

/** kube's PolicyToEvaluate: labels over defaults; invalid values are errors (and fail open). */
export function policyFor(
  labels: Readonly<Record<string, string>> | undefined,
  defaults: PodSecurityPolicy,
): { policy: PodSecurityPolicy; errors: LabelError[] } {
  const p: PodSecurityPolicy = {
    enforce: { ...defaults.enforce },
    audit: { ...defaults.audit },
    warn: { ...defaults.warn },
  };
  const errors: LabelError[] = [];
  if (!labels) return { policy: p, errors };
  let enforceSet = false;
  for (const mode of ['enforce', 'audit', 'warn'] as const) {
    const level = labels[`${PREFIX}${mode}`];
    if (level !== undefined) {
      const parsed = parseLevel(level);
      if (parsed === undefined)
        errors.push({
          label: `${PREFIX}${mode}`,
          value: level,
          message: `must be one of ${LEVELS.join(', ')}`,
        });
      // kube: an invalid enforce level enforces restricted; audit and warn fail open.
      p[mode].level = parsed ?? (mode === 'enforce' ? 'restricted' : 'privileged');
      if (mode === 'enforce') enforceSet = parsed !== undefined;
    }
    const version = labels[`${PREFIX}${mode}-version`];
    if (version !== undefined) {
      const parsed = parseVersion(version);
      if (parsed === undefined)
        errors.push({
          label: `${PREFIX}${mode}-version`,
          value: version,
          message: 'must be "latest" or "v1.x"',
        });
      p[mode].version = parsed ?? 'latest';
    }
  }
  // kube warns at the enforce level when it is stricter and no warn level is set.
  if (
    labels[`${PREFIX}warn`] === undefined &&
    enforceSet &&
    strictness(p.enforce.level) > strictness(p.warn.level)
  ) {
    p.warn.level = p.enforce.level;
    if (labels[`${PREFIX}warn-version`] === undefined) p.warn.version = p.enforce.version;
  }
  return { policy: p, errors };
}

export interface PodLike {
  metadata?: { annotations?: Record<string, string> };
  spec?: PodSpec;
}

/** Every violation of a level:version by a Pod, in kube's order. */
export function evaluate(lv: LevelVersion, pod: PodLike): Violation[] {
  const minor = lv.version === 'latest' ? LATEST_MINOR : Math.min(lv.version, LATEST_MINOR);
  const spec = pod.spec ?? { containers: [] };
  const annotations = pod.metadata?.annotations ?? {};
  return checksFor(lv.level, minor)
    .map((c) => c.check(annotations, spec))
    .filter((v): v is Violation => v !== undefined);
}

/** kube's ForbiddenDetail: `reason (detail), reason (detail)`. */
export function describe(violations: readonly Violation[]): string {
  return violations.map((v) => (v.detail ? `${v.reason} (${v.detail})` : v.reason)).join(', ');
}

/** kube's ForbiddenReason: the reasons alone. */
export function reasons(violations: readonly Violation[]): string {
  return violations.map((v) => v.reason).join(', ');
}
