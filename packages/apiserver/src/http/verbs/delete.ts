// DELETE of one object and of collections (semantics doc §3.1, §9): options from the query or
// a DeleteOptions body, then operations/delete-object.ts.
import { ApiError, badRequest } from '../../errors.ts';
import { keyPrefix } from '../../resource-store.ts';
import {
  deleteOne,
  type DeleteOptions,
  type PropagationPolicy,
} from '../../operations/delete-object.ts';
import { readBody } from '../body.ts';
import { deleteOptionsBody } from './delete-options-body.ts';
import type { Call, ServerParts } from '../context.ts';
import { checkDryRun, invalidOptions } from '../options.ts';
import { jsonResponse } from '../response.ts';
import { decodeContinue } from './continue-token.ts';
import { listFilter } from './filter.ts';
import { listOptions, parseInt64 } from '../list-options.ts';
import { checkPathSegmentName } from '../request-info.ts';

/**
 * A delete's options come from its body when it has one, else from the query — never both: kube
 * decodes a non-empty body and then ignores the query's gracePeriodSeconds, propagationPolicy,
 * orphanDependents and dryRun altogether (a DELETE with `{}` and `?dryRun=All` really deletes).
 */
async function deleteOptions(call: Call): Promise<DeleteOptions> {
  const body = call.http.body ? await bodyOptions(call) : undefined;
  const q = call.url.searchParams;
  const from = (key: string): unknown =>
    body === undefined ? (q.get(key) ?? undefined) : body[key];
  const grace =
    body === undefined
      ? gracePeriodQuery(q.get('gracePeriodSeconds'))
      : gracePeriodBody(body['gracePeriodSeconds']);
  // A string or nothing: the query's always is, and deleteOptionsBody checked the body's type.
  const policy = from('propagationPolicy') as string | null | undefined;
  if (
    policy !== undefined &&
    policy !== null &&
    !['Orphan', 'Background', 'Foreground'].includes(policy)
  ) {
    throw invalidOptions(
      'DeleteOptions',
      'propagationPolicy',
      `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`,
    );
  }
  const orphanParam = from('orphanDependents');
  const bodyDryRun = body?.['dryRun'];
  const dryRun = checkDryRun(
    'DeleteOptions',
    body === undefined ? q.getAll('dryRun') : Array.isArray(bodyDryRun) ? bodyDryRun : [],
  );
  const out: DeleteOptions = { dryRun };
  if (grace !== undefined) out.gracePeriodSeconds = grace;
  if (policy) out.propagationPolicy = policy as PropagationPolicy;
  if (orphanParam !== undefined && orphanParam !== null)
    out.orphanDependents = orphanParam === true || orphanParam === 'true';
  const pre = body?.['preconditions'];
  if (pre && typeof pre === 'object') out.preconditions = pre as DeleteOptions['preconditions'];
  return out;
}

/** The DeleteOptions a body carries ({} for `null`); undefined when the body is empty. */
async function bodyOptions(call: Call): Promise<Record<string, unknown> | undefined> {
  const parsed = await readBody(call.http, 'DeleteOptions');
  if (parsed === undefined) return undefined;
  return deleteOptionsBody(parsed);
}

/** DeleteOptions.gracePeriodSeconds from the query: an int64 or a 400. */
function gracePeriodQuery(query: string | null): number | undefined {
  if (query === null) return undefined;
  const parsed = parseInt64(query);
  if (typeof parsed === 'object') throw badRequest(parsed.error);
  return Number(parsed);
}

/** DeleteOptions.gracePeriodSeconds from a body (a number, deleteOptionsBody): whole or a 400. */
function gracePeriodBody(body: unknown): number | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'number' || !Number.isSafeInteger(body))
    throw badRequest(
      `json: cannot unmarshal number ${String(body)} into Go struct field DeleteOptions.gracePeriodSeconds of type int64`,
    );
  return body;
}

export async function deleteObject(parts: ServerParts, call: Call): Promise<Response> {
  const opts = await deleteOptions(call);
  checkPathSegmentName(call.req.name ?? '');
  const result = deleteOne(
    parts,
    call.r,
    call.version,
    call.req.namespace,
    call.req.name ?? '',
    opts,
  );
  return jsonResponse(result.body, result.status, call.warnings);
}

export async function deleteCollection(parts: ServerParts, call: Call): Promise<Response> {
  const { r } = call;
  // kube validates a deletecollection's ListOptions as a list's, its continue token too.
  const list = listOptions(call.url, false);
  if (list.continue !== '') decodeContinue(list.continue);
  const opts = await deleteOptions(call);
  const filter = listFilter(r, call.url, call.version);
  const page = parts.store.list(keyPrefix(r, call.req.namespace));
  const items: unknown[] = [];
  for (const stored of page.items) {
    const obj = parts.codec.decode(r, stored, call.version);
    if (!filter(obj)) continue;
    try {
      const result = deleteOne(
        parts,
        r,
        call.version,
        obj.metadata.namespace,
        obj.metadata.name ?? '',
        opts,
      );
      items.push(result.body);
    } catch (err: unknown) {
      if (!(err instanceof ApiError && err.status.code === 404)) throw err;
    }
  }
  const body = {
    kind: r.listKind,
    apiVersion: r.group ? `${r.group}/${call.version}` : call.version,
    metadata: r.crd
      ? { continue: '', resourceVersion: String(parts.store.currentRevision) }
      : { resourceVersion: String(parts.store.currentRevision) },
    items,
  };
  return jsonResponse(body, 200, call.warnings);
}
