// RFC 7386 JSON merge patch as the diff of two objects (client.MergeFrom): changed members are
// set, removed ones are null, arrays are replaced whole. undefined when nothing changed.
import { isDeepStrictEqual } from 'node:util';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function mergePatchFrom(before: Json, after: Json): Json | undefined {
  const patch: Json = {};
  for (const key of Object.keys(before)) {
    if (after[key] === undefined && before[key] !== undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const old = before[key];
    if (isObject(old) && isObject(value)) {
      const sub = mergePatchFrom(old, value);
      if (sub !== undefined) patch[key] = sub;
    } else if (!isDeepStrictEqual(old, value)) {
      patch[key] = value;
    }
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}
