// Shared fixtures for the SSA tests: a Deployment-like custom resource (we carry no apps/v1
// OpenAPI) whose structural schema exercises every list and map type.
import type { JSONSchemaProps } from '@agent-sandbox/kube-types';
import { crdMergeSchema } from './merge-schema.ts';

const container: JSONSchemaProps = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    image: { type: 'string' },
    args: { type: 'array', items: { type: 'string' } },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      items: {
        type: 'object',
        properties: {
          containerPort: { type: 'integer' },
          protocol: { type: 'string', default: 'TCP' },
          name: { type: 'string' },
        },
      },
    },
  },
};

export const widgetSchema = crdMergeSchema({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        paused: { type: 'boolean' },
        selector: {
          type: 'object',
          'x-kubernetes-map-type': 'atomic',
          additionalProperties: { type: 'string' },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        containers: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: container,
        },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'integer' } } },
  },
});

export const T0 = '2025-01-02T03:04:05Z';
export const T1 = '2025-01-02T03:05:00Z';
export const T2 = '2025-01-02T03:06:00Z';

/** A Widget with the given spec. */
export function widget(spec: Record<string, unknown>, extraMeta: Record<string, unknown> = {}) {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'default', ...extraMeta },
    spec,
  };
}
