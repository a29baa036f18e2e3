import { describe, expect, it } from 'vitest';
import { apply, type ApplyOptions } from './apply.ts';
import { PatchError, patchErrorToStatus } from './errors.ts';
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

describe('apply: create and re-apply', () => {
  it('creates the object and records an Apply entry', () => {
    const { object, managedFields } = apply(
      undefined,
      widget({ replicas: 1, tags: ['a'] }),
      opts('m'),
    );
    expect(spec(object)).toEqual({ replicas: 1, tags: ['a'] });
    expect(managedFields).toEqual([
      {
        manager: 'm',
        operation: 'Apply',
        apiVersion: 'example.com/v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:tags': { 'v:"a"': {} } } },
      },
    ]);
    expect((object.metadata as JsonObject).managedFields).toEqual(managedFields);
  });

  it('removes a field the manager no longer applies', () => {
    const first = apply(undefined, widget({ replicas: 1, paused: true }), opts('m'));
    const second = apply(first.object, widget({ replicas: 1 }), opts('m', T1));
    expect(spec(second.object)).toEqual({ replicas: 1 });
    expect(second.managedFields[0]?.fieldsV1).toEqual({ 'f:spec': { 'f:replicas': {} } });
  });

  it('keeps a dropped field that another manager also applied with the same value', () => {
    const a = apply(undefined, widget({ replicas: 1, paused: true }), opts('a'));
    const b = apply(a.object, widget({ paused: true }), opts('b', T1));
    expect(b.managedFields.map((e) => e.manager)).toEqual(['a', 'b']);
    const a2 = apply(b.object, widget({ replicas: 1 }), opts('a', T2));
    expect(spec(a2.object)).toEqual({ replicas: 1, paused: true });
    expect(a2.managedFields.find((e) => e.manager === 'b')?.fieldsV1).toEqual({
      'f:spec': { 'f:paused': {} },
    });
  });

  it('keeps fields an Update manager set, even under an applied parent', () => {
    const a = apply(undefined, widget({ containers: [{ name: 'c', image: 'x' }] }), opts('a'));
    const edited = structuredClone(a.object);
    ((edited.spec as JsonObject).containers as JsonObject[])[0]!.args = ['--v'];
    const u = updateManagedFields(a.object, edited, {
      manager: 'kubectl-edit',
      apiVersion: 'example.com/v1',
      schema: widgetSchema,
      now: T1,
    });
    const a2 = apply(u.object, widget({ containers: [{ name: 'c', image: 'y' }] }), opts('a', T2));
    expect(spec(a2.object)).toEqual({ containers: [{ name: 'c', image: 'y', args: ['--v'] }] });
  });

  it('is a no-op that keeps timestamps when nothing changes', () => {
    const first = apply(undefined, widget({ replicas: 1 }), opts('m'));
    const again = apply(first.object, widget({ replicas: 1 }), opts('m', T1));
    expect(again.object).toEqual(first.object);
    expect(again.managedFields[0]?.time).toBe(T0);
  });

  it('takes ownership of existing fields for before-first-apply when nothing is managed', () => {
    const live = widget({ replicas: 1, paused: false });
    const { object, managedFields } = apply(live, widget({ replicas: 1 }), opts('m', T1));
    expect(spec(object)).toEqual({ replicas: 1, paused: false });
    expect(managedFields).toEqual([
      expect.objectContaining({ manager: 'm', operation: 'Apply' }),
      {
        manager: 'before-first-apply',
        operation: 'Update',
        apiVersion: 'example.com/v1',
        time: T1,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { '.': {}, 'f:paused': {}, 'f:replicas': {} } },
      },
    ]);
  });
});

