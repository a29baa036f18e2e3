// Cases restated from client-go's util/jsonpath tests (TestJSONInput, TestKubernetes, ...),
// run against JSON-decoded input the way kubectl and the table convertor see it.
import { describe, expect, it } from 'vitest';
import { JsonPathError } from './errors.ts';
import { parseJsonPathTemplate } from './evaluate.ts';

const nodes = {
  kind: 'List',
  items: [
    {
      kind: 'None',
      metadata: { name: '127.0.0.1', labels: { 'kubernetes.io/hostname': '127.0.0.1' } },
      status: {
        capacity: { cpu: '4' },
        ready: true,
        addresses: [{ type: 'LegacyHostIP', address: '127.0.0.1' }],
      },
    },
    {
      kind: 'None',
      metadata: { name: '127.0.0.2', labels: { 'kubernetes.io/hostname': '127.0.0.2' } },
      status: {
        capacity: { cpu: '8' },
        ready: false,
        addresses: [
          { type: 'LegacyHostIP', address: '127.0.0.2' },
          { type: 'another', address: '127.0.0.3' },
        ],
      },
    },
  ],
  users: [
    { name: 'myself', user: {} },
    { name: 'e2e', user: { username: 'admin', password: 'secret' } },
  ],
};

const points = [
  { id: 'i1', x: 4, y: -5 },
  { id: 'i2', x: -2, y: -5, z: 1 },
  { id: 'i3', x: 8, y: 3 },
  { id: 'i5', x: 0, y: 2, z: 1 },
];

describe('client-go jsonpath cases', () => {
  it.each<[string, unknown, string]>([
    ['hello jsonpath', null, 'hello jsonpath'],
    ['{..}', [1, 2, 3], '[1,2,3]'],
    ['{[?(@<5)]}', [2, 6, 3, 7], '2 3'],
    ['{"{"}', null, '{'],
    ['{[1,3,4]}', [0, 1, 2, 3, 4], '1 3 4'],
    ['{[0:2]}', ['Monday', 'Tuesday'], 'Monday Tuesday'],
    ['{[?(@.z)].id}', points, 'i2 i5'],
    ["{[0]['id']}", points, 'i1'],
    ['{range .items[*]}{.metadata.name}, {end}{.kind}', nodes, '127.0.0.1, 127.0.0.2, List'],
    ['{range .items[*]}{.metadata.name}{"\\t"}{end}', nodes, '127.0.0.1\t127.0.0.2\t'],
    ['{.items[*].status.addresses[*].address}', nodes, '127.0.0.1 127.0.0.2 127.0.0.3'],
    [
      '{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}',
      nodes,
      '127.0.0.1, 127.0.0.2, 127.0.0.3, ',
    ],
    [
      "{.items[*]['metadata.name', 'status.capacity']}",
      nodes,
      '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}',
    ],
    [
      '{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}',
      nodes,
      '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] ',
    ],
    ['{.users[?(@.name=="e2e")].user.password}', nodes, 'secret'],
    ['{.items[0].metadata.labels.kubernetes\\.io/hostname}', nodes, '127.0.0.1'],
    ['{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', nodes, 'None'],
    ['{.items[?(@..ready==true)].metadata.name}', nodes, '127.0.0.1'],
    ['{..name}', nodes, '127.0.0.1 127.0.0.2 myself e2e'],
    ['{range .items[*]}{.metadata.name}{end}', { items: [] }, ''],
    ['before-{.hello}after', nodes, 'before-after'],
    ['{...name}', { a: { name: 'x' } }, 'x'],
  ])('%s', (template, data, want) => {
    expect(parseJsonPathTemplate(template).print(data)).toBe(want);
  });

  it.each([
    ['{hello}', 'unrecognized identifier hello'],
    ['{.hello}', 'hello is not found'],
    ['{.items[0].metadata.labels[0]}', 'map[string]interface {} is not array or slice'],
    ['{.items[?(@.kind<>10)]}', 'unrecognized filter operator <>'],
    ['{range .items[*]}{@}{end}{end}', 'not in range, nothing to end'],
  ])('%s fails with %j', (template, message) => {
    let err: unknown;
    try {
      parseJsonPathTemplate(template, { allowMissingKeys: false }).print(nodes);
    } catch (e: unknown) {
      err = e;
    }
    expect(err).toBeInstanceOf(JsonPathError);
    expect((err as JsonPathError).message).toBe(message);
  });

  it('rejects a recursive descent run', () => {
    expect(() => parseJsonPathTemplate('{....Price}')).toThrow(
      'invalid multiple recursive descent',
    );
  });
});
