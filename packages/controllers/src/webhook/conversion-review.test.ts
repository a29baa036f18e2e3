// The conversion webhook's review handler (spec §17): every kind both ways through a real
// ConversionReview, lossless v1alpha1 round trips, and Failure results for bad input.
import { describe, expect, it } from 'vitest';
import { V1ALPHA1_SANDBOX_STATE_ANNOTATION } from '@agent-sandbox/api';
import type { KubeObject } from '@agent-sandbox/kube-types';
import {
  CONVERSION_REVIEW_VERSIONS,
  ConversionReviewError,
  reviewConversion,
  type ConversionReviewVersion,
} from './conversion-review.ts';

const SB = 'agents.x-k8s.io';
const EXT = 'extensions.agents.x-k8s.io';
const podTemplate = { spec: { containers: [{ name: 'agent', image: 'python:3.12-slim' }] } };

function meta(name: string): KubeObject['metadata'] {
  return {
    name,
    namespace: 'team-a',
    uid: `uid-${name}`,
    resourceVersion: '42',
    labels: { app: name },
    annotations: { 'example.com/owner': 'alice' },
  };
}

/** One v1alpha1 object per kind, with the fields where the versions differ. */
const V1ALPHA1: Record<string, KubeObject> = {
  Sandbox: {
    apiVersion: `${SB}/v1alpha1`,
    kind: 'Sandbox',
    metadata: meta('sb'),
    spec: { podTemplate, replicas: 0 },
  } as KubeObject,
  SandboxTemplate: {
    apiVersion: `${EXT}/v1alpha1`,
    kind: 'SandboxTemplate',
    metadata: meta('tpl'),
    spec: { podTemplate },
  } as KubeObject,
  SandboxClaim: {
    apiVersion: `${EXT}/v1alpha1`,
    kind: 'SandboxClaim',
    metadata: meta('claim'),
    spec: { sandboxTemplateRef: { name: 'tpl' } },
  } as KubeObject,
  SandboxWarmPool: {
    apiVersion: `${EXT}/v1alpha1`,
    kind: 'SandboxWarmPool',
    metadata: meta('pool'),
    spec: { replicas: 3, sandboxTemplateRef: { name: 'tpl' } },
  } as KubeObject,
};

function review(
  objects: unknown[],
  desiredAPIVersion: string,
  apiVersion: ConversionReviewVersion = 'apiextensions.k8s.io/v1',
): unknown {
  return {
    apiVersion,
    kind: 'ConversionReview',
    request: { uid: 'req-1', desiredAPIVersion, objects },
  };
}

function groupOf(obj: KubeObject): string {
  return (obj.apiVersion ?? '').split('/')[0] as string;
}