describe('apply: conflicts and force', () => {
  it('reports a conflict with an Apply manager by name only (spec §5.4)', () => {
    const a = apply(undefined, widget({ replicas: 1 }), opts('a'));
    const err = conflict(() => apply(a.object, widget({ replicas: 2 }), opts('b', T1)));
    expect(patchErrorToStatus(err)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "a": .spec.replicas',
      reason: 'Conflict',
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' },
        ],
      },
      code: 409,
    });
  });

  it('reports an Update manager with its apiVersion, and several conflicts grouped', () => {
    const created = updateManagedFields(undefined, widget({ replicas: 1, paused: true }), {
      manager: 'kubectl-client-side-apply',
      apiVersion: 'apps/v1',
      schema: widgetSchema,
      now: T0,
    });
    const status = updateManagedFields(
      created.object,
      { ...created.object, status: { ready: 1 } },
      {
        manager: 'ctrl',
        apiVersion: 'apps/v1',
        schema: widgetSchema,
        now: T1,
        subresource: 'status',
      },
    );
    const one = conflict(() => apply(status.object, widget({ replicas: 3 }), opts('kubectl', T2)));
    expect(one.message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
    );
    const body = { ...widget({ replicas: 3, paused: false }), status: { ready: 2 } };
    const many = conflict(() => apply(status.object, body, opts('kubectl', T2)));
    expect(many.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "ctrl" with subresource "status" using apps/v1:\n' +
        '- .status.ready\n' +
        'conflicts with "kubectl-client-side-apply" using apps/v1:\n' +
        '- .spec.paused\n' +
        '- .spec.replicas',
    );
    expect(many.causes.map((c) => c.message)).toEqual([
      'conflict with "ctrl" with subresource "status" using apps/v1',
      'conflict with "kubectl-client-side-apply" using apps/v1',
      'conflict with "kubectl-client-side-apply" using apps/v1',
    ]);
  });

  it('shares ownership without conflict when the value is the same', () => {
    const a = apply(undefined, widget({ replicas: 1 }), opts('a'));
    const b = apply(a.object, widget({ replicas: 1 }), opts('b', T1));
    expect(b.managedFields.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['a', { 'f:spec': { 'f:replicas': {} } }],
      ['b', { 'f:spec': { 'f:replicas': {} } }],
    ]);
  });

  it('force transfers ownership', () => {
    const a = apply(undefined, widget({ replicas: 1, paused: true }), opts('a'));
    const b = apply(a.object, widget({ replicas: 2 }), opts('b', T1, { force: true }));
    expect(spec(b.object)).toEqual({ replicas: 2, paused: true });
    expect(b.managedFields.map((e) => [e.manager, e.fieldsV1])).toEqual([
      ['a', { 'f:spec': { 'f:paused': {} } }],
      ['b', { 'f:spec': { 'f:replicas': {} } }],
    ]);
  });

  it('treats atomic lists and maps as one field', () => {
    const a = apply(undefined, widget({ args: ['x'], selector: { app: 'a' } }), opts('a'));
    const err = conflict(() =>
      apply(a.object, widget({ args: ['x', 'y'], selector: { app: 'a', b: 'c' } }), opts('b')),
    );
    expect(err.conflicts.map((c) => c.field)).toEqual(['.spec.args', '.spec.selector']);
    expect(a.managedFields[0]?.fieldsV1).toEqual({ 'f:spec': { 'f:args': {}, 'f:selector': {} } });
  });
});

describe('apply: list merging', () => {
  it('merges list maps by keys, defaulting key fields (ports by containerPort+protocol)', () => {
    const a = apply(
      undefined,
      widget({ containers: [{ name: 'app', image: 'i', ports: [{ containerPort: 80 }] }] }),
      opts('a'),
    );
    expect(a.managedFields[0]?.fieldsV1).toEqual({
      'f:spec': {
        'f:containers': {
          'k:{"name":"app"}': {
            '.': {},
            'f:image': {},
            'f:name': {},
            'f:ports': {
              'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
            },
          },
        },
      },
    });
    const b = apply(
      a.object,
      widget({
        containers: [
          { name: 'sidecar', image: 's' },
          { name: 'app', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] },
        ],
      }),
      opts('b', T1),
    );
    expect(spec(b.object)).toEqual({
      containers: [
        { name: 'sidecar', image: 's' },
        { name: 'app', image: 'i', ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }] },
      ],
    });
  });

  it('merges sets by value and prunes only the applier’s members', () => {
    const a = apply(undefined, widget({ tags: ['a', 'b'] }), opts('a'));
    const b = apply(a.object, widget({ tags: ['c'] }), opts('b', T1));
    expect(spec(b.object)).toEqual({ tags: ['a', 'b', 'c'] });
    const a2 = apply(b.object, widget({ tags: ['a'] }), opts('a', T2));
    expect(spec(a2.object)).toEqual({ tags: ['a', 'c'] });
  });

  it('removes a list item the applier dropped, with its sub-fields', () => {
    const a = apply(
      undefined,
      widget({
        containers: [
          { name: 'x', image: '1' },
          { name: 'y', image: '2' },
        ],
      }),
      opts('a'),
    );
    const a2 = apply(a.object, widget({ containers: [{ name: 'y', image: '2' }] }), opts('a', T1));
    expect(spec(a2.object)).toEqual({ containers: [{ name: 'y', image: '2' }] });
  });

  it('owns unknown (preserve-unknown-fields) maps granularly', () => {
    const a = apply(undefined, widget({ extra: { a: { b: 1 }, l: [1] } }), opts('a'));
    expect(a.managedFields[0]?.fieldsV1).toEqual({
      'f:spec': { 'f:extra': { 'f:a': { '.': {}, 'f:b': {} }, 'f:l': {} } },
    });
  });
});

describe('apply: rejected bodies', () => {
  it('rejects managedFields in the body with 400', () => {
    const body = widget({}, { managedFields: [{ manager: 'x' }] });
    expect(() => apply(undefined, body, opts('m'))).toThrowError(
      expect.objectContaining({
        statusCode: 400,
        reason: 'BadRequest',
        message: 'metadata.managedFields must be nil',
      }),
    );
  });

  it('rejects fields the schema does not declare like the real server (500)', () => {
    let caught: unknown;
    try {
      apply(undefined, widget({ bogus: 1 }), opts('m'));
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PatchError);
    expect(patchErrorToStatus(caught as PatchError)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'failed to create typed patch object (default/w; example.com/v1, Kind=Widget): .spec.bogus: field not declared in schema',
      code: 500,
    });
  });

  it('rejects list-map items without their keys', () => {
    expect(() => apply(undefined, widget({ containers: [{ image: 'x' }] }), opts('m'))).toThrow(
      '.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
  });
});
