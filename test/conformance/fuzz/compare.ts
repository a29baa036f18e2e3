// How one fuzz case's two answers compare, and the run's result table. Pure.
import type { HttpResult } from '../target.ts';
import type { FuzzRequest } from './generate.ts';

export interface CaseOutcome {
  index: number;
  request: string;
  kube: number;
  ours: number;
  kubeReason: string;
  oursReason: string;
  /** The embedded server answered /readyz after the case. */
  up: boolean;
  /** Why a class difference is expected, when KNOWN_FUZZ_DIFFERENCES explains it. */
  known?: string;
}

/**
 * Status class differences with a reason. Each matches on what was sent and both answers; keep
 * them narrow, so a new difference fails the run.
 */
export const KNOWN_FUZZ_DIFFERENCES: {
  reason: string;
  matches(r: FuzzRequest, kube: number, ours: number): boolean;
}[] = [
  {
    reason:
      'a body nested more than 1000 levels: kube decodes it (its limit is 10000) and answers ' +
      'what the object says; the embedded server refuses it with 400 (known-differences.ts)',
    matches: (r, _kube, ours) => ours === 400 && nestingOf(r.body) > 1000,
  },
  {
    reason:
      'a custom resource created or replaced with a protobuf body: kube never answers (the ' +
      'apiextensions handler has no protobuf decoder for custom resources and the request hangs ' +
      'until its 60 s timeout); the embedded server answers that the body is no protobuf message',
    matches: (r, kube, ours) =>
      kube === 0 &&
      Math.floor(ours / 100) === 4 &&
      (r.method === 'POST' || r.method === 'PUT') &&
      r.path.startsWith('/apis/agents.x-k8s.io/') &&
      (r.contentType ?? '').startsWith('application/vnd.kubernetes.protobuf'),
  },
  {
    reason:
      'an Accept header outside resource endpoints (discovery, /version, /healthz, openapi): ' +
      'kube negotiates it there too and refuses what it does not serve with 406; the embedded ' +
      'server negotiates Accept on resource requests only and answers these in JSON (follow-up)',
    matches: (r, kube, ours) =>
      kube === 406 &&
      Math.floor(ours / 100) === 2 &&
      r.headers?.['Accept'] !== undefined &&
      !RESOURCE_PATH.test(r.path),
  },
  {
    reason:
      'impersonation (Impersonate-User, Impersonate-Group) is not implemented: the embedded ' +
      'server ignores the headers and answers as the caller; kube impersonates (403 for a user ' +
      'without rights, 400 for a group without a user)',
    matches: (r, kube) =>
      (kube === 400 || kube === 403) &&
      Object.keys(r.headers ?? {}).some((h) => h.startsWith('Impersonate-')),
  },
  {
    reason:
      'a bad Authorization header from the admin: the harness admin authenticates with a client ' +
      'certificate, which kube checks first, so the header does not matter; the embedded test ' +
      'server has no client certificates (its admin is a request without credentials), so the ' +
      'bad credential is all it sees and it answers 401',
    matches: (r, _kube, ours) => ours === 401 && r.headers?.['Authorization'] !== undefined,
  },
  {
    reason:
      'a GET (or HEAD) of one object with a resourceVersion that is not a number: kube answers 500 (its ' +
      "storage layer's ParseUint error is no typed Status; a list with the same parameter gets " +
      '400); the embedded server refuses the parameter with a 4xx',
    matches: (r, kube, ours) =>
      (r.method === 'GET' || r.method === 'HEAD') &&
      kube === 500 &&
      Math.floor(ours / 100) === 4 &&
      /[?&]resourceVersion=(?![0-9]*(&|$))/.test(r.path),
  },
  {
    reason:
      '/metrics: kube serves its Prometheus metrics there; the embedded server has no metrics ' +
      'endpoint of its own (404)',
    matches: (r, kube, ours) => kube === 200 && ours === 404 && r.path.startsWith('/metrics?'),
  },
];

