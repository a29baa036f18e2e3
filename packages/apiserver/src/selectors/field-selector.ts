// Field selectors as k8s.io/apimachinery/pkg/fields implements them (ParseSelector with value
// escaping), followed by the per-kind label check kube-apiserver's list handler applies through
// ConvertFieldLabel. Messages are kube's, byte for byte.
import { formatBadValue } from '@agent-sandbox/crd-schema';
import { SelectorError } from './errors.ts';

/** `=` and `==` are the same requirement (selection.Equals); `!=` is NotEquals. */
export type FieldOperator = '=' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly op: FieldOperator;
  readonly value: string;
}

/**
 * A parsed field selector. Contract: immutable; `matches` never throws; a field the object's
 * field set lacks reads as `""` (fields.Set.Get), so `x=` matches and `x!=` does not.
 */
export interface FieldSelector {
  matches(fields: (name: string) => string): boolean;
  /** Requirements in kube's order: terms sorted as raw text, empty terms dropped. */
  requirements(): readonly FieldRequirement[];
  isEmpty(): boolean;
  /** `field=value` terms joined by `,`, values escaped (fields.EscapeValue). */
  toString(): string;
  /** The value `field` must equal, if an `=` requirement names it. */
  requiresExactMatch(field: string): string | undefined;
}

/**
 * How one resource accepts field selectors: the labels its field label conversion admits, the
 * wording of its rejection, and how to read the selectable field set off an object.
 */
export interface FieldSelectorSpec {
  /** Labels accepted (ConvertFieldLabel), e.g. `metadata.name`, `status.phase`. */
  readonly fields: readonly string[];
  /** Legacy labels accepted and rewritten before matching (pods: `spec.host` → `spec.nodeName`). */
  readonly aliases?: Readonly<Record<string, string>>;
  /**
   * Kinds with a registered conversion say `field label not supported: <f>`; kinds without one
   * fall back to runtime.DefaultMetaV1FieldSelectorConversion: `"<f>" is not a known field
   * selector: only "metadata.name", "metadata.namespace"`.
   */
  readonly rejection: 'field-label-not-supported' | 'not-a-known-field-selector';
  /** The object's selectable field set (ToSelectableFields); unknown names read as `""`. */
  extract(obj: unknown): (name: string) => string;
}

/** fields.EscapeValue: `\` → `\\`, `,` → `\,`, `=` → `\=`. */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** fields.UnescapeValue. @throws SelectorError `InvalidFieldSelector` */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else {
        throw new SelectorError(
          'InvalidFieldSelector',
          `invalid field selector: invalid escape sequence: \\${c}`,
        );
      }
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      // UnescapedRune's Error() prints the rune with %v, i.e. as its code point number.
      throw new SelectorError(
        'InvalidFieldSelector',
        `invalid field selector: unescaped character in value: ${c.codePointAt(0) ?? 0}`,
      );
    } else out += c;
  }
  if (inSlash) {
    throw new SelectorError(
      'InvalidFieldSelector',
      'invalid field selector: invalid escape sequence: \\',
    );
  }
  return out;
}

/** splitTerms: split on commas not preceded by an escaping backslash. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

/** splitTerm: the first position where `!=`, `==` or `=` starts (no escaping on the left). */
function splitTerm(
  term: string,
): { lhs: string; op: (typeof TERM_OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i))
        return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** Go sort.Strings order. */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

class TermSelector implements FieldSelector {
  constructor(private readonly terms: readonly FieldRequirement[]) {}

  matches(fields: (name: string) => string): boolean {
    return this.terms.every((t) => (fields(t.field) === t.value) === (t.op === '='));
  }

  requirements(): readonly FieldRequirement[] {
    return this.terms;
  }

  isEmpty(): boolean {
    return this.terms.length === 0;
  }

  toString(): string {
    return this.terms.map((t) => `${t.field}${t.op}${escapeFieldValue(t.value)}`).join(',');
  }

  requiresExactMatch(field: string): string | undefined {
    return this.terms.find((t) => t.op === '=' && t.field === field)?.value;
  }
}

function rejection(spec: FieldSelectorSpec, field: string): SelectorError {
  const message =
    spec.rejection === 'field-label-not-supported'
      ? `field label not supported: ${field}`
      : `${formatBadValue(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
  return new SelectorError('UnsupportedFieldLabel', message);
}

/**
 * fields.ParseSelector, then the resource's field label conversion. Passing a plain list of
 * labels means "reject others with `field label not supported: <f>`" (the CR and most built-in
 * wording); pass a FieldSelectorSpec to get its wording and aliases.
 * @throws SelectorError `InvalidFieldSelector` or `UnsupportedFieldLabel` with kube's message
 */
export function parseFieldSelector(
  selector: string,
  supported: readonly string[] | FieldSelectorSpec,
): FieldSelector {
  const spec: FieldSelectorSpec = isSpec(supported)
    ? supported
    : { fields: supported, rejection: 'field-label-not-supported', extract: () => () => '' };
  const parts = splitTerms(selector).sort(byteOrder);
  const parsed: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (split === undefined) {
      throw new SelectorError(
        'InvalidFieldSelector',
        `invalid selector: '${selector}'; can't understand '${part}'`,
      );
    }
    parsed.push({
      field: split.lhs,
      op: split.op === '!=' ? '!=' : '=',
      value: unescapeFieldValue(split.rhs),
    });
  }
  // Transform (ConvertFieldLabel), term by term in the sorted order: the first bad label wins.
  const converted = parsed.map((r) => {
    const alias = spec.aliases?.[r.field];
    if (alias !== undefined) return { ...r, field: alias };
    if (!spec.fields.includes(r.field)) throw rejection(spec, r.field);
    return r;
  });
  return new TermSelector(converted);
}

function isSpec(x: readonly string[] | FieldSelectorSpec): x is FieldSelectorSpec {
  return !Array.isArray(x);
}

/** fields.Everything(). */
export function everythingFieldSelector(): FieldSelector {
  return new TermSelector([]);
}
