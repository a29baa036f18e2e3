import type { CustomResourceDefinition, JSONSchemaProps } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { crdDefinitionName, crdKindSchema, crdListSchema } from './crd-definitions.ts';

function crd(
  schema: JSONSchemaProps,
  extra: Partial<CustomResourceDefinition['spec']> = {},
): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          selectableFields: [{ jsonPath: '.spec.color' }],
        },
      ],
      ...extra,
    },
  };
}

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['color'],
      properties: {
        color: { type: 'string', enum: ['red', 'blue'], maxLength: 10 },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true },
        extra: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { a: { type: 'string' } },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object' } },
        },
      },
    },
  },
};

describe('CRD component schemas', () => {
  it('names definitions by reversed group', () => {
    expect(crdDefinitionName('agents.x-k8s.io', 'v1beta1', 'Sandbox')).toBe(
      'io.x-k8s.agents.v1beta1.Sandbox',
    );
  });

  it('renders v3 as the apiextensions builder does', () => {
    const s = crdKindSchema(crd(schema), 'v1', 'v3');
    const props = s['properties'] as Record<string, Record<string, unknown>>;
    expect(props['metadata']).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      description: expect.stringContaining("Standard object's metadata"),
    });
    const spec = props['spec'] as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(spec.properties['port']?.['anyOf']).toEqual([{ type: 'integer' }, { type: 'string' }]);
    expect(spec.properties['color']?.['enum']).toEqual(['red', 'blue']);
    expect(spec.required).toEqual(['color']);
    const template = spec.properties['template'] as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(template.properties).sort()).toEqual([
      'apiVersion',
      'kind',
      'metadata',
      'spec',
    ]);
    expect(template.required).toEqual(['kind', 'apiVersion']);
    expect(s['x-kubernetes-group-version-kind']).toEqual([
      { group: 'example.com', kind: 'Widget', version: 'v1' },
    ]);
    expect(s['x-kubernetes-selectable-fields']).toEqual([{ fieldPath: 'spec.color' }]);
  });

  it('renders v2 without value validations, nullable or preserved subtrees, as kubectl v2 validation needs', () => {
    const s = crdKindSchema(crd(schema), 'v1', 'v2');
    const props = s['properties'] as Record<string, Record<string, unknown>>;
    expect(props['metadata']).toEqual({
      $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      description: expect.stringContaining("Standard object's metadata"),
    });
    const spec = props['spec'] as {
      properties: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    expect(spec.required).toBeUndefined();
    expect(spec.properties['color']).toEqual({ type: 'string' });
    expect(spec.properties['port']).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(spec.properties['note']).toEqual({ type: 'string' });
    expect(spec.properties['extra']).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
    expect(s['x-kubernetes-selectable-fields']).toBeUndefined();
  });

  it('publishes a bare object in v2 when the whole kind preserves unknown fields', () => {
    const s = crdKindSchema(
      crd({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }),
      'v1',
      'v2',
    );
    expect(s).toEqual({
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Widget', version: 'v1' }],
    });
  });

  it('builds the list kind', () => {
    const s = crdListSchema(crd(schema), 'v1', 'v2');
    expect(s['x-kubernetes-group-version-kind']).toEqual([
      { group: 'example.com', kind: 'WidgetList', version: 'v1' },
    ]);
    expect(
      (s['properties'] as Record<string, Record<string, unknown>>)['items']?.['items'],
    ).toEqual({ $ref: '#/definitions/com.example.v1.Widget' });
  });
});
