// The access reviews (authorization.k8s.io/v1 SubjectAccessReview, LocalSubjectAccessReview,
// SelfSubjectAccessReview, SelfSubjectRulesReview) and authentication.k8s.io/v1
// SelfSubjectReview: creates that answer a question about the RBAC policy and store nothing,
// what `kubectl auth can-i [--list]` and `kubectl auth whoami` ask.
import { invalid as invalidField, type FieldIssue } from '@agent-sandbox/crd-schema';
import { badRequest, invalid } from '../errors.ts';
import { readObject } from '../http/body.ts';
import type { Call } from '../http/context.ts';
import { jsonResponse } from '../http/response.ts';
import { formatTime } from '../objects.ts';
import { reviewMetadata } from '../http/verbs/token-review.ts';
import type { Attributes, UserInfo } from './policy.ts';
import { aggregate, authorize, rulesFor, type Decision, type PolicySource } from './resolver.ts';

type Json = Record<string, unknown>;

export const REVIEW_KINDS: Readonly<Record<string, string>> = {
  subjectaccessreviews: 'SubjectAccessReview',
  localsubjectaccessreviews: 'LocalSubjectAccessReview',
  selfsubjectaccessreviews: 'SelfSubjectAccessReview',
  selfsubjectrulesreviews: 'SelfSubjectRulesReview',
  selfsubjectreviews: 'SelfSubjectReview',
};

const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

function attributesFrom(user: UserInfo, spec: Json): Attributes {
  const res = obj(spec['resourceAttributes']);
  if (res) {
    const ns = str(res['namespace']);
    return {
      user,
      resourceRequest: true,
      verb: str(res['verb']),
      apiGroup: str(res['group']),
      apiVersion: str(res['version']) || '*',
      resource: str(res['resource']),
      ...(str(res['subresource']) ? { subresource: str(res['subresource']) } : {}),
      ...(ns ? { namespace: ns } : {}),
      ...(str(res['name']) ? { name: str(res['name']) } : {}),
    };
  }
  const non = obj(spec['nonResourceAttributes']) ?? {};
  return { user, resourceRequest: false, verb: str(non['verb']), path: str(non['path']) };
}

/** How kube renders the internal NonResourceAttributes struct in a message (no json tags). */
function goNonResource(v: unknown): unknown {
  const o = obj(v) ?? {};
  return { Path: str(o['path']), Verb: str(o['verb']) };
}

function specIssues(spec: Json, kind: string, review: Json): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const res = spec['resourceAttributes'];
  const non = spec['nonResourceAttributes'];
  if (res != null && non != null)
    issues.push(
      invalidField(
        'spec.nonResourceAttributes',
        goNonResource(non),
        'cannot be specified in combination with resourceAttributes',
      ),
    );
  if (res == null && non == null)
    issues.push(
      invalidField(
        'spec.resourceAttributes',
        null,
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    );
  if (
    kind !== 'SelfSubjectAccessReview' &&
    str(spec['user']) === '' &&
    strings(spec['groups']).length === 0
  )
    issues.push(
      invalidField(
        'spec.user',
        str(spec['user']),
        'at least one of user or group must be specified',
      ),
    );
  if (kind === 'LocalSubjectAccessReview') {
    const ns = str(obj(review['metadata'])?.['namespace']);
    const resNs = obj(res) ? str((res as Json)['namespace']) : undefined;
    if (resNs !== undefined && resNs !== ns)
      issues.push(
        invalidField('spec.resourceAttributes.namespace', resNs, 'must match metadata.namespace'),
      );
    if (non != null)
      issues.push(
        invalidField(
          'spec.nonResourceAttributes',
          goNonResource(non),
          'disallowed on this kind of request',
        ),
      );
  }
  return issues;
}

function subjectOf(spec: Json): UserInfo {
  const extra = obj(spec['extra']);
  return {
    username: str(spec['user']),
    groups: strings(spec['groups']),
    ...(str(spec['uid']) ? { uid: str(spec['uid']) } : {}),
    ...(extra
      ? { extra: Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, strings(v)])) }
      : {}),
  };
}

function accessStatus(decide: (a: Attributes) => Decision, a: Attributes): Json {
  const d = decide(a);
  return { allowed: d.allowed, ...(d.reason !== '' ? { reason: d.reason } : {}) };
}

function rulesStatus(p: PolicySource, user: UserInfo, namespace: string): Json {
  const { rules, errors } = rulesFor(p, user, namespace);
  const resourceRules = rules
    .filter((r) => (r.resources ?? []).length > 0)
    .map((r) => ({
      verbs: r.verbs,
      ...(r.apiGroups ? { apiGroups: r.apiGroups } : {}),
      resources: r.resources,
      ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
    }));
  const nonResourceRules = rules
    .filter((r) => (r.nonResourceURLs ?? []).length > 0)
    .map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs }));
  return {
    resourceRules,
    nonResourceRules,
    incomplete: false,
    ...(errors.length > 0 ? { evaluationError: aggregate(errors) } : {}),
  };
}

/** Serves a create of one of REVIEW_KINDS' resources for the authenticated `user`. */
export async function serveReview(
  call: Call,
  p: PolicySource,
  user: UserInfo,
  now: Date,
  /** The authorizer chain's decision. @default RBAC alone over `p` */
  decide: (a: Attributes) => Decision = (a) => authorize(p, a),
): Promise<Response> {
  const kind = REVIEW_KINDS[call.r.plural] as string;
  const review = await readObject(call.http, kind);
  const apiVersion = `${call.r.group}/v1`;
  if (kind === 'SelfSubjectReview') {
    const userInfo = {
      username: user.username,
      ...(user.uid !== undefined ? { uid: user.uid } : {}),
      groups: user.groups,
      ...(user.extra ? { extra: user.extra } : {}),
    };
    const metadata = { creationTimestamp: formatTime(now) };
    const body = { kind, apiVersion, metadata, status: { userInfo } };
    return jsonResponse(body, 201, call.warnings);
  }
  const spec = obj(review['spec']) ?? {};
  if (kind === 'SelfSubjectRulesReview') {
    const namespace = str(spec['namespace']);
    if (namespace === '') throw badRequest('no namespace on request');
    // kube answers with a new object: no spec, no metadata.
    const status = rulesStatus(p, user, namespace);
    return jsonResponse({ kind, apiVersion, metadata: {}, spec: {}, status }, 201, call.warnings);
  }
  const issues = specIssues(spec, kind, review);
  // kube's message names no kind: the decoded internal object has an empty one.
  if (issues.length > 0)
    throw invalid(
      { group: call.r.group, plural: call.r.plural, kind: '' },
      '',
      issues.map((i) => ({ field: i.field, message: i.message, type: i.type })),
    );
  const subject = kind === 'SelfSubjectAccessReview' ? user : subjectOf(spec);
  const status = accessStatus(decide, attributesFrom(subject, spec));
  const metadata = {
    ...(call.req.namespace !== undefined ? { namespace: call.req.namespace } : {}),
    ...reviewMetadata(call, spec, apiVersion, now),
  };
  return jsonResponse({ kind, apiVersion, metadata, spec, status }, 201, call.warnings);
}
