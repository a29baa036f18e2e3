import type { CustomResourceColumnDefinition } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { buildTable } from './build-table.ts';
import { DESCRIPTIONS } from './descriptions.ts';
import { TableError } from './errors.ts';

// The printer columns our CRDs declare (packages/api/src/crd/kinds.ts).
const READY: CustomResourceColumnDefinition = {
  name: 'Ready',
  type: 'string',
  jsonPath: ".status.conditions[?(@.type=='Ready')].status",
};
const REASON: CustomResourceColumnDefinition = {
  name: 'Reason',
  type: 'string',
  jsonPath: ".status.conditions[?(@.type=='Ready')].reason",
};
const AGE: CustomResourceColumnDefinition = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
};
const POOL_COLUMNS: CustomResourceColumnDefinition[] = [
  { name: 'Ready', type: 'integer', jsonPath: '.status.readyReplicas' },
  { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
  AGE,
];

const NOW = new Date('2025-01-02T04:00:00Z');

function sandbox(name: string, created: string, status?: unknown) {
  return {
    apiVersion: 'agents.x-k8s.io/v1beta1',
    kind: 'Sandbox',
    metadata: {
      name,
      namespace: 'team',
      uid: `uid-${name}`,
      resourceVersion: '41',
      creationTimestamp: created,
      labels: { app: 'demo' },
      managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
    },
    spec: { podTemplate: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    ...(status === undefined ? {} : { status }),
  };
}

const readySandbox = sandbox('ready', '2025-01-02T03:55:00Z', {
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'DependenciesReady',
      message: '',
      lastTransitionTime: '2025-01-02T03:56:00Z',
    },
  ],
});
const pendingSandbox = sandbox('pending', '2025-01-01T01:00:00Z', {
  conditions: [{ type: 'Ready', status: 'False', reason: 'PodPending', message: 'waiting' }],
});
const newSandbox = sandbox('new', '2025-01-02T03:59:18Z');

const NAME_DEF = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: DESCRIPTIONS['ObjectMeta.name'],
  priority: 0,
};

describe('custom resources (additionalPrinterColumns)', () => {
  it('Sandbox list with Ready / Reason / Age', () => {
    const table = buildTable({
      resource: 'agents.x-k8s.io/sandboxes',
      columns: [READY, REASON, AGE],
      objects: [readySandbox, pendingSandbox, newSandbox],
      now: NOW,
      listMeta: { resourceVersion: '57', continue: 'tok' },
    });
    expect(table).toEqual({
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: '57', continue: 'tok' },
      columnDefinitions: [
        NAME_DEF,
        {
          name: 'Ready',
          type: 'string',
          format: '',
          description: `Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=='Ready')].status`,
          priority: 0,
        },
        {
          name: 'Reason',
          type: 'string',
          format: '',
          description: `Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=='Ready')].reason`,
          priority: 0,
        },
        {
          name: 'Age',
          type: 'date',
          format: '',
          description:
            'Custom resource definition column (in JSONPath format): .metadata.creationTimestamp',
          priority: 0,
        },
      ],
      rows: [
        {
          cells: ['ready', 'True', 'DependenciesReady', '5m'],
          object: {
            kind: 'PartialObjectMetadata',
            apiVersion: 'meta.k8s.io/v1',
            metadata: readySandbox.metadata,
          },
        },
        {
          cells: ['pending', 'False', 'PodPending', '27h'],
          object: {
            kind: 'PartialObjectMetadata',
            apiVersion: 'meta.k8s.io/v1',
            metadata: pendingSandbox.metadata,
          },
        },
        {
          cells: ['new', null, null, '42s'],
          object: {
            kind: 'PartialObjectMetadata',
            apiVersion: 'meta.k8s.io/v1',
            metadata: newSandbox.metadata,
          },
        },
      ],
    });
  });

  it('keeps format, description and priority of declared columns', () => {
    const table = buildTable({
      resource: 'x',
      columns: [
        {
          name: 'Pool',
          type: 'string',
          format: 'name',
          description: 'the pool',
          priority: 1,
          jsonPath: '.spec.pool',
        },
      ],
      objects: [],
      now: NOW,
    });
    expect(table.columnDefinitions?.[1]).toEqual({
      name: 'Pool',
      type: 'string',
      format: 'name',
      description: 'the pool',
      priority: 1,
    });
  });

  it('SandboxWarmPool integer columns', () => {
    const pool = {
      metadata: { name: 'pool', creationTimestamp: '2025-01-02T01:00:00Z' },
      spec: { replicas: 3 },
      status: { readyReplicas: 2 },
    };
    const fresh = {
      metadata: { name: 'fresh', creationTimestamp: '2025-01-02T04:00:00Z' },
      spec: { replicas: 1 },
    };
    const table = buildTable({
      resource: 'p',
      columns: POOL_COLUMNS,
      objects: [pool, fresh],
      now: NOW,
      includeObject: 'None',
    });
    expect(table.rows).toEqual([
      { cells: ['pool', 2, 3, '3h'], object: null },
      { cells: ['fresh', null, 1, '0s'], object: null },
    ]);
  });

  it('serves Name + Age when a CRD version declares no columns', () => {
    const table = buildTable({
      resource: 'agents.x-k8s.io/sandboxtemplates',
      columns: [],
      objects: [newSandbox],
      now: NOW,
    });
    expect(table.columnDefinitions).toEqual([
      NAME_DEF,
      {
        name: 'Age',
        type: 'date',
        format: '',
        description: DESCRIPTIONS['ObjectMeta.creationTimestamp'],
        priority: 0,
      },
    ]);
    expect(table.rows[0]?.cells).toEqual(['new', '42s']);
  });

  it('drops an unparsable column and those after it, like the CRD handler', () => {
    const table = buildTable({
      resource: 'x',
      columns: [READY, { name: 'Bad', type: 'string', jsonPath: '.a[' }, AGE],
      objects: [readySandbox],
      now: NOW,
    });
    expect(table.columnDefinitions?.map((c) => c.name)).toEqual(['Name', 'Ready']);
    expect(table.rows[0]?.cells).toEqual(['ready', 'True']);
  });
});

