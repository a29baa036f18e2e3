// Element order of merged lists in strategic merge patch (strategicpatch's normalizeElementOrder,
// after the "preserve order in strategic merge patch" design): items named by the patch (or by
// `$setElementOrder`) keep the patch's order, server-only items keep the live order, and the two
// are interleaved by their positions in the live list.
import { deepEqual, goFormat, isObject } from './json-value.ts';

/** Where `item` is in `list`: by merge-key value for maps, by value for primitives; -1 if absent. */
function indexIn(list: readonly unknown[], item: unknown, mergeKey: string): number {
  if (mergeKey === '') return list.findIndex((v) => deepEqual(v, item));
  if (!isObject(item)) return -1;
  return list.findIndex((v) => isObject(v) && deepEqual(v[mergeKey], item[mergeKey]));
}

/** Split `merged` into items present in `list` and the rest, keeping relative order. */
export function partitionByPresence(
  merged: readonly unknown[],
  list: readonly unknown[],
  mergeKey: string,
): { present: unknown[]; absent: unknown[] } {
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const item of merged) (indexIn(list, item, mergeKey) >= 0 ? present : absent).push(item);
  return { present, absent };
}

function sortByOrder(items: unknown[], order: readonly unknown[], mergeKey: string): unknown[] {
  return items
    .map((item, i) => ({ item, i, at: indexIn(order, item, mergeKey) }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 ? a.at - b.at : a.i - b.i))
    .map((x) => x.item);
}

/**
 * Sort `patchItems` by `patchOrder` and `serverOnly` by `serverOrder`, then insert each
 * server-only item before the first patch item that comes after it in the live list.
 */
export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey);
      const ri = indexIn(serverOrder, right[j], mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function hasDirective(v: unknown): boolean {
  return isObject(v) && Object.hasOwn(v, '$patch');
}

/**
 * validatePatchWithSetOrderList: every non-directive patch item must appear in the
 * `$setElementOrder` list, in the same relative order. Returns the error message, if any.
 */
export function validateSetOrder(
  patchList: readonly unknown[],
  order: readonly unknown[],
  mergeKey: string,
): string | undefined {
  if (order.length === 0 || patchList.length === 0) return undefined;
  const items = patchList.filter((v) => !hasDirective(v));
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const a = items[p];
    const b = order[o];
    const equal =
      mergeKey === ''
        ? deepEqual(a, b)
        : isObject(a) && isObject(b) && deepEqual(a[mergeKey], b[mergeKey]);
    if (equal) p++;
    o++;
  }
  if (p < items.length) {
    return `the order in patch list:\n${goFormat(patchList)}\n doesn't match $setElementOrder list:\n${goFormat(order)}`;
  }
  return undefined;
}
