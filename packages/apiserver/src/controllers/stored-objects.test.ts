import { describe, expect, it } from 'vitest';
import { parseKey, shouldDeleteDuringUpdate, withoutFinalizer } from './stored-objects.ts';

const namespaces = { group: '', plural: 'namespaces' };
const configmaps = { group: '', plural: 'configmaps' };

describe('parseKey', () => {
  it('reads group, plural, namespace and name off storage keys', () => {
    expect(parseKey('/registry/core/configmaps/ns/cm')).toEqual({
      key: '/registry/core/configmaps/ns/cm',
      group: '',
      plural: 'configmaps',
      namespace: 'ns',
      name: 'cm',
    });
    expect(
      parseKey('/registry/apiextensions.k8s.io/customresourcedefinitions/a.b.c'),
    ).toMatchObject({ group: 'apiextensions.k8s.io', name: 'a.b.c' });
    expect(parseKey('/registry/core/configmaps/ns/cm/extra')).toBeUndefined();
    expect(parseKey('/other/core/configmaps/ns/cm')).toBeUndefined();
  });
});

describe('shouldDeleteDuringUpdate', () => {
  const deleting = { deletionTimestamp: '2026-01-01T00:00:00Z' };
  it('deletes an object being deleted once its last finalizer is gone', () => {
    expect(shouldDeleteDuringUpdate(configmaps, { metadata: { ...deleting } })).toBe(true);
    expect(
      shouldDeleteDuringUpdate(configmaps, { metadata: { ...deleting, finalizers: ['x'] } }),
    ).toBe(false);
    expect(shouldDeleteDuringUpdate(configmaps, { metadata: {} })).toBe(false);
  });

  it('keeps a namespace while spec.finalizers remain', () => {
    const ns = { metadata: { ...deleting }, spec: { finalizers: ['kubernetes'] } };
    expect(shouldDeleteDuringUpdate(namespaces, ns)).toBe(false);
    expect(shouldDeleteDuringUpdate(namespaces, { ...ns, spec: {} })).toBe(true);
  });
});

describe('withoutFinalizer', () => {
  it('removes one finalizer and drops the emptied field', () => {
    const obj = { metadata: { finalizers: ['a', 'b'] } };
    expect(withoutFinalizer(obj, 'a')).toBe(true);
    expect(obj.metadata.finalizers).toEqual(['b']);
    expect(withoutFinalizer(obj, 'a')).toBe(false);
    expect(withoutFinalizer(obj, 'b')).toBe(true);
    expect(obj.metadata).toEqual({});
  });
});
