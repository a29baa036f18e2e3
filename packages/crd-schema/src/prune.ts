// Pruning of unknown fields, after apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go
// plus the ObjectMeta coercion the CR handler applies around it (crd_handler.go
// unstructuredSchemaCoercer.apply): root metadata first, then the schema walk, then the
// metadata of embedded resources.
import { coerceObjectMeta } from './object-meta.ts';
import { isObject, type SchemaNode } from './node.ts';
import { child, index } from './paths.ts';

/** apiVersion, kind and metadata are never pruned at a resource root (algorithm.go metaFields). */
const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function pruneValue(
  x: unknown,
  s: SchemaNode | undefined,
  path: string,
  embedded: boolean,
  out: string[],
): void {
  if (s !== undefined && s.preserveUnknownFields) {
    skipPrune(x, s, path, embedded, out);
    return;
  }
  if (Array.isArray(x)) {
    x.forEach((v, i) =>
      pruneValue(v, s?.items, index(path, i), s?.items?.embeddedResource ?? false, out),
    );
    return;
  }
  if (!isObject(x)) return;
  if (s === undefined) {
    for (const k of Object.keys(x)) {
      out.push(child(path, k));
      delete x[k];
    }
    return;
  }
  for (const k of Object.keys(x)) {
    if (embedded && META_FIELDS.has(k)) continue;
    const prop = s.properties?.get(k);
    const next = prop ?? s.additionalProperties;
    if (next !== undefined) {
      pruneValue(x[k], next, child(path, k), next.embeddedResource, out);
    } else {
      if (!META_FIELDS.has(k) || path !== '') out.push(child(path, k));
      delete x[k];
    }
  }
}

/** Under x-kubernetes-preserve-unknown-fields: keep unknown keys, still prune known subtrees. */
function skipPrune(
  x: unknown,
  s: SchemaNode,
  path: string,
  embedded: boolean,
  out: string[],
): void {
  if (Array.isArray(x)) {
    x.forEach((v, i) => {
      if (s.items !== undefined)
        skipPrune(v, s.items, index(path, i), s.items.embeddedResource, out);
    });
    return;
  }
  if (!isObject(x)) return;
  for (const k of Object.keys(x)) {
    if (embedded && META_FIELDS.has(k)) continue;
    const next = s.properties?.get(k) ?? s.additionalProperties;
    if (next !== undefined) pruneValue(x[k], next, child(path, k), next.embeddedResource, out);
  }
}

/** schemaobjectmeta.Coerce with isResourceRoot=false: metadata of every embedded resource. */
function coerceEmbedded(x: unknown, s: SchemaNode | undefined, path: string, out: string[]): void {
  if (s === undefined || !s.hasEmbeddedBelow) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => coerceEmbedded(v, s.items, index(path, i), out));
    return;
  }
  if (!isObject(x)) return;
  if (s.embeddedResource) coerceObjectMeta(x, child(path, 'metadata'), out);
  for (const k of Object.keys(x)) {
    if (s.embeddedResource && META_FIELDS.has(k)) continue;
    coerceEmbedded(x[k], s.properties?.get(k) ?? s.additionalProperties, child(path, k), out);
  }
}

/**
 * Prune `obj` (a resource) in place; returns the removed field paths: root metadata ones first,
 * then the schema walk's, sorted as PruneWithOptions sorts them, then embedded metadata ones.
 */
export function pruneResource(obj: unknown, root: SchemaNode): string[] {
  const metaUnknown: string[] = [];
  if (isObject(obj)) coerceObjectMeta(obj, 'metadata', metaUnknown);
  const pruned: string[] = [];
  pruneValue(obj, root, '', true, pruned);
  pruned.sort();
  const embeddedUnknown: string[] = [];
  coerceEmbedded(obj, root, '', embeddedUnknown);
  return [...metaUnknown, ...pruned, ...embeddedUnknown];
}

/** Prune a value that sits at schema node `s` (not a resource root); returns removed paths. */
export function pruneAt(x: unknown, s: SchemaNode): string[] {
  const out: string[] = [];
  pruneValue(x, s, '', s.embeddedResource, out);
  return out;
}
