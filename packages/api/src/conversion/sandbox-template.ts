// SandboxTemplate v1alpha1 ⇄ v1beta1 (spec §4.2). The only v1beta1-only field,
// `spec.volumeClaimTemplatesPolicy`, travels on the v1alpha1 object as an annotation.
import { Kinds } from '../groups.ts';
import type { SandboxTemplate as SandboxTemplateV1alpha1 } from '../v1alpha1/sandbox-template.ts';
import {
  VolumeClaimTemplatesPolicy,
  type SandboxTemplate as SandboxTemplateV1beta1,
} from '../v1beta1/sandbox-template.ts';
import {
  V1ALPHA1_SANDBOX_TEMPLATE_STATE_ANNOTATION as STATE,
  V1BETA1_VOLUME_CLAIM_TEMPLATES_POLICY_ANNOTATION as POLICY,
} from './annotations.ts';
import { ConversionError } from './errors.ts';
import {
  EXTENSIONS_V1ALPHA1,
  EXTENSIONS_V1BETA1,
  omit,
  putAnnotation,
  stateJson,
  takeAnnotation,
} from './state.ts';

const POLICIES: ReadonlySet<string> = new Set(Object.values(VolumeClaimTemplatesPolicy));

function isPolicy(value: string): value is VolumeClaimTemplatesPolicy {
  return POLICIES.has(value);
}

/**
 * The v1beta1 form of a v1alpha1 SandboxTemplate. A `v1beta1-volume-claim-templates-policy`
 * annotation is moved back into `spec.volumeClaimTemplatesPolicy`; the v1alpha1 object (stash
 * annotation included, as upstream stores it) is kept in the `v1alpha1-sandboxtemplate-state`
 * annotation. Pure: the input is not modified and the result shares nothing with it.
 * @throws ConversionError `InvalidAnnotation` with upstream's exact message,
 *   `invalid VolumeClaimTemplatesPolicy annotation value: "<v>"`, when the stash annotation is
 *   not Disallowed, Allowed or Overrides.
 */
export function sandboxTemplateToV1beta1(
  template: SandboxTemplateV1alpha1,
): SandboxTemplateV1beta1 {
  const src = structuredClone(template);
  // A v1alpha1 spec has no policy of its own: only the annotation may set it.
  const out: SandboxTemplateV1beta1 = {
    ...src,
    apiVersion: EXTENSIONS_V1BETA1,
    kind: Kinds.SandboxTemplate,
    spec: omit(src.spec, 'volumeClaimTemplatesPolicy'),
  };
  const stashed = takeAnnotation(out.metadata, POLICY);
  if (stashed !== undefined) {
    if (!isPolicy(stashed)) {
      throw new ConversionError(
        'InvalidAnnotation',
        `invalid VolumeClaimTemplatesPolicy annotation value: ${goQuote(stashed)}`,
      );
    }
    out.spec.volumeClaimTemplatesPolicy = stashed;
  }
  putAnnotation(out.metadata, STATE, stateJson(template, STATE));
  return out;
}

/**
 * The v1alpha1 form of a v1beta1 SandboxTemplate: the state annotation is stripped (templates
 * restore nothing from it) and a non-empty `volumeClaimTemplatesPolicy` is stashed in the
 * `v1beta1-volume-claim-templates-policy` annotation, which is removed when the policy is empty.
 * Pure: the input is not modified and the result shares nothing with it.
 */
export function sandboxTemplateToV1alpha1(
  template: SandboxTemplateV1beta1,
): SandboxTemplateV1alpha1 {
  const src = structuredClone(template);
  const out: SandboxTemplateV1alpha1 = {
    ...src,
    apiVersion: EXTENSIONS_V1ALPHA1,
    kind: Kinds.SandboxTemplate,
    spec: omit(src.spec, 'volumeClaimTemplatesPolicy'),
  };
  takeAnnotation(out.metadata, STATE);
  const policy: string | undefined = src.spec.volumeClaimTemplatesPolicy;
  if (policy !== undefined && policy !== '') putAnnotation(out.metadata, POLICY, policy);
  else takeAnnotation(out.metadata, POLICY);
  return out;
}

/**
 * Go's strconv.Quote (`%q`), which upstream's error message uses: printable characters as they
 * are, `"` and `\` escaped, control characters as Go escapes them.
 */
function goQuote(s: string): string {
  const named: Record<string, string> = {
    '"': '\\"',
    '\\': '\\\\',
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
  };
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    const escaped = named[ch];
    if (escaped !== undefined) out += escaped;
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `"${out}"`;
}