describe('reviewConversion: every kind, both directions', () => {
  it.each(Object.keys(V1ALPHA1))('%s v1alpha1 → v1beta1 → v1alpha1 is lossless', (kind) => {
    const original = V1ALPHA1[kind] as KubeObject;
    const group = groupOf(original);
    const up = reviewConversion(review([original], `${group}/v1beta1`), { extensions: true });
    expect(up.response.result).toEqual({ status: 'Success' });
    expect(up.response.uid).toBe('req-1');
    const hub = up.response.convertedObjects[0] as KubeObject;
    expect(hub.apiVersion).toBe(`${group}/v1beta1`);
    expect(hub.kind).toBe(kind);
    expect(hub.metadata.name).toBe(original.metadata.name);
    const down = reviewConversion(review([hub], `${group}/v1alpha1`), { extensions: true });
    expect(down.response.result.status).toBe('Success');
    expect(down.response.convertedObjects).toEqual([original]);
  });

  it('applies the §3.4 field mapping: replicas 0 is operatingMode Suspended and back', () => {
    const up = reviewConversion(review([V1ALPHA1['Sandbox']], `${SB}/v1beta1`));
    const hub = up.response.convertedObjects[0] as KubeObject & { spec: Record<string, unknown> };
    expect(hub.spec['operatingMode']).toBe('Suspended');
    expect(hub.spec).not.toHaveProperty('replicas');
    expect(hub.metadata.annotations).toHaveProperty([V1ALPHA1_SANDBOX_STATE_ANNOTATION]);

    const running = { ...hub, spec: { ...hub.spec, operatingMode: 'Running' } };
    delete running.metadata.annotations?.[V1ALPHA1_SANDBOX_STATE_ANNOTATION];
    const down = reviewConversion(review([running], `${SB}/v1alpha1`));
    const alpha = down.response.convertedObjects[0] as KubeObject & {
      spec: Record<string, unknown>;
    };
    expect(alpha.apiVersion).toBe(`${SB}/v1alpha1`);
    expect(alpha.spec['replicas']).toBe(1);
    expect(alpha.spec).not.toHaveProperty('operatingMode');
  });

  it('converts several objects in order and keeps the request apiVersion', () => {
    for (const version of CONVERSION_REVIEW_VERSIONS) {
      const objects = ['a', 'b', 'c'].map((name) => ({
        ...V1ALPHA1['Sandbox'],
        metadata: meta(name),
      }));
      const out = reviewConversion(review(objects, `${SB}/v1beta1`, version));
      expect(out.apiVersion).toBe(version);
      expect(out.kind).toBe('ConversionReview');
      expect(out.response.convertedObjects.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c']);
    }
  });

  it('returns a deep copy for an object already in the desired version', () => {
    const out = reviewConversion(review([V1ALPHA1['Sandbox']], `${SB}/v1alpha1`));
    expect(out.response.convertedObjects[0]).toEqual(V1ALPHA1['Sandbox']);
    expect(out.response.convertedObjects[0]).not.toBe(V1ALPHA1['Sandbox']);
  });
});

describe('reviewConversion: failures go in response.result', () => {
  it.each(['SandboxTemplate', 'SandboxClaim', 'SandboxWarmPool'])(
    '%s fails without --extensions',
    (kind) => {
      const out = reviewConversion(review([V1ALPHA1[kind]], `${EXT}/v1beta1`));
      expect(out.response.result.status).toBe('Failure');
      expect(out.response.result.message).toContain(`kind ${kind}`);
      expect(out.response.result.message).toContain('--extensions');
      expect(out.response.convertedObjects).toEqual([]);
    },
  );

  it('names the object and the field of a corrupt state annotation', () => {
    const hub = {
      apiVersion: `${SB}/v1beta1`,
      kind: 'Sandbox',
      metadata: {
        ...meta('broken'),
        annotations: { [V1ALPHA1_SANDBOX_STATE_ANNOTATION]: '{not json' },
      },
      spec: { podTemplate },
    };
    const out = reviewConversion(review([V1ALPHA1['Sandbox'], hub], `${SB}/v1alpha1`));
    expect(out.response.result.status).toBe('Failure');
    expect(out.response.result.message).toMatch(/^objects\[1\] Sandbox team-a\/broken: /);
    expect(out.response.result.message).toContain(V1ALPHA1_SANDBOX_STATE_ANNOTATION);
    expect(out.response.convertedObjects).toEqual([]);
  });

  it.each([
    ['an unserved desired version', [V1ALPHA1['Sandbox']], `${SB}/v2`, /served versions are/],
    [
      'a desired version of the wrong group',
      [V1ALPHA1['Sandbox']],
      `${EXT}/v1beta1`,
      /apiVersion "extensions/,
    ],
    [
      'an unknown kind',
      [{ apiVersion: `${SB}/v1alpha1`, kind: 'Pod', metadata: {}, spec: {} }],
      `${SB}/v1beta1`,
      /kind "Pod"/,
    ],
    [
      'an object without spec',
      [{ apiVersion: `${SB}/v1alpha1`, kind: 'Sandbox', metadata: { name: 'x' } }],
      `${SB}/v1beta1`,
      /objects\[0\] Sandbox x: .*spec is not an object/,
    ],
    ['a non-object', [42], `${SB}/v1beta1`, /^objects\[0\]: .*not a JSON object/],
    ['no desiredAPIVersion', [V1ALPHA1['Sandbox']], '', /request\.desiredAPIVersion is missing/],
  ])('%s', (_title, objects, desired, message) => {
    const out = reviewConversion(review(objects, desired));
    expect(out.response.result.status).toBe('Failure');
    expect(out.response.result.message).toMatch(message);
    expect(out.response.uid).toBe('req-1');
  });

  it('fails a review whose objects is not a list', () => {
    const body = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'u', desiredAPIVersion: `${SB}/v1beta1` },
    };
    expect(reviewConversion(body).response.result).toEqual({
      status: 'Failure',
      message: 'request.objects is missing or not a list: send the objects to convert',
    });
  });

  it.each([
    ['a string', 'hello', /not a JSON ConversionReview/],
    [
      'another kind',
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'AdmissionReview' },
      /got kind "AdmissionReview"/,
    ],
    [
      'an unknown review version',
      { apiVersion: 'apiextensions.k8s.io/v2', kind: 'ConversionReview' },
      /apiVersion "apiextensions.k8s.io\/v2"/,
    ],
    [
      'no uid',
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: {} },
      /request\.uid/,
    ],
  ])('throws ConversionReviewError for %s', (_title, body, message) => {
    expect(() => reviewConversion(body)).toThrow(ConversionReviewError);
    expect(() => reviewConversion(body)).toThrow(message);
  });
});