/** A path the embedded server routes as a resource request (/api/v1/… or /apis/g/v/…). */
const RESOURCE_PATH = /^\/(api\/[^/?]+|apis\/[^/?]+\/[^/?]+)\/[^?]/;

function nestingOf(body: FuzzRequest['body']): number {
  if (body === undefined) return 0;
  const text = body.toString();
  let depth = 0;
  let max = 0;
  for (const ch of text) {
    if (ch === '{' || ch === '[') max = Math.max(max, ++depth);
    else if (ch === '}' || ch === ']') depth--;
  }
  return max;
}

function reasonOf(res: HttpResult): string {
  const body = res.body as { kind?: unknown; reason?: unknown } | null;
  if (body !== null && typeof body === 'object' && body.kind === 'Status')
    return typeof body.reason === 'string' ? body.reason : '';
  return '';
}

function describeRequest(r: FuzzRequest): string {
  const body =
    r.body === undefined
      ? ''
      : ` ${r.contentType ?? ''} body(${r.body.length}B: ${JSON.stringify(r.body.toString().slice(0, 40))})`;
  const headers =
    r.headers === undefined ? '' : ` headers ${JSON.stringify(r.headers).slice(0, 80)}`;
  return `${r.method} ${r.path.slice(0, 200)}${headers}${body}`;
}

export function compareCase(
  index: number,
  request: FuzzRequest,
  kube: HttpResult,
  ours: HttpResult,
  up: boolean,
): CaseOutcome {
  const oursStatus = ours.status;
  const outcome: CaseOutcome = {
    index,
    request: describeRequest(request),
    kube: kube.status,
    ours: oursStatus,
    kubeReason: kube.status === 0 ? 'no answer' : reasonOf(kube),
    oursReason: oursStatus === 0 ? 'no answer' : reasonOf(ours),
    up: up && oursStatus !== 0,
  };
  const known = KNOWN_FUZZ_DIFFERENCES.find((k) => k.matches(request, kube.status, oursStatus));
  if (known && classOf(kube.status) !== classOf(oursStatus)) outcome.known = known.reason;
  return outcome;
}

function classOf(status: number): number {
  return Math.floor(status / 100);
}

export interface Summary {
  table: string;
  /** One line per listed (known) difference. */
  listed: string[];
  crashes: string[];
  fiveHundredsForFourHundreds: string[];
  unexplained: string[];
}

function line(o: CaseOutcome): string {
  return `#${o.index} ${o.request} → kube ${o.kube} ${o.kubeReason}, ours ${o.ours} ${o.oursReason}`;
}

export function summarize(outcomes: readonly CaseOutcome[]): Summary {
  const differ = outcomes.filter((o) => classOf(o.kube) !== classOf(o.ours));
  const sameReason = outcomes.filter((o) => o.kube === o.ours && o.kubeReason === o.oursReason);
  const summary: Summary = {
    crashes: outcomes.filter((o) => !o.up).map(line),
    // A listed difference explains the class (e.g. kube's 4xx for impersonation, which the
    // embedded server does not implement, before its 5xx for a bad resourceVersion).
    fiveHundredsForFourHundreds: outcomes
      .filter((o) => classOf(o.ours) === 5 && classOf(o.kube) === 4 && o.known === undefined)
      .map(line),
    unexplained: differ.filter((o) => o.known === undefined).map(line),
    listed: differ.filter((o) => o.known !== undefined).map((o) => `${line(o)} (${o.known})`),
    table: '',
  };
  const rows: [string, number][] = [
    ['cases', outcomes.length],
    ['crashes (embedded not ready after the case)', summary.crashes.length],
    ['5xx where kube answers 4xx', summary.fiveHundredsForFourHundreds.length],
    ['status class equal to kube', outcomes.length - differ.length],
    ['status code and reason equal to kube', sameReason.length],
    ['class differences listed with a reason', summary.listed.length],
    ['class differences without a reason', summary.unexplained.length],
  ];
  summary.table = rows.map(([k, v]) => `fuzz: ${k.padEnd(46)} ${v}`).join('\n');
  return summary;
}
