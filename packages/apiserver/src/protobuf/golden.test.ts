// Exactness against the real Kubernetes Go types: testdata/golden.json holds, for every object in
// testdata/objects.json, the protobuf body k8s.io/api v0.36.3 marshals and the JSON kube-apiserver
// prints for the object decoded from it (regenerate with `npx tsx scripts/protobuf/golden.ts`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from './index.ts';

interface Golden {
  name: string;
  protobuf: string;
  json: Record<string, unknown>;
  jsonFromProtobuf: Record<string, unknown>;
}

const goldens = JSON.parse(
  readFileSync(new URL('./testdata/golden.json', import.meta.url), 'utf8'),
) as Golden[];

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('agrees with the Kubernetes Go types', () => {
  it('covers every kind we serve', () => {
    const kinds = new Set(
      goldens.map((g) => `${g.json.apiVersion as string}/${g.json.kind as string}`),
    );
    expect([...kinds].sort()).toEqual(
      [
        'apiextensions.k8s.io/v1/CustomResourceDefinition',
        'authentication.k8s.io/v1/TokenRequest',
        'authentication.k8s.io/v1/TokenReview',
        'coordination.k8s.io/v1/Lease',
        'events.k8s.io/v1/Event',
        'networking.k8s.io/v1/NetworkPolicy',
        'v1/Binding',
        'v1/ConfigMap',
        'v1/ConfigMapList',
        'v1/DeleteOptions',
        'v1/Endpoints',
        'v1/Event',
        'v1/EventList',
        'v1/Namespace',
        'v1/PersistentVolumeClaim',
        'v1/Pod',
        'v1/Secret',
        'v1/Service',
        'v1/ServiceAccount',
        'v1/Status',
      ].sort(),
    );
  });

  describe.each(goldens)('$name', (g) => {
    it('decodes the Go protobuf body to the JSON kube-apiserver prints', () => {
      const decoded = decodeProtobufObject(Buffer.from(g.protobuf, 'hex'));
      expect(decoded).toStrictEqual(g.jsonFromProtobuf);
      expect(JSON.stringify(decoded)).toBe(JSON.stringify(g.jsonFromProtobuf)); // key order too
    });

    it('encodes the JSON to the exact bytes Go marshals', () => {
      expect(hex(encodeProtobufObject(g.json))).toBe(g.protobuf);
    });

    it('round-trips JSON → protobuf → JSON', () => {
      const decoded = decodeProtobufObject(encodeProtobufObject(g.json));
      expect(decoded).toStrictEqual(g.jsonFromProtobuf);
      expect(hex(encodeProtobufObject(decoded))).toBe(g.protobuf);
    });
  });
});
