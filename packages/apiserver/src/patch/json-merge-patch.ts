// JSON merge patch, RFC 7386 §2 (application/merge-patch+json; spec §5.1). kube-apiserver applies
// it with evanphx/json-patch's MergePatch, which follows the RFC's MergePatch pseudo-code.
import { deepClone, isObject } from './json-value.ts';

/**
 * Apply `patch` to `target` and return the result; neither input is modified. An object patch
 * merges key by key (`null` deletes the key, RFC 7386 §2); any other patch value, arrays included,
 * replaces the target wholesale.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return deepClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
    } else {
      out[key] = applyMergePatch(out[key], value);
    }
  }
  return out;
}
