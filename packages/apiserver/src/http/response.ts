// Response helpers: JSON bodies, Status errors and Warning headers (semantics doc §0, §7).
import type { Status } from '@agent-sandbox/kube-types';
import { statusFor } from './error-boundary.ts';

const JSON_TYPE = 'application/json';

function escapeWarning(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

export function jsonResponse(
  body: unknown,
  status = 200,
  warnings: readonly string[] = [],
  extra: Record<string, string> = {},
): Response {
  const headers = new Headers({
    'Content-Type': JSON_TYPE,
    'Cache-Control': 'no-cache, private',
    ...extra,
  });
  for (const w of new Set(warnings)) headers.append('Warning', `299 - "${escapeWarning(w)}"`);
  return new Response(JSON.stringify(body), { status, headers });
}

export function statusResponse(status: Status, warnings: readonly string[] = []): Response {
  const extra: Record<string, string> = {};
  const retry = status.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) extra['Retry-After'] = String(retry);
  return jsonResponse(status, status.code, warnings, extra);
}

/** The Status response for anything a handler threw (the error boundary's mapping). */
export function errorResponse(err: unknown, warnings: readonly string[] = []): Response {
  return statusResponse(statusFor(err), warnings);
}

/** The plain-text Go 404 for paths that match no route (§0). */
export function notFoundPage(): Response {
  return new Response('404 page not found\n', {
    status: 404,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' },
  });
}

/** A `Success` Status, as DELETE of a custom resource returns it (§3.1). */
export function successStatus(details: Status['details']): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

/** A write's (or a read's) acknowledgement could not wait for the fsync: it may be lost. */
export function notDurableStatus(err: unknown): Status {
  const message = err instanceof Error ? err.message : String(err);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `storage failure, the request may not have been persisted: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}
