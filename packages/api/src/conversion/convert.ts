// The generic entry point (spec §1, §3.4, §4.2, §5.4, §6.2): converts any of our four kinds
// between the served versions, dispatching on apiVersion and kind. The embedded API server uses
// it to serve v1alpha1 from v1beta1 storage; the CLI may use it on manifests.
import type { KubeObject } from '@agent-sandbox/kube-types';
import {
  KIND_GROUPS,
  Kinds,
  SERVED_VERSIONS,
  type ApiVersionName,
  type KindName,
} from '../groups.ts';
import { ConversionError } from './errors.ts';
import { sandboxClaimToV1alpha1, sandboxClaimToV1beta1 } from './sandbox-claim.ts';
import { sandboxTemplateToV1alpha1, sandboxTemplateToV1beta1 } from './sandbox-template.ts';
import { sandboxWarmPoolToV1alpha1, sandboxWarmPoolToV1beta1 } from './sandbox-warm-pool.ts';
import { sandboxToV1alpha1, sandboxToV1beta1 } from './sandbox.ts';
import { isJsonObject, type JsonObject } from './state.ts';

interface KindConverters {
  toV1beta1(obj: KubeObject): KubeObject;
  toV1alpha1(obj: KubeObject): KubeObject;
}

// The casts are sound because convert() checked apiVersion, kind, metadata and spec first; the
// per-kind functions read only fields whose absence they tolerate.
const CONVERTERS: Record<KindName, KindConverters> = {
  Sandbox: {
    toV1beta1: (o) => sandboxToV1beta1(o as Parameters<typeof sandboxToV1beta1>[0]),
    toV1alpha1: (o) => sandboxToV1alpha1(o as Parameters<typeof sandboxToV1alpha1>[0]),
  },
  SandboxTemplate: {
    toV1beta1: (o) => sandboxTemplateToV1beta1(o as Parameters<typeof sandboxTemplateToV1beta1>[0]),
    toV1alpha1: (o) =>
      sandboxTemplateToV1alpha1(o as Parameters<typeof sandboxTemplateToV1alpha1>[0]),
  },
  SandboxClaim: {
    toV1beta1: (o) => sandboxClaimToV1beta1(o as Parameters<typeof sandboxClaimToV1beta1>[0]),
    toV1alpha1: (o) => sandboxClaimToV1alpha1(o as Parameters<typeof sandboxClaimToV1alpha1>[0]),
  },
  SandboxWarmPool: {
    toV1beta1: (o) => sandboxWarmPoolToV1beta1(o as Parameters<typeof sandboxWarmPoolToV1beta1>[0]),
    toV1alpha1: (o) =>
      sandboxWarmPoolToV1alpha1(o as Parameters<typeof sandboxWarmPoolToV1alpha1>[0]),
  },
};

function isKindName(kind: string): kind is KindName {
  return Object.hasOwn(Kinds, kind);
}

function isServedVersion(version: string): version is ApiVersionName {
  return (SERVED_VERSIONS as readonly string[]).includes(version);
}

/** The served version named by `apiVersion` for `kind`, or a ConversionError saying why not. */
function servedVersion(kind: KindName, apiVersion: string, what: string): ApiVersionName {
  const group = KIND_GROUPS[kind];
  const slash = apiVersion.indexOf('/');
  const version = apiVersion.slice(slash + 1);
  if (slash === -1 || apiVersion.slice(0, slash) !== group || !isServedVersion(version)) {
    const served = SERVED_VERSIONS.map((v) => `${group}/${v}`).join(', ');
    throw new ConversionError(
      'UnsupportedVersion',
      `cannot convert ${kind} ${what} apiVersion "${apiVersion}": served versions are ${served}`,
    );
  }
  return version;
}

function objectKey(metadata: JsonObject): string {
  const name = typeof metadata['name'] === 'string' ? metadata['name'] : '<unnamed>';
  return typeof metadata['namespace'] === 'string' ? `${metadata['namespace']}/${name}` : name;
}

/**
 * Converts a Sandbox, SandboxTemplate, SandboxClaim or SandboxWarmPool to `toApiVersion`
 * (`<group>/v1alpha1` or `<group>/v1beta1` of the kind's own group). A conversion to the
 * object's own version returns a deep copy. Deterministic and pure: the input is never
 * modified and the result shares nothing with it.
 * @throws ConversionError `InvalidObject` when `obj` lacks a string apiVersion/kind or an object
 *   metadata/spec, `UnsupportedKind` for any other kind, `UnsupportedVersion` when either
 *   version is not served for the kind's group, and the per-kind errors (`InvalidAnnotation`,
 *   `InvalidState`).
 */
export function convert(obj: unknown, toApiVersion: string): KubeObject {
  if (!isJsonObject(obj)) {
    throw new ConversionError('InvalidObject', 'cannot convert: the object is not a JSON object');
  }
  const { apiVersion, kind, metadata, spec } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    throw new ConversionError(
      'InvalidObject',
      'cannot convert: the object has no apiVersion or kind',
    );
  }
  if (!isKindName(kind)) {
    const known = Object.values(Kinds).join(', ');
    throw new ConversionError(
      'UnsupportedKind',
      `cannot convert kind "${kind}" (${apiVersion}): only ${known} convert`,
    );
  }
  const from = servedVersion(kind, apiVersion, 'from');
  const to = servedVersion(kind, toApiVersion, 'to');
  if (!isJsonObject(metadata)) {
    throw new ConversionError('InvalidObject', `cannot convert ${kind}: metadata is not an object`);
  }
  if (!isJsonObject(spec)) {
    throw new ConversionError(
      'InvalidObject',
      `cannot convert ${kind} ${objectKey(metadata)}: spec is not an object`,
    );
  }
  const object = obj as unknown as KubeObject;
  if (from === to) return structuredClone(object);
  return to === 'v1beta1'
    ? CONVERTERS[kind].toV1beta1(object)
    : CONVERTERS[kind].toV1alpha1(object);
}
