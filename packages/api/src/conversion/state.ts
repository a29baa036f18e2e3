// Helpers shared by the four kinds: annotation edits on a private copy, the v1alpha1 state
// annotation (spec §3.4, §5.4), and reading fields out of a parsed state object.
import type { ObjectMeta } from '@agent-sandbox/kube-types';
import { EXTENSIONS_GROUP, SANDBOX_GROUP } from '../groups.ts';
import { ConversionError } from './errors.ts';

export const SANDBOX_V1ALPHA1 = `${SANDBOX_GROUP}/v1alpha1`;
export const SANDBOX_V1BETA1 = `${SANDBOX_GROUP}/v1beta1`;
export const EXTENSIONS_V1ALPHA1 = `${EXTENSIONS_GROUP}/v1alpha1`;
export const EXTENSIONS_V1BETA1 = `${EXTENSIONS_GROUP}/v1beta1`;

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `obj` without `keys`; the other keys keep their order. */
export function omit<T extends object, K extends string>(obj: T, ...keys: K[]): Omit<T, K> {
  const drop = new Set<string>(keys);
  return Object.fromEntries(Object.entries(obj).filter(([k]) => !drop.has(k))) as Omit<T, K>;
}

/**
 * Removes `key` from `metadata.annotations` (of a copy the caller owns) and returns its value.
 * When that leaves the map empty the map goes too: Go serialises an emptied map as absent
 * (omitempty), and an object that had no annotations must come back without any.
 */
export function takeAnnotation(metadata: ObjectMeta, key: string): string | undefined {
  const annotations = metadata.annotations;
  if (annotations === undefined || !Object.hasOwn(annotations, key)) return undefined;
  const value = annotations[key];
  delete annotations[key];
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  return value;
}

/** Sets `key` in `metadata.annotations` of a copy the caller owns. */
export function putAnnotation(metadata: ObjectMeta, key: string, value: string): void {
  metadata.annotations = { ...metadata.annotations, [key]: value };
}

/**
 * The JSON kept in a v1alpha1 state annotation: the v1alpha1 object as given, minus its own
 * state annotation (so states never nest), keys in the object's own order. JSON.stringify is
 * deterministic for a given key order, so equal inputs store equal strings.
 */
export function stateJson(obj: { metadata: ObjectMeta }, stateKey: string): string {
  const copy = structuredClone(obj);
  takeAnnotation(copy.metadata, stateKey);
  return JSON.stringify(copy);
}

/** Parses a state annotation; `kind` names it in the error, as upstream's message does. */
export function parseState(json: string, kind: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err: unknown) {
    if (!(err instanceof SyntaxError)) throw err;
    throw new ConversionError(
      'InvalidState',
      `failed to unmarshal v1alpha1 ${kind} state: ${err.message}`,
      { cause: err },
    );
  }
  if (!isJsonObject(parsed)) {
    throw new ConversionError(
      'InvalidState',
      `failed to unmarshal v1alpha1 ${kind} state: not a JSON object`,
    );
  }
  return parsed;
}

/** The value at `path` inside a parsed state object, or undefined where any step is missing. */
export function stateField(state: JsonObject, ...path: string[]): unknown {
  let at: unknown = state;
  for (const key of path) {
    if (!isJsonObject(at)) return undefined;
    at = at[key];
  }
  return at;
}

/** An optional integer field of a state object; anything else present is a corrupt state. */
export function stateInteger(
  state: JsonObject,
  kind: string,
  ...path: string[]
): number | undefined {
  const value = stateField(state, ...path);
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  throw new ConversionError(
    'InvalidState',
    `failed to unmarshal v1alpha1 ${kind} state: ${path.join('.')} is not an integer`,
  );
}

/** An optional string field of a state object; anything else present is a corrupt state. */
export function stateString(
  state: JsonObject,
  kind: string,
  ...path: string[]
): string | undefined {
  const value = stateField(state, ...path);
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  throw new ConversionError(
    'InvalidState',
    `failed to unmarshal v1alpha1 ${kind} state: ${path.join('.')} is not a string`,
  );
}
