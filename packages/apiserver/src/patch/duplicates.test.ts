import { describe, expect, it } from 'vitest';
import { apply } from './apply.ts';
import type { JsonObject } from './json-value.ts';
import { ApplyConflictError } from './ownership.ts';
import { T0, T1, T2, widget, widgetSchema } from './test-schemas.ts';
import { updateManagedFields } from './update.ts';

// Duplicate keys in stored list maps (tolerated since kube 1.27): the cases follow
// structured-merge-diff's merge/duplicates_test.go, on a list map keyed by name.
const c = (name: string, image: string) => ({ name, image });
const withDupes = widget({ containers: [c('a', '1'), c('a', '2'), c('b', '3')] });
const upd = (manager: string, now: string) => ({
  manager,
  apiVersion: 'example.com/v1',
  schema: widgetSchema,
  now,
});
const app = (manager: string, now: string, force = false) => ({ ...upd(manager, now), force });
const fields = (obj: JsonObject) =>
  ((obj.metadata as JsonObject).managedFields as JsonObject[]).map((e) => [e.manager, e.fieldsV1]);

describe('duplicated list-map items', () => {
  const created = updateManagedFields(undefined, withDupes, upd('updater', T0));

  it('are owned once, as a whole', () => {
    expect(fields(created.object)).toEqual([
      [
        'updater',
        {
          'f:spec': {
            '.': {},
            'f:containers': {
              '.': {},
              'k:{"name":"a"}': {},
              'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} },
            },
          },
        },
      ],
    ]);
  });

  it('go to whoever changes one of them', () => {
    const next = widget({ containers: [c('a', '1'), c('a', '9'), c('b', '3')] });
    const out = updateManagedFields(created.object, next, upd('other', T1));
    expect(fields(out.object)).toEqual([
      [
        'updater',
        {
          'f:spec': {
            '.': {},
            'f:containers': {
              '.': {},
              'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} },
            },
          },
        },
      ],
      ['other', { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': {} } } }],
    ]);
  });

  it('conflict as a whole when applied, and collapse into the applied item with force', () => {
    let caught: unknown;
    try {
      apply(created.object, widget({ containers: [c('a', '2')] }), app('applier', T1));
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApplyConflictError);
    expect((caught as ApplyConflictError).message).toBe(
      'Apply failed with 1 conflict: conflict with "updater" using example.com/v1: .spec.containers[name="a"]',
    );
    const forced = apply(
      created.object,
      widget({ containers: [c('a', '3')] }),
      app('applier', T2, true),
    );
    expect(forced.object.spec).toEqual({ containers: [c('a', '3'), c('b', '3')] });
    expect(fields(forced.object)).toEqual([
      [
        'applier',
        {
          'f:spec': {
            'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } },
          },
        },
      ],
      [
        'updater',
        {
          'f:spec': {
            '.': {},
            'f:containers': {
              '.': {},
              'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} },
            },
          },
        },
      ],
    ]);
  });

  it('are left alone by an unrelated apply', () => {
    const out = apply(created.object, widget({ replicas: 1 }), app('applier', T1, true));
    expect(out.object.spec).toEqual({ ...withDupes.spec, replicas: 1 });
  });

  it('are rejected in an applied configuration', () => {
    expect(() => apply(undefined, withDupes, app('applier', T0))).toThrow(
      '.spec.containers: duplicate entries for key [name="a"]',
    );
  });
});
