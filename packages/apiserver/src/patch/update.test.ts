import { describe, expect, it } from 'vitest';
import { apply } from './apply.ts';
import type { JsonObject } from './json-value.ts';
import { T0, T1, T2, widget, widgetSchema } from './test-schemas.ts';
import { updateManagedFields, type UpdateManagedFieldsOptions } from './update.ts';

const w = (manager: string, now: string, extra: Partial<UpdateManagedFieldsOptions> = {}) => ({
  manager,
  apiVersion: 'example.com/v1',
  schema: widgetSchema,
  now,
  ...extra,
});

describe('updateManagedFields', () => {
  const created = updateManagedFields(undefined, widget({ replicas: 1, paused: true }), w('a', T0));

  it('gives changed fields to the writer and takes them from others', () => {
    const next = { ...created.object, spec: { replicas: 2, paused: true } };
    const { managedFields } = updateManagedFields(created.object, next, w('b', T1));
    expect(managedFields.map((e) => [e.manager, e.time, e.fieldsV1])).toEqual([
      ['a', T0, { 'f:spec': { '.': {}, 'f:paused': {} } }],
      ['b', T1, { 'f:spec': { 'f:replicas': {} } }],
    ]);
  });

  it('takes removed fields from everyone and drops emptied entries', () => {
    const next = { ...created.object, spec: {} };
    const { managedFields } = updateManagedFields(created.object, next, w('b', T1));
    expect(managedFields.map((e) => [e.manager, e.fieldsV1])).toEqual([['a', { 'f:spec': {} }]]);
    const gone = updateManagedFields(
      created.object,
      { ...created.object, spec: undefined },
      w('b', T1),
    );
    expect(gone.managedFields).toEqual([]);
    expect((gone.object.metadata as JsonObject).managedFields).toBeUndefined();
  });

  it('merges entries of the same manager, operation and apiVersion, and updates the time', () => {
    const next = { ...created.object, spec: { replicas: 2, paused: true } };
    const { managedFields } = updateManagedFields(created.object, next, w('a', T1));
    expect(managedFields).toHaveLength(1);
    expect(managedFields[0]?.time).toBe(T1);
    expect(managedFields[0]?.fieldsV1).toEqual({
      'f:spec': { '.': {}, 'f:paused': {}, 'f:replicas': {} },
    });
  });

  it('keeps separate entries per apiVersion and per subresource', () => {
    const v2 = updateManagedFields(
      created.object,
      { ...created.object, spec: { replicas: 2, paused: true } },
      w('a', T1, { apiVersion: 'example.com/v2' }),
    );
    const st = updateManagedFields(
      v2.object,
      { ...v2.object, status: { ready: 1 } },
      w('a', T2, { subresource: 'status' }),
    );
    expect(st.managedFields.map((e) => [e.apiVersion, e.subresource])).toEqual([
      ['example.com/v1', undefined],
      ['example.com/v2', undefined],
      ['example.com/v1', 'status'],
    ]);
  });

  it('leaves everything, timestamps included, alone for a no-op write', () => {
    const again = updateManagedFields(created.object, structuredClone(created.object), w('a', T2));
    expect(again.managedFields).toEqual(created.managedFields);
    const other = updateManagedFields(created.object, structuredClone(created.object), w('z', T2));
    expect(other.managedFields).toEqual(created.managedFields);
  });

  it('lists Apply entries before Update entries, then by time and manager', () => {
    const applied = apply(created.object, widget({ tags: ['x'] }), {
      manager: 'kubectl',
      force: false,
      apiVersion: 'example.com/v1',
      schema: widgetSchema,
      now: T2,
    });
    const next = {
      ...applied.object,
      spec: { ...(applied.object.spec as JsonObject), replicas: 5 },
    };
    const { managedFields } = updateManagedFields(applied.object, next, w('0-early-name', T1));
    expect(managedFields.map((e) => [e.operation, e.manager])).toEqual([
      ['Apply', 'kubectl'],
      ['Update', 'a'],
      ['Update', '0-early-name'],
    ]);
  });

  it('lets a client reset managedFields with [{}] and replace them with its own', () => {
    const reset = {
      ...created.object,
      metadata: { ...(created.object.metadata as JsonObject), managedFields: [{}] },
    };
    expect(updateManagedFields(created.object, reset, w('a', T1)).managedFields).toEqual([]);
    const own = [
      {
        manager: 'x',
        operation: 'Update',
        apiVersion: 'v9',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      },
    ];
    const edited = {
      ...created.object,
      metadata: { ...(created.object.metadata as JsonObject), managedFields: own },
    };
    expect(updateManagedFields(created.object, edited, w('a', T1)).managedFields).toEqual(own);
  });

  it('collapses the oldest Update managers beyond ten into ancient-changes', () => {
    let obj = created.object;
    for (let i = 0; i < 11; i++) {
      const next = { ...obj, spec: { ...(obj.spec as JsonObject), [`f${i}`]: i } };
      const time = `2025-01-02T04:00:${String(i).padStart(2, '0')}Z`;
      obj = updateManagedFields(obj, next, w(`m${String(i).padStart(2, '0')}`, time)).object;
    }
    const entries = (obj.metadata as JsonObject).managedFields as JsonObject[];
    // capManagersManager: when m09 makes eleven, "a" (the oldest of example.com/v1) and m00 merge
    // into ancient-changes; when m10 does, the bucket (now the oldest) absorbs m01.
    expect(entries.map((e) => e.manager)).toEqual([
      'ancient-changes',
      ...['m02', 'm03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm10'],
    ]);
    expect(entries[0]).toEqual({
      manager: 'ancient-changes',
      operation: 'Update',
      apiVersion: 'example.com/v1',
      time: '2025-01-02T04:00:01Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:spec': { '.': {}, 'f:f0': {}, 'f:f1': {}, 'f:paused': {}, 'f:replicas': {} },
      },
    });
  });

  it('does not start tracking on an update of an unmanaged object (skipNonAppliedManager)', () => {
    const untracked = widget({ replicas: 1 });
    const next = { ...untracked, spec: { replicas: 2 } };
    const out = updateManagedFields(untracked, next, w('b', T1));
    expect(out.managedFields).toEqual([]);
    expect((out.object.metadata as JsonObject).managedFields).toBeUndefined();
  });

  it('treats [] as a reset and falls back to the stored entries when the sent ones are invalid', () => {
    const meta = created.object.metadata as JsonObject;
    const reset = { ...created.object, metadata: { ...meta, managedFields: [] } };
    expect(updateManagedFields(created.object, reset, w('a', T1)).managedFields).toEqual([]);
    const bogus = [{ manager: 'x', operation: 'Delete', apiVersion: 'v1', fieldsType: 'FieldsV1' }];
    const invalid = { ...created.object, metadata: { ...meta, managedFields: bogus } };
    expect(updateManagedFields(created.object, invalid, w('a', T1)).managedFields).toEqual(
      created.managedFields,
    );
  });

  it('keeps the stored entries for subresource writes whatever the body says', () => {
    const meta = created.object.metadata as JsonObject;
    const body = {
      ...created.object,
      metadata: { ...meta, managedFields: [] },
      status: { ready: 1 },
    };
    const out = updateManagedFields(created.object, body, w('ctrl', T1, { subresource: 'status' }));
    expect(out.managedFields.map((e) => [e.manager, e.subresource])).toEqual([
      ['a', undefined],
      ['ctrl', 'status'],
    ]);
  });

  it('returns the stored list verbatim, order included, when ownership does not change', () => {
    const two = updateManagedFields(
      created.object,
      { ...created.object, status: { ready: 1 } },
      w('ctrl', T1, { subresource: 'status' }),
    );
    const stored = [...two.managedFields].reverse();
    const obj = {
      ...two.object,
      metadata: { ...(two.object.metadata as JsonObject), managedFields: stored },
    };
    const out = updateManagedFields(obj, structuredClone(obj), w('a', T2));
    expect(out.managedFields).toBe(stored);
    const applyOpts = { force: false, apiVersion: 'example.com/v1', schema: widgetSchema };
    const first = apply(obj, widget({ replicas: 1 }), { ...applyOpts, manager: 'x', now: T2 });
    const reordered = [...first.managedFields].reverse();
    const live = {
      ...first.object,
      metadata: { ...(first.object.metadata as JsonObject), managedFields: reordered },
    };
    const again = apply(live, widget({ replicas: 1 }), { ...applyOpts, manager: 'x', now: T2 });
    expect(again.managedFields).toBe(reordered);
  });
});
