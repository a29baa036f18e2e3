import { describe, expect, it } from 'vitest';
import { apply, type ApplyOptions } from './apply.ts';
import { PatchError } from './errors.ts';
import { FieldSet, fieldElement } from './field-set.ts';
import type { JsonObject } from './json-value.ts';
import { ApplyConflictError } from './ownership.ts';
import { T0, T1, T2, widget, widgetSchema } from './test-schemas.ts';
import { updateManagedFields } from './update.ts';

const opts = (manager: string, now = T0, extra: Partial<ApplyOptions> = {}): ApplyOptions => ({
  manager,
  force: false,
  apiVersion: 'example.com/v1',
  schema: widgetSchema,
  now,
  ...extra,
});

function spec(obj: JsonObject): unknown {
  return obj.spec;
}

function conflict(fn: () => unknown): ApplyConflictError {
  try {
    fn();
  } catch (err: unknown) {
    if (err instanceof ApplyConflictError) return err;
    throw err;
  }
  throw new Error('expected an apply conflict');
}

describe('apply: edges', () => {
  it('clears a field applied as null', () => {
    const a = apply(undefined, widget({ replicas: 1, paused: true }), opts('a'));
    const a2 = apply(a.object, widget({ replicas: null, paused: true }), opts('a', T1));
    expect(spec(a2.object)).toEqual({ paused: true });
  });

  it('conflicts with before-first-apply when changing an unmanaged object', () => {
    const err = conflict(() => apply(widget({ replicas: 1 }), widget({ replicas: 2 }), opts('m')));
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "before-first-apply" using example.com/v1: .spec.replicas',
    );
  });

  it('keeps live list items that have no key instead of dropping them', () => {
    const live = widget({ containers: [{ image: 'orphan' }, { name: 'a', image: '1' }] });
    const a = apply(live, widget({ containers: [{ name: 'a', image: '1' }] }), opts('m'));
    expect(spec(a.object)).toEqual({
      containers: [{ image: 'orphan' }, { name: 'a', image: '1' }],
    });
  });

  it('records a status-subresource apply separately and ignores reset fields', () => {
    const a = apply(undefined, widget({ replicas: 1 }), opts('ctrl'));
    const body = { ...widget({ replicas: 9 }), status: { ready: 1 } };
    const reset = FieldSet.fromPaths([[fieldElement('spec')]]);
    const st = apply(
      a.object,
      body,
      opts('ctrl', T1, { subresource: 'status', ignoredFields: reset }),
    );
    expect(st.managedFields.map((e) => [e.manager, e.subresource, e.fieldsV1])).toEqual([
      ['ctrl', undefined, { 'f:spec': { 'f:replicas': {} } }],
      ['ctrl', 'status', { 'f:status': { 'f:ready': {} } }],
    ]);
  });

  it('orders merged list maps: shared items follow the applied order, live-only keep place', () => {
    const live = apply(
      undefined,
      widget({ containers: [{ name: 'a' }, { name: 'x' }, { name: 'b' }] }),
      opts('other'),
    );
    const out = apply(
      live.object,
      widget({ containers: [{ name: 'b' }, { name: 'c' }, { name: 'a' }] }),
      opts('m', T1),
    );
    expect(((out.object.spec as JsonObject).containers as JsonObject[]).map((c) => c.name)).toEqual(
      ['x', 'b', 'c', 'a'],
    );
  });

  it('keeps the client-side-apply annotation in sync for kubectl (lastAppliedUpdater)', () => {
    const key = 'kubectl.kubernetes.io/last-applied-configuration';
    const live = widget({ replicas: 1 }, { annotations: { [key]: '{"old":true}\n', a: 'b' } });
    const body = widget({ replicas: 2, paused: true });
    const out = apply(live, body, opts('kubectl', T1, { force: true }));
    const annotations = (out.object.metadata as JsonObject).annotations as Record<string, string>;
    expect(annotations.a).toBe('b');
    expect(annotations[key]).toBe(
      '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},' +
        '"spec":{"paused":true,"replicas":2}}\n',
    );
    const other = apply(live, body, opts('helm', T1, { force: true }));
    expect(((other.object.metadata as JsonObject).annotations as JsonObject)[key]).toBe(
      '{"old":true}\n',
    );
  });

  it('rejects a body whose apiVersion is not the request version (400)', () => {
    let caught: unknown;
    try {
      apply(undefined, { ...widget({}), apiVersion: 'example.com/v2' }, opts('m'));
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PatchError);
    expect(caught).toMatchObject({
      statusCode: 400,
      reason: 'BadRequest',
      message:
        'Incorrect version specified in apply patch. Specified patch version: example.com/v2, expected: example.com/v1',
    });
  });

  it('rejects a body of another kind when the kind is known (400)', () => {
    expect(() =>
      apply(undefined, { ...widget({}), kind: 'Gadget' }, opts('m', T0, { kind: 'Widget' })),
    ).toThrowError(
      expect.objectContaining({
        statusCode: 400,
        message: 'invalid object type: example.com/v1, Kind=Gadget',
      }),
    );
  });

  it('records a nameless manager as "unknown"', () => {
    expect(apply(undefined, widget({ replicas: 1 }), opts('')).managedFields[0]?.manager).toBe(
      'unknown',
    );
  });

  it('lets kubectl take over fields its client-side last-applied-configuration still matches', () => {
    const key = 'kubectl.kubernetes.io/last-applied-configuration';
    const config = widget({ replicas: 1, paused: true });
    const csa = updateManagedFields(
      undefined,
      widget(
        { replicas: 1, paused: true },
        { annotations: { [key]: JSON.stringify(config) + '\n' } },
      ),
      {
        manager: 'kubectl-client-side-apply',
        apiVersion: 'example.com/v1',
        schema: widgetSchema,
        now: T0,
      },
    );
    const ssa = apply(csa.object, widget({ replicas: 2, paused: true }), opts('kubectl', T1));
    expect(spec(ssa.object)).toEqual({ replicas: 2, paused: true });
    expect(ssa.managedFields.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['kubectl', { 'f:spec': { 'f:paused': {}, 'f:replicas': {} } }],
      [
        'kubectl-client-side-apply',
        {
          'f:metadata': { 'f:annotations': { '.': {}, [`f:${key}`]: {} } },
          'f:spec': { '.': {}, 'f:paused': {} },
        },
      ],
    ]);
    // Another manager changed replicas since: last-applied no longer matches, the conflict stays.
    const scaled = updateManagedFields(
      csa.object,
      { ...csa.object, spec: { replicas: 3, paused: true } },
      { manager: 'kubectl-scale', apiVersion: 'example.com/v1', schema: widgetSchema, now: T1 },
    );
    const err = conflict(() =>
      apply(scaled.object, widget({ replicas: 2, paused: true }), opts('kubectl', T2)),
    );
    expect(err.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-scale" using example.com/v1: .spec.replicas',
    );
    // Other managers get no such leniency.
    expect(() => apply(csa.object, widget({ replicas: 2 }), opts('helm', T1))).toThrow(
      ApplyConflictError,
    );
  });

  it('rejects values of the wrong JSON type like the typed conversion does (500)', () => {
    const body = widget({ replicas: 'three', paused: 1, selector: 'x', tags: 'a' });
    expect(() => apply(undefined, body, opts('m'))).toThrow(
      'failed to create typed patch object (default/w; example.com/v1, Kind=Widget): errors:\n' +
        '  .spec.replicas: expected numeric (int or float), got string\n' +
        '  .spec.paused: expected boolean, got 1\n' +
        '  .spec.selector: expected map, got x\n' +
        '  .spec.tags: expected list, got a',
    );
  });
});