describe('includeObject', () => {
  it.each([
    [undefined, 'Metadata'],
    ['', 'Metadata'],
    ['Metadata', 'Metadata'],
    ['Object', 'Object'],
    ['None', 'None'],
  ])('%j', (includeObject, policy) => {
    const table = buildTable({
      resource: 'x',
      columns: [READY],
      objects: [readySandbox],
      now: NOW,
      includeObject,
    });
    const object = table.rows[0]?.object;
    if (policy === 'None') expect(object).toBeNull();
    if (policy === 'Object') expect(object).toBe(readySandbox);
    if (policy === 'Metadata') {
      expect(object).toEqual({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: readySandbox.metadata,
      });
    }
  });

  it('labels PartialObjectMetadata with the requested Table version', () => {
    const table = buildTable({
      resource: 'x',
      columns: [],
      objects: [newSandbox],
      now: NOW,
      tableVersion: 'v1beta1',
    });
    expect(table.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(table.rows[0]?.object).toMatchObject({ apiVersion: 'meta.k8s.io/v1beta1' });
  });

  it('rejects other values with the 400 message', () => {
    let err: unknown;
    try {
      buildTable({
        resource: 'x',
        columns: [],
        objects: [],
        now: NOW,
        includeObject: 'Everything',
      });
    } catch (e: unknown) {
      err = e;
    }
    expect(err).toBeInstanceOf(TableError);
    expect((err as TableError).code).toBe('InvalidIncludeObject');
    expect((err as TableError).message).toBe(
      `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty`,
    );
  });
});

describe('lists, single objects and watch events', () => {
  it('an empty list has rows [] and the list resourceVersion', () => {
    const table = buildTable({
      resource: 'x',
      columns: [READY],
      objects: [],
      now: NOW,
      listMeta: { resourceVersion: '9' },
    });
    expect(table.rows).toEqual([]);
    expect(table.metadata).toEqual({ resourceVersion: '9' });
    expect(table.columnDefinitions).toHaveLength(2);
  });

  it('a GET carries the object resourceVersion', () => {
    const table = buildTable({
      resource: 'x',
      columns: [READY],
      objects: [readySandbox],
      now: NOW,
    });
    expect(table.metadata).toEqual({ resourceVersion: '41' });
  });

  it('passes remainingItemCount through, including 0', () => {
    const table = buildTable({
      resource: 'x',
      columns: [],
      objects: [],
      now: NOW,
      listMeta: { resourceVersion: '9', remainingItemCount: 0 },
    });
    expect(table.metadata).toEqual({ resourceVersion: '9', remainingItemCount: 0 });
  });

  it('noHeaders leaves columnDefinitions null (watch events after the first)', () => {
    const table = buildTable({
      resource: 'x',
      columns: [READY],
      objects: [readySandbox],
      now: NOW,
      noHeaders: true,
    });
    expect(table.columnDefinitions).toBeNull();
    expect(table.rows).toHaveLength(1);
    expect(JSON.parse(JSON.stringify(table))).toHaveProperty('columnDefinitions', null);
  });
});
