import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { fieldElement, keyElement, schemaAt } from './field-set.ts';
import {
  builtinDefinitionNames,
  builtinMergeSchema,
  crdMergeSchema,
  type MergeSchema,
} from './merge-schema.ts';

function at(schema: MergeSchema, ...path: (string | '[]')[]): MergeSchema {
  let node = schema;
  for (const p of path) {
    const next = p === '[]' ? node.items() : (node.field(p) ?? node.elements());
    if (next === undefined) throw new Error(`no schema at ${path.join('.')}`);
    node = next;
  }
  return node;
}

const pod = builtinMergeSchema('io.k8s.api.core.v1.Pod');

describe('builtinMergeSchema (k8s OpenAPI, lazily resolved)', () => {
  const cases: {
    path: string[];
    kind: string;
    listType?: string;
    keys?: string[];
    strategies?: string[];
    mergeKey?: string;
    mapType?: string;
  }[] = [
    {
      path: ['spec', 'containers'],
      kind: 'list',
      listType: 'map',
      keys: ['name'],
      strategies: ['merge'],
      mergeKey: 'name',
    },
    {
      path: ['spec', 'containers', '[]', 'ports'],
      kind: 'list',
      listType: 'map',
      keys: ['containerPort', 'protocol'],
      mergeKey: 'containerPort',
    },
    {
      path: ['spec', 'volumes'],
      kind: 'list',
      listType: 'map',
      strategies: ['merge', 'retainKeys'],
    },
    { path: ['spec', 'tolerations'], kind: 'list', listType: 'atomic', strategies: [] },
    { path: ['spec', 'containers', '[]', 'args'], kind: 'list', listType: 'atomic' },
    { path: ['metadata', 'finalizers'], kind: 'list', listType: 'set', strategies: ['merge'] },
    { path: ['metadata', 'labels'], kind: 'map', mapType: 'granular' },
    { path: ['metadata', 'labels', 'app'], kind: 'scalar' },
    { path: ['metadata', 'ownerReferences'], kind: 'list', listType: 'map', keys: ['uid'] },
    { path: ['metadata', 'ownerReferences', '[]'], kind: 'map', mapType: 'atomic' },
    { path: ['spec', 'affinity', 'nodeAffinity'], kind: 'map', mapType: 'granular' },
    {
      path: ['spec', 'containers', '[]', 'env', '[]', 'valueFrom', 'secretKeyRef'],
      kind: 'map',
      mapType: 'atomic',
    },
    { path: ['spec', 'containers', '[]', 'resources', 'limits', 'cpu'], kind: 'scalar' },
    { path: ['spec', 'containers', '[]', 'ports', '[]', 'containerPort'], kind: 'scalar' },
    { path: ['spec', 'containers', '[]', 'livenessProbe', 'httpGet', 'port'], kind: 'scalar' },
    { path: ['status', 'conditions'], kind: 'list', listType: 'map', keys: ['type'] },
  ];
  it.each(cases)('$path', (c) => {
    const node = at(pod, ...c.path);
    expect(node.kind).toBe(c.kind);
    if (c.listType !== undefined) expect(node.listType).toBe(c.listType);
    if (c.keys !== undefined) expect(node.listMapKeys).toEqual(c.keys);
    if (c.strategies !== undefined) expect(node.patchStrategies).toEqual(c.strategies);
    if (c.mergeKey !== undefined) expect(node.patchMergeKey).toBe(c.mergeKey);
    if (c.mapType !== undefined) expect(node.mapType).toBe(c.mapType);
  });

  it('resolves field paths with schemaAt', () => {
    const f = fieldElement;
    const port = schemaAt(pod, [
      f('spec'),
      f('containers'),
      keyElement([['name', 'a']]),
      f('ports'),
    ]);
    expect(port.listMapKeys).toEqual(['containerPort', 'protocol']);
    expect(schemaAt(pod, [f('spec'), f('nope'), f('deeper')]).kind).toBe('deduced');
  });

  it('knows list-map key defaults (ports protocol defaults to TCP)', () => {
    expect(at(pod, 'spec', 'containers', '[]', 'ports', '[]', 'protocol').defaultValue).toBe('TCP');
  });

  it('marks value-struct fields present in the zero object', () => {
    expect(pod.field('spec')?.presentWhenZero).toBe(true);
    expect(pod.field('metadata')?.presentWhenZero).toBe(true);
    expect(at(pod, 'spec', 'securityContext').presentWhenZero).toBe(false);
  });

  it('resolves every definition we carry, including recursive ones', () => {
    for (const name of builtinDefinitionNames()) {
      const s = builtinMergeSchema(name);
      for (const f of s.fieldNames()) expect(s.field(f)).toBeDefined();
    }
    expect(at(pod, 'metadata', 'managedFields', '[]', 'fieldsV1').kind).toBe('deduced');
    expect(pod.strategicMergePatch).toBe(true);
  });

  it('throws for an unknown definition', () => {
    expect(() => builtinMergeSchema('io.k8s.api.apps.v1.Nope')).toThrow(
      /unknown OpenAPI definition/,
    );
  });
});

describe('crdMergeSchema (structural schema)', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          args: { type: 'array', items: { type: 'string' } },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['port', 'protocol'],
            items: {
              type: 'object',
              properties: {
                port: { type: 'integer' },
                protocol: { type: 'string', default: 'TCP' },
              },
            },
          },
          selector: {
            type: 'object',
            'x-kubernetes-map-type': 'atomic',
            additionalProperties: { type: 'string' },
          },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          size: { 'x-kubernetes-int-or-string': true },
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: {} },
        },
      },
    },
  };
  const cr = crdMergeSchema(schema);

  it('defaults lists to atomic and maps to granular', () => {
    expect(at(cr, 'spec', 'args').listType).toBe('atomic');
    expect(at(cr, 'spec').mapType).toBe('granular');
  });

  it('reads list and map types', () => {
    expect(at(cr, 'spec', 'tags').listType).toBe('set');
    expect(at(cr, 'spec', 'ports').listMapKeys).toEqual(['port', 'protocol']);
    expect(at(cr, 'spec', 'selector').mapType).toBe('atomic');
  });

  it('treats preserve-unknown-fields as deduced and int-or-string as a scalar', () => {
    expect(at(cr, 'spec', 'extra').kind).toBe('deduced');
    expect(at(cr, 'spec', 'size').kind).toBe('scalar');
  });

  it('adds ObjectMeta at the root and in embedded resources', () => {
    expect(at(cr, 'metadata', 'finalizers').listType).toBe('set');
    expect(at(cr, 'spec', 'template', 'metadata', 'labels').kind).toBe('map');
    expect(at(cr, 'apiVersion').kind).toBe('scalar');
  });

  it('does not support strategic merge patch', () => {
    expect(cr.strategicMergePatch).toBe(false);
    expect(at(cr, 'spec', 'extra').strategicMergePatch).toBe(false);
  });
});
