// GET of one object and of lists (semantics doc §3.1–3.4).
import { expired, notFound, tooLargeResourceVersion } from '../../errors.ts';
import type { KubeObject } from '../../objects.ts';
import { keyPrefix, objectKey } from '../../resource-store.ts';
import { groupVersion } from '../../resources/resource.ts';
import { StorageError } from '../../storage/errors.ts';
import type { Call, ServerParts } from '../context.ts';
import { jsonResponse } from '../response.ts';
import { decodeContinue, encodeContinue } from './continue-token.ts';
import { listFilter } from './filter.ts';
import { getResourceVersion, listOptions } from '../list-options.ts';
import { checkPathSegmentName } from '../request-info.ts';
import { requestedTable, tableResponse } from '../tables.ts';

const CONTINUE_TOO_OLD =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

export function get(parts: ServerParts, call: Call): Response {
  const { r, req } = call;
  const name = req.name ?? '';
  // As in kube: the answer's media type is negotiated (406) before storage is asked.
  const table = requestedTable(call.http);
  checkPathSegmentName(name);
  // kube-apiserver keeps no watch cache of events (its default --watch-cache-sizes).
  getResourceVersion(call.url, parts.store.currentRevision, r.plural === 'events' && !r.crd);
  const stored = parts.store.get(objectKey(r, req.namespace, name));
  if (!stored) throw notFound(r, name);
  const obj = parts.codec.decode(r, stored, call.version);
  if (table) return tableResponse(parts, call, [obj], table);
  return jsonResponse(obj, 200, call.warnings);
}

/** Objects of a list as the client sees them (CR items keep kind/apiVersion, built-in items drop them). */
function listItem(call: Call, obj: KubeObject): KubeObject {
  if (call.r.crd) return obj;
  const copy: KubeObject = { ...obj };
  delete copy.kind;
  delete copy.apiVersion;
  return copy;
}

export function list(parts: ServerParts, call: Call): Response {
  const { r, req, url } = call;
  const filter = listFilter(r, url, call.version);
  const prefix = keyPrefix(r, req.namespace);
  const options = listOptions(url, false);
  const rvParam = options.resourceVersion;
  const continueToken = options.continue;
  // resourceVersion=0 means "any version": the whole list, limit ignored (§3.3). A limit past
  // any count the store can hold is no limit.
  const limit =
    rvParam === '0' || options.limit <= 0
      ? undefined
      : Math.min(options.limit, Number.MAX_SAFE_INTEGER);

  let revision: number | undefined;
  let startAfter: string | undefined;
  if (continueToken) {
    const pos = decodeContinue(continueToken);
    revision = pos.revision;
    startAfter = prefix + pos.after;
    if (revision < parts.store.compactRevision) {
      throw expired(CONTINUE_TOO_OLD);
    }
  } else if (options.revision !== undefined && options.revision !== 0n) {
    const current = parts.store.currentRevision;
    if (options.revision > BigInt(current))
      throw tooLargeResourceVersion(String(options.revision), current);
    // "Not older than N" is served from the current state, which satisfies it.
    revision = undefined;
  }

  const items: KubeObject[] = [];
  const full: KubeObject[] = [];
  let readRevision: number;
  let lastKey: string | undefined;
  let remaining: number;
  let cursor = startAfter;
  // Filtering happens after reading, so keep reading pages until `limit` matches are found.
  for (;;) {
    let page;
    try {
      page = parts.store.list(prefix, {
        ...(revision !== undefined ? { revision } : {}),
        ...(limit !== undefined ? { limit: limit - items.length } : {}),
        ...(cursor !== undefined ? { startAfter: cursor } : {}),
      });
    } catch (err: unknown) {
      if (err instanceof StorageError && err.code === 'Compacted') throw expired(CONTINUE_TOO_OLD);
      throw err;
    }
    readRevision = page.revision;
    revision = page.revision;
    for (const stored of page.items) {
      const obj = parts.codec.decode(r, stored, call.version);
      lastKey = stored.key;
      if (filter(obj)) {
        full.push(obj);
        items.push(listItem(call, obj));
      }
    }
    remaining = page.remaining;
    cursor = lastKey;
    if (limit === undefined || remaining === 0 || items.length >= limit || page.items.length === 0)
      break;
  }

  // Custom resource lists are unstructured and always carry `continue` (empty on the last page).
  const metadata: Record<string, unknown> = r.crd
    ? { continue: '', resourceVersion: String(readRevision) }
    : { resourceVersion: String(readRevision) };
  if (limit !== undefined && remaining > 0 && lastKey !== undefined) {
    metadata['continue'] = encodeContinue(readRevision, lastKey.slice(prefix.length));
    if (!url.searchParams.get('labelSelector') && !url.searchParams.get('fieldSelector')) {
      metadata['remainingItemCount'] = remaining;
    }
  }
  const table = requestedTable(call.http);
  if (table) return tableResponse(parts, call, full, table, metadata);
  const body = {
    kind: r.listKind,
    apiVersion: groupVersion(r.group, call.version),
    metadata,
    items,
  };
  return jsonResponse(body, 200, call.warnings);
}
