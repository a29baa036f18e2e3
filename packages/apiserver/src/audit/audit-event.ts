// One audit event per write (kube's audit.k8s.io/v1 Event at level Metadata, stage
// ResponseComplete): who, verb, resource, namespace/name, response code, timestamps, and the
// annotations admission and authorization add. Metadata level means no request or response
// body is ever in it — a Secret's data or a TokenReview's token cannot leak into the log. Pure.
import { formatMicroTime } from '@agent-sandbox/kube-types';
import type { UserInfo } from '../auth/authenticate.ts';
import type { ResourceRequest } from '../http/request-info.ts';

const WRITE_VERBS: ReadonlySet<string> = new Set([
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
]);

export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: 'Metadata';
  auditID: string;
  stage: 'ResponseComplete';
  requestURI: string;
  verb: string;
  user: { username: string; uid?: string; groups: string[] };
  userAgent?: string;
  objectRef: {
    resource: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    apiVersion: string;
    subresource?: string;
  };
  responseStatus: { metadata: Record<string, never>; code: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** What the server saw of one request, filled in as it is served. */
export interface AuditFacts {
  auditID: string;
  received: Date;
  url: URL;
  userAgent: string | null;
  user?: UserInfo;
  req?: ResourceRequest;
  /** The object's name when the URL has none (a create). */
  name?: string;
  annotations?: Record<string, string>;
}

const ANONYMOUS = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

/** Whether the request is one the log records: a write to a resource. */
export function isAudited(facts: AuditFacts): boolean {
  return facts.req !== undefined && WRITE_VERBS.has(facts.req.verb);
}

/** The event for an audited request answered with `code` at `now`. */
export function auditEvent(facts: AuditFacts, code: number, now: Date): AuditEvent {
  const req = facts.req as ResourceRequest;
  const u = facts.user;
  const name = req.name ?? facts.name;
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: facts.auditID,
    stage: 'ResponseComplete',
    requestURI: `${facts.url.pathname}${facts.url.search}`,
    verb: req.verb,
    user: u
      ? { username: u.username, ...(u.uid !== undefined ? { uid: u.uid } : {}), groups: u.groups }
      : ANONYMOUS,
    ...(facts.userAgent !== null ? { userAgent: facts.userAgent } : {}),
    objectRef: {
      resource: req.resource,
      ...(req.namespace !== undefined ? { namespace: req.namespace } : {}),
      ...(name !== undefined && name !== '' ? { name } : {}),
      ...(req.group !== '' ? { apiGroup: req.group } : {}),
      apiVersion: req.version,
      ...(req.subresource !== undefined ? { subresource: req.subresource } : {}),
    },
    responseStatus: { metadata: {}, code },
    requestReceivedTimestamp: formatMicroTime(facts.received),
    stageTimestamp: formatMicroTime(now),
    ...(facts.annotations && Object.keys(facts.annotations).length > 0
      ? { annotations: facts.annotations }
      : {}),
  };
}
