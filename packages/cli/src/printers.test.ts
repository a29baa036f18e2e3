import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { memoryIO } from './io.ts';
import { printObjects, qualifiedName } from './printers.ts';

const sandbox = (name: string, phase: string) => ({
  apiVersion: 'agents.x-k8s.io/v1beta1',
  kind: 'Sandbox',
  metadata: { name, namespace: 'default' },
  status: { phase },
});

describe('printers', () => {
  const objects = [sandbox('a', 'Running'), sandbox('longer-name', 'Pending')];
  const columns = [{ header: 'phase', value: (o: (typeof objects)[number]) => o.status.phase }];

  it('prints a padded table with upper-case headers, NAME first', () => {
    const io = memoryIO();
    printObjects(objects, io, { format: 'table', columns });
    expect(io.out()).toBe('NAME          PHASE\na             Running\nlonger-name   Pending\n');
  });

  it('says "No resources found" on stderr for an empty table', () => {
    const io = memoryIO();
    printObjects([], io, { format: 'table', columns });
    expect([io.out(), io.err()]).toEqual(['', 'No resources found\n']);
  });

  it('prints JSON and YAML as a v1 List, or one object when asked', () => {
    const json = memoryIO();
    printObjects(objects, json, { format: 'json' });
    expect(JSON.parse(json.out())).toMatchObject({ kind: 'List', items: objects });
    const yaml = memoryIO();
    printObjects([objects[0]!], yaml, { format: 'yaml', asList: false });
    expect(parse(yaml.out())).toEqual(objects[0]);
  });

  it('prints kind.group/name, core kinds without a group', () => {
    const io = memoryIO();
    printObjects(objects, io, { format: 'name' });
    expect(io.out()).toBe('sandbox.agents.x-k8s.io/a\nsandbox.agents.x-k8s.io/longer-name\n');
    expect(qualifiedName({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } })).toBe('pod/p');
  });
});
