import { formatFieldIssue } from '@agent-sandbox/crd-schema';
import { describe, expect, it } from 'vitest';
import type { LabelSelectorObject } from './label-selector.ts';
import { validateLabels, validateLabelSelector } from './validate-label-selector.ts';

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('validateLabelSelector (metav1 validation)', () => {
  it.each<[string, LabelSelectorObject | null, string[]]>([
    ['null', null, []],
    ['empty', {}, []],
    [
      'valid',
      {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a'] },
          { key: 'x', operator: 'Exists' },
        ],
      },
      [],
    ],
    [
      'In without values',
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      [
        "spec.podSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      ],
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      [
        "spec.podSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ],
    ],
    [
      'bad operator, key and value',
      { matchExpressions: [{ key: '-a', operator: 'Gt', values: ['-v'] }] },
      [
        'spec.podSelector.matchExpressions[0].operator: Invalid value: "Gt": not a valid selector operator',
        `spec.podSelector.matchExpressions[0].key: Invalid value: "-a": ${NAME_PART}`,
        `spec.podSelector.matchExpressions[0].values[0]: Invalid value: "-v": ${LABEL_VALUE}`,
      ],
    ],
    [
      'bad matchLabels',
      { matchLabels: { 'a/': '-b' } },
      [
        'spec.podSelector.matchLabels: Invalid value: "a/": name part must be non-empty',
        `spec.podSelector.matchLabels: Invalid value: "a/": ${NAME_PART}`,
        `spec.podSelector.matchLabels: Invalid value: "-b": ${LABEL_VALUE}`,
      ],
    ],
  ])('%s', (_name, sel, want) => {
    expect(validateLabelSelector(sel, 'spec.podSelector').map(formatFieldIssue)).toEqual(want);
  });

  it('can allow invalid values for existing data', () => {
    expect(
      validateLabelSelector(
        { matchExpressions: [{ key: 'a', operator: 'In', values: ['-v'] }] },
        'sel',
        {
          allowInvalidLabelValueInSelector: true,
        },
      ),
    ).toEqual([]);
  });

  it('validateLabels reports each message as its own cause', () => {
    const issues = validateLabels({ ok: 'fine', 'x/y/z': 'v' }, 'metadata.labels');
    expect(issues).toHaveLength(1);
    expect(issues[0]?.type).toBe('FieldValueInvalid');
  });
});
