import { describe, expect, it } from 'vitest';
import { SelectorError } from './errors.ts';
import {
  formatLabelSelector,
  formatLabels,
  labelSelectorFromObject,
  parseLabelSelector,
  type LabelSelectorObject,
} from './label-selector.ts';

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const PREFIX_PART =
  "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

function parseError(input: string): SelectorError {
  try {
    parseLabelSelector(input);
  } catch (err: unknown) {
    if (err instanceof SelectorError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(input)} not to parse`);
}

describe('parseLabelSelector: grammar and canonical String()', () => {
  it.each([
    ['', ''],
    ['   ', ''],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x in (b,a)', 'x in (a,b)'],
    ['x in(a)', 'x in (a)'],
    ['x notin (a)', 'x notin (a)'],
    ['x', 'x'],
    ['!x', '!x'],
    ['  x = a ,\ty\n', 'x=a,y'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['x in (,a)', 'x in (,a)'],
    ['x in (a,)', 'x in (,a)'],
    ['x in ()', 'x in ()'],
    ['x=', 'x='],
    ['x=,y', 'x=,y'],
    ['z,y=b,x', 'x,y=b,z'],
    ['in in (in)', 'in in (in)'],
    ['x in (notin)', 'x in (notin)'],
    ['x>1', 'x>1'],
    ['x<5', 'x<5'],
    ['example.com/app=web', 'example.com/app=web'],
    ['x in (a,a,b)', 'x in (a,b)'],
    // cases from apimachinery's selector_test.go
    ['\rx', 'x'],
    ['x= ,z= ', 'x=,z='],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    [
      '0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)',
      '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)',
    ],
    ['x notin (abc,def),bar,z in (),w', 'bar,w,x notin (abc,def),z in ()'],
    ['notin=in', 'notin=in'],
    ['app.kubernetes.io/name in (sandbox, router)', 'app.kubernetes.io/name in (router,sandbox)'],
  ])('%j → %j', (input, canonical) => {
    expect(parseLabelSelector(input).toString()).toBe(canonical);
  });

  it('reports requirements sorted by key with their operators', () => {
    const sel = parseLabelSelector('b notin (y,x),a==1,!c,d');
    expect(sel.requirements()).toEqual([
      { key: 'a', operator: '==', values: ['1'] },
      { key: 'b', operator: 'notin', values: ['x', 'y'] },
      { key: 'c', operator: '!', values: [] },
      { key: 'd', operator: 'exists', values: [] },
    ]);
    expect(sel.isEmpty()).toBe(false);
    expect(parseLabelSelector('').isEmpty()).toBe(true);
    expect(sel.requiresExactMatch('a')).toBe('1');
    expect(sel.requiresExactMatch('b')).toBeUndefined();
    expect(parseLabelSelector('x in (only)').requiresExactMatch('x')).toBe('only');
  });
});

describe('parseLabelSelector: errors carry kube-apiserver messages', () => {
  it.each([
    ['x=a=b', "found '=', expected: ',' or 'end of string'"],
    [
      'x=a||y=b',
      `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LABEL_VALUE}`,
    ],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['=x', "found '=', expected: !, identifier, or 'end of string'"],
    ['x,', "found '', expected: identifier after ','"],
    ['x,,y', "found ',', expected: identifier after ','"],
    ['x in', "unable to parse requirement: found '' expected: '('"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (,', "unable to parse requirement: found '', expected: ',', or identifier"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['x (', "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['x!==a', "unable to parse requirement: found '=', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!=a', "found '!=', expected: !, identifier, or 'end of string'"],
    ['x<-5', `unable to parse requirement: values[0][x]: Invalid value: "-5": ${LABEL_VALUE}`],
    ['-x', `unable to parse requirement: <nil>: Invalid value: "-x": ${NAME_PART}`],
    ['app:web', `unable to parse requirement: <nil>: Invalid value: "app:web": ${NAME_PART}`],
    ['A/b', `unable to parse requirement: <nil>: Invalid value: "A/b": ${PREFIX_PART}`],
    [
      '/b',
      'unable to parse requirement: <nil>: Invalid value: "/b": prefix part must be non-empty',
    ],
    [
      'a/',
      `unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; ${NAME_PART}`,
    ],
    [
      'a/b/c',
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    [
      `${'k'.repeat(64)}=v`,
      `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`,
    ],
    ['x=-a', `unable to parse requirement: values[0][x]: Invalid value: "-a": ${LABEL_VALUE}`],
    [
      'x in (a,-b)',
      `unable to parse requirement: values[0][x]: Invalid value: "-b": ${LABEL_VALUE}`,
    ],
    [
      'x in (-a,-b)',
      `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${LABEL_VALUE}, values[1][x]: Invalid value: "-b": ${LABEL_VALUE}]`,
    ],
    [
      `x=${'v'.repeat(64)}`,
      `unable to parse requirement: values[0][x]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
    ],
    [
      'x>a',
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'x<',
      `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    [
      'x="a"',
      `unable to parse requirement: values[0][x]: Invalid value: "\\"a\\"": ${LABEL_VALUE}`,
    ],
  ])('%j', (input, message) => {
    const err = parseError(input);
    expect(err.code).toBe('InvalidLabelSelector');
    expect(err.message).toBe(message);
  });
});

describe('LabelSelector.matches', () => {
  const labels = { app: 'web', tier: 'front', n: '7' };
  it.each([
    ['', labels, true],
    ['', undefined, true],
    ['app=web', labels, true],
    ['app==web', labels, true],
    ['app=db', labels, false],
    ['app!=db', labels, true],
    ['missing!=x', labels, true],
    ['app!=web', labels, false],
    ['app in (db,web)', labels, true],
    ['app in (db)', labels, false],
    ['missing in (x)', labels, false],
    ['app notin (web)', labels, false],
    ['missing notin (x)', labels, true],
    ['app', labels, true],
    ['missing', labels, false],
    ['!missing', labels, true],
    ['!app', labels, false],
    ['app=web,tier=front', labels, true],
    ['app=web,tier=back', labels, false],
    ['n>5', labels, true],
    ['n<5', labels, false],
    ['app>5', labels, false],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x in ()', { x: '' }, true],
    ['app', undefined, false],
    ['!app', undefined, true],
  ])('%j on %j → %s', (selector, l, want) => {
    expect(parseLabelSelector(selector).matches(l)).toBe(want);
  });
});

function objectError(sel: LabelSelectorObject): SelectorError {
  try {
    labelSelectorFromObject(sel);
  } catch (err: unknown) {
    if (err instanceof SelectorError) return err;
    throw err;
  }
  throw new Error('expected an error');
}

describe('labelSelectorFromObject (metav1.LabelSelectorAsSelector)', () => {
  it.each<[string, LabelSelectorObject | null | undefined, string]>([
    ['empty object is Everything', {}, ''],
    ['matchLabels', { matchLabels: { b: '2', a: '1' } }, 'a=1,b=2'],
    [
      'all operators',
      {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['front', 'back'] },
          { key: 'env', operator: 'NotIn', values: ['prod'] },
          { key: 'owner', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist', values: [] },
        ],
      },
      'app=web,env notin (prod),!legacy,owner,tier in (back,front)',
    ],
  ])('%s', (_name, sel, canonical) => {
    expect(labelSelectorFromObject(sel).toString()).toBe(canonical);
  });

  it('treats null and undefined as Nothing and {} as Everything', () => {
    expect(labelSelectorFromObject(null).matches({ a: 'b' })).toBe(false);
    expect(labelSelectorFromObject(undefined).matches(undefined)).toBe(false);
    expect(labelSelectorFromObject(null).isEmpty()).toBe(false);
    expect(labelSelectorFromObject({}).matches(undefined)).toBe(true);
    expect(labelSelectorFromObject({ matchLabels: {}, matchExpressions: [] }).isEmpty()).toBe(true);
  });

  it('matches like the parsed form', () => {
    const sel = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }],
    });
    expect(sel.matches({ app: 'web' })).toBe(true);
    expect(sel.matches({ app: 'web', tier: 'db' })).toBe(false);
    expect(sel.matches({ tier: 'front' })).toBe(false);
  });

  it.each<[string, LabelSelectorObject, string]>([
    [
      'unknown operator',
      { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
      '"Gt" is not a valid label selector operator',
    ],
    [
      'In without values',
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'NotIn with an empty list',
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x', 'y'] }] },
      'values: Invalid value: ["x","y"]: values set must be empty for exists and does not exist',
    ],
    [
      'bad key',
      { matchExpressions: [{ key: '-a', operator: 'Exists' }] },
      `key: Invalid value: "-a": ${NAME_PART}`,
    ],
    [
      'bad matchLabels value',
      { matchLabels: { a: '-b' } },
      `values[0][a]: Invalid value: "-b": ${LABEL_VALUE}`,
    ],
    [
      'bad key and value together',
      { matchLabels: { '-a': '-b' } },
      `[key: Invalid value: "-a": ${NAME_PART}, values[0][-a]: Invalid value: "-b": ${LABEL_VALUE}]`,
    ],
  ])('%s', (_name, sel, message) => {
    const err = objectError(sel);
    expect(err.code).toBe('InvalidLabelSelectorObject');
    expect(err.message).toBe(message);
  });
});

describe('formatting helpers used by printers', () => {
  it('formatLabels', () => {
    expect(formatLabels({ b: '2', a: '1' })).toBe('a=1,b=2');
    expect(formatLabels({})).toBe('<none>');
    expect(formatLabels(undefined)).toBe('<none>');
  });

  it('formatLabelSelector', () => {
    expect(formatLabelSelector({ matchLabels: { app: 'web' } })).toBe('app=web');
    expect(formatLabelSelector({})).toBe('<none>');
    expect(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bad' }] })).toBe(
      '<error>',
    );
  });
});
