import { describe, expect, it } from 'vitest';
import { buildTable } from './build-table.ts';
import type { TableCell } from './types.ts';

const NOW = new Date('2025-01-02T04:00:00Z');
const CREATED = '2025-01-02T03:55:00Z'; // 5m before NOW

function columns(resource: string): [string, string, number][] {
  const t = buildTable({ resource, objects: [], now: NOW });
  return (t.columnDefinitions ?? []).map((c) => [c.name, c.type, c.priority]);
}

function cells(resource: string, obj: unknown): TableCell[] {
  const t = buildTable({ resource, objects: [obj], now: NOW });
  return t.rows[0]?.cells ?? [];
}

function pod(
  status: Record<string, unknown>,
  spec: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) {
  return {
    metadata: { name: 'web', namespace: 'team', creationTimestamp: CREATED, ...meta },
    spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
    status,
  };
}

const running = (name: string, ready: boolean, restartCount = 0) => ({
  name,
  ready,
  restartCount,
  image: 'nginx',
  imageID: '',
  state: { running: { startedAt: CREATED } },
});

describe('pods', () => {
  it('has kube-apiserver 1.32 columns, wide ones at priority 1', () => {
    expect(columns('pods')).toEqual([
      ['Name', 'string', 0],
      ['Ready', 'string', 0],
      ['Status', 'string', 0],
      ['Restarts', 'string', 0],
      ['Age', 'string', 0],
      ['IP', 'string', 1],
      ['Node', 'string', 1],
      ['Nominated Node', 'string', 1],
      ['Readiness Gates', 'string', 1],
    ]);
  });

  it.each<[string, unknown, TableCell[]]>([
    [
      'running, one of two containers ready',
      pod(
        {
          phase: 'Running',
          podIPs: [{ ip: '10.0.0.5' }],
          containerStatuses: [running('app', true), running('side', false)],
        },
        { nodeName: 'node-1', containers: [{ name: 'app' }, { name: 'side' }] },
      ),
      ['web', '1/2', 'Running', '0', '5m', '10.0.0.5', 'node-1', '<none>', '<none>'],
    ],
    [
      'pending while the image is pulled',
      pod({
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ContainerCreating' } },
          },
        ],
      }),
      ['web', '0/1', 'ContainerCreating', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'crash looping with the age of the last restart',
      pod({
        phase: 'Running',
        podIP: '10.0.0.9',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: {
              terminated: { exitCode: 1, reason: 'Error', finishedAt: '2025-01-02T03:58:30Z' },
            },
          },
        ],
      }),
      [
        'web',
        '0/1',
        'CrashLoopBackOff',
        '3 (90s ago)',
        '5m',
        '10.0.0.9',
        '<none>',
        '<none>',
        '<none>',
      ],
    ],
    [
      'terminated without a reason: exit code',
      pod({
        phase: 'Failed',
        containerStatuses: [
          { name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } },
        ],
      }),
      ['web', '0/1', 'ExitCode:2', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'terminated by a signal',
      pod({
        phase: 'Failed',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 137, signal: 9 } },
          },
        ],
      }),
      ['web', '0/1', 'Signal:9', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'evicted: status.reason wins over the phase',
      pod({ phase: 'Failed', reason: 'Evicted' }),
      ['web', '0/1', 'Evicted', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'scheduling gated',
      pod({
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }],
      }),
      ['web', '0/1', 'SchedulingGated', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'init container running',
      pod(
        { phase: 'Pending', initContainerStatuses: [running('init', false)] },
        { initContainers: [{ name: 'init' }, { name: 'init2' }] },
      ),
      ['web', '0/1', 'Init:0/2', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'second init container running',
      pod(
        {
          phase: 'Pending',
          initContainerStatuses: [
            {
              name: 'init',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: 'Completed' } },
            },
            running('init2', false),
          ],
        },
        { initContainers: [{ name: 'init' }, { name: 'init2' }] },
      ),
      ['web', '0/1', 'Init:1/2', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'init container failed',
      pod(
        {
          phase: 'Pending',
          initContainerStatuses: [
            {
              name: 'init',
              ready: false,
              restartCount: 2,
              state: { terminated: { exitCode: 1, reason: 'Error' } },
            },
          ],
        },
        { initContainers: [{ name: 'init' }] },
      ),
      ['web', '0/1', 'Init:Error', '2', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'init container crash looping',
      pod(
        {
          phase: 'Pending',
          initContainerStatuses: [
            {
              name: 'init',
              ready: false,
              restartCount: 0,
              state: { waiting: { reason: 'CrashLoopBackOff' } },
            },
          ],
        },
        { initContainers: [{ name: 'init' }] },
      ),
      ['web', '0/1', 'Init:CrashLoopBackOff', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'init container exited without a reason',
      pod(
        {
          phase: 'Pending',
          initContainerStatuses: [
            { name: 'init', ready: false, restartCount: 0, state: { terminated: { exitCode: 3 } } },
          ],
        },
        { initContainers: [{ name: 'init' }] },
      ),
      ['web', '0/1', 'Init:ExitCode:3', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'sidecar (restartable init container) counts as a container',
      pod(
        {
          phase: 'Running',
          conditions: [
            { type: 'Initialized', status: 'True' },
            { type: 'Ready', status: 'True' },
          ],
          initContainerStatuses: [{ ...running('sidecar', true, 1), started: true }],
          containerStatuses: [running('app', true)],
        },
        { initContainers: [{ name: 'sidecar', restartPolicy: 'Always' }] },
      ),
      ['web', '2/2', 'Running', '1', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'a completed container next to a running one reads NotReady without the Ready condition',
      pod(
        {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'job',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: 'Completed' } },
            },
            running('app', true),
          ],
        },
        { containers: [{ name: 'job' }, { name: 'app' }] },
      ),
      ['web', '1/2', 'NotReady', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'terminating',
      pod(
        { phase: 'Running', containerStatuses: [running('app', true)] },
        {},
        { deletionTimestamp: '2025-01-02T03:59:00Z' },
      ),
      ['web', '1/1', 'Terminating', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'node lost while deleting',
      pod(
        { phase: 'Running', reason: 'NodeLost' },
        {},
        { deletionTimestamp: '2025-01-02T03:59:00Z' },
      ),
      ['web', '0/1', 'Unknown', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
    ],
    [
      'readiness gates and a nominated node',
      pod(
        {
          phase: 'Pending',
          nominatedNodeName: 'node-2',
          conditions: [
            { type: 'example.com/a', status: 'True' },
            { type: 'example.com/b', status: 'False' },
          ],
        },
        {
          readinessGates: [{ conditionType: 'example.com/a' }, { conditionType: 'example.com/b' }],
        },
      ),
      ['web', '0/1', 'Pending', '0', '5m', '<none>', '<none>', 'node-2', '1/2'],
    ],
    [
      'no creationTimestamp',
      { metadata: { name: 'bare' }, spec: { containers: [{ name: 'app' }] } },
      ['bare', '0/1', '', '0', '<unknown>', '<none>', '<none>', '<none>', '<none>'],
    ],
  ])('%s', (_name, obj, want) => {
    expect(cells('pods', obj)).toEqual(want);
  });

  it('marks finished pods with a Completed row condition', () => {
    const succeeded = pod({
      phase: 'Succeeded',
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 0, reason: 'Completed' } },
        },
      ],
    });
    const failed = pod({ phase: 'Failed' });
    const table = buildTable({
      resource: 'pods',
      objects: [succeeded, failed, pod({ phase: 'Running' })],
      now: NOW,
      includeObject: 'None',
    });
    expect(table.rows[0]).toEqual({
      cells: ['web', '0/1', 'Completed', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
      conditions: [
        {
          type: 'Completed',
          status: 'True',
          reason: 'Succeeded',
          message: 'The pod has completed successfully.',
        },
      ],
      object: null,
    });
    expect(table.rows[1]?.conditions).toEqual([
      { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
    ]);
    expect(table.rows[2]).not.toHaveProperty('conditions');
  });
});

describe('namespaces', () => {
  it('Name / Status / Age', () => {
    expect(columns('namespaces')).toEqual([
      ['Name', 'string', 0],
      ['Status', 'string', 0],
      ['Age', 'string', 0],
    ]);
    const table = buildTable({
      resource: 'namespaces',
      objects: [
        {
          metadata: { name: 'default', creationTimestamp: '2024-12-01T00:00:00Z' },
          status: { phase: 'Active' },
        },
        {
          metadata: { name: 'gone', creationTimestamp: CREATED, deletionTimestamp: CREATED },
          status: { phase: 'Terminating' },
        },
      ],
      now: NOW,
      listMeta: { resourceVersion: '100' },
    });
    expect(table.rows.map((r) => r.cells)).toEqual([
      ['default', 'Active', '32d'],
      ['gone', 'Terminating', '5m'],
    ]);
    expect(table.metadata).toEqual({ resourceVersion: '100' });
  });
});

describe('configmaps, secrets, serviceaccounts, leases, networkpolicies', () => {
  const meta = (name: string) => ({ name, namespace: 'team', creationTimestamp: CREATED });
  it.each<[string, unknown, [string, string, number][], TableCell[]]>([
    [
      'configmaps',
      { metadata: meta('cfg'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } },
      [
        ['Name', 'string', 0],
        ['Data', 'string', 0],
        ['Age', 'string', 0],
      ],
      ['cfg', 3, '5m'],
    ],
    ['configmaps', { metadata: meta('empty') }, [], ['empty', 0, '5m']],
    [
      'secrets',
      { metadata: meta('s'), type: 'Opaque', data: { a: 'YQ==' } },
      [
        ['Name', 'string', 0],
        ['Type', 'string', 0],
        ['Data', 'string', 0],
        ['Age', 'string', 0],
      ],
      ['s', 'Opaque', 1, '5m'],
    ],
    [
      'serviceaccounts',
      { metadata: meta('default'), secrets: [{ name: 'tok' }] },
      [
        ['Name', 'string', 0],
        ['Secrets', 'string', 0],
        ['Age', 'string', 0],
      ],
      ['default', 1, '5m'],
    ],
    [
      'coordination.k8s.io/leases',
      { metadata: meta('agent-sandbox-controller'), spec: { holderIdentity: 'host_1' } },
      [
        ['Name', 'string', 0],
        ['Holder', 'string', 0],
        ['Age', 'string', 0],
      ],
      ['agent-sandbox-controller', 'host_1', '5m'],
    ],
    ['coordination.k8s.io/leases', { metadata: meta('free'), spec: {} }, [], ['free', '', '5m']],
    [
      'networking.k8s.io/networkpolicies',
      {
        metadata: meta('np'),
        spec: {
          podSelector: {
            matchLabels: { app: 'web' },
            matchExpressions: [{ key: 'tier', operator: 'Exists' }],
          },
        },
      },
      [
        ['Name', 'string', 0],
        ['Pod-Selector', 'string', 0],
        ['Age', 'string', 0],
      ],
      ['np', 'app=web,tier', '5m'],
    ],
    [
      'networking.k8s.io/networkpolicies',
      { metadata: meta('all'), spec: { podSelector: {} } },
      [],
      ['all', '<none>', '5m'],
    ],
  ])('%s', (resource, obj, cols, want) => {
    if (cols.length > 0) expect(columns(resource)).toEqual(cols);
    expect(cells(resource, obj)).toEqual(want);
  });
});

describe('services and endpoints', () => {
  const meta = { name: 'web', namespace: 'team', creationTimestamp: CREATED };
  it('service columns', () => {
    expect(columns('services')).toEqual([
      ['Name', 'string', 0],
      ['Type', 'string', 0],
      ['Cluster-IP', 'string', 0],
      ['External-IP', 'string', 0],
      ['Port(s)', 'string', 0],
      ['Age', 'string', 0],
      ['Selector', 'string', 1],
    ]);
  });

  it.each<[string, unknown, TableCell[]]>([
    [
      'ClusterIP',
      {
        metadata: meta,
        spec: {
          type: 'ClusterIP',
          clusterIP: '10.96.0.10',
          clusterIPs: ['10.96.0.10'],
          ports: [{ port: 80, protocol: 'TCP' }],
          selector: { app: 'web' },
        },
      },
      ['web', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP', '5m', 'app=web'],
    ],
    [
      'NodePort with two ports',
      {
        metadata: meta,
        spec: {
          type: 'NodePort',
          clusterIP: '10.96.0.11',
          ports: [
            { port: 80, protocol: 'TCP', nodePort: 30080 },
            { port: 53, protocol: 'UDP' },
          ],
        },
      },
      ['web', 'NodePort', '10.96.0.11', '<none>', '80:30080/TCP,53/UDP', '5m', '<none>'],
    ],
    [
      'headless without ports',
      { metadata: meta, spec: { type: 'ClusterIP', clusterIP: 'None' } },
      ['web', 'ClusterIP', 'None', '<none>', '<none>', '5m', '<none>'],
    ],
    [
      'LoadBalancer pending',
      {
        metadata: meta,
        spec: {
          type: 'LoadBalancer',
          clusterIP: '10.96.0.12',
          ports: [{ port: 443, protocol: 'TCP', nodePort: 31443 }],
        },
      },
      ['web', 'LoadBalancer', '10.96.0.12', '<pending>', '443:31443/TCP', '5m', '<none>'],
    ],
    [
      'LoadBalancer with ingress and external IPs',
      {
        metadata: meta,
        spec: {
          type: 'LoadBalancer',
          clusterIP: '10.96.0.12',
          externalIPs: ['192.0.2.9'],
          ports: [],
        },
        status: {
          loadBalancer: { ingress: [{ ip: '203.0.113.2' }, { hostname: 'lb.example.com' }] },
        },
      },
      [
        'web',
        'LoadBalancer',
        '10.96.0.12',
        '203.0.113.2,lb.example.com,192.0.2.9',
        '<none>',
        '5m',
        '<none>',
      ],
    ],
    [
      'ExternalName',
      { metadata: meta, spec: { type: 'ExternalName', externalName: 'db.example.com' } },
      ['web', 'ExternalName', '<none>', 'db.example.com', '<none>', '5m', '<none>'],
    ],
  ])('%s', (_name, svc, want) => {
    expect(cells('services', svc)).toEqual(want);
  });

  it.each<[string, unknown, string]>([
    ['no subsets', { metadata: meta }, '<none>'],
    [
      'addresses times ports',
      {
        metadata: meta,
        subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: 'fd00::2' }], ports: [{ port: 80 }] }],
      },
      '10.0.0.1:80,[fd00::2]:80',
    ],
    [
      'more than three',
      {
        metadata: meta,
        subsets: [
          {
            addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }],
            ports: [{ port: 80 }, { port: 443 }],
          },
        ],
      },
      '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...',
    ],
    [
      'headless without ports',
      { metadata: meta, subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] },
      '10.0.0.1',
    ],
  ])('endpoints: %s', (_name, ep, want) => {
    expect(cells('endpoints', ep)).toEqual(['web', want, '5m']);
  });
});

describe('persistentvolumeclaims', () => {
  it('columns and cells', () => {
    expect(columns('persistentvolumeclaims').map((c) => c[0])).toEqual([
      'Name',
      'Status',
      'Volume',
      'Capacity',
      'Access Modes',
      'StorageClass',
      'VolumeAttributesClass',
      'Age',
      'VolumeMode',
    ]);
    const meta = { name: 'data', namespace: 'team', creationTimestamp: CREATED };
    expect(
      cells('persistentvolumeclaims', {
        metadata: meta,
        spec: {
          volumeName: 'pv-1',
          storageClassName: 'standard',
          volumeMode: 'Filesystem',
          accessModes: ['ReadWriteOnce'],
        },
        status: {
          phase: 'Bound',
          accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
          capacity: { storage: '1Gi' },
        },
      }),
    ).toEqual([
      'data',
      'Bound',
      'pv-1',
      '1Gi',
      'RWO,ROX',
      'standard',
      '<unset>',
      '5m',
      'Filesystem',
    ]);
    expect(
      cells('persistentvolumeclaims', {
        metadata: { ...meta, annotations: { 'volume.beta.kubernetes.io/storage-class': 'legacy' } },
        spec: { storageClassName: 'standard' },
        status: { phase: 'Pending' },
      }),
    ).toEqual(['data', 'Pending', '', '', '', 'legacy', '<unset>', '5m', '<unset>']);
    expect(
      cells('persistentvolumeclaims', {
        metadata: { ...meta, deletionTimestamp: CREATED },
        spec: {},
        status: { phase: 'Bound' },
      })[1],
    ).toBe('Terminating');
  });
});

describe('events (core and events.k8s.io)', () => {
  const expectedColumns: [string, string, number][] = [
    ['Last Seen', 'string', 0],
    ['Type', 'string', 0],
    ['Reason', 'string', 0],
    ['Object', 'string', 0],
    ['Subobject', 'string', 1],
    ['Source', 'string', 1],
    ['Message', 'string', 0],
    ['First Seen', 'string', 1],
    ['Count', 'string', 1],
    ['Name', 'string', 1],
  ];
  it('share the event columns', () => {
    expect(columns('events')).toEqual(expectedColumns);
    expect(columns('events.k8s.io/events')).toEqual(expectedColumns);
    const t = buildTable({ resource: 'events', objects: [], now: NOW });
    expect(t.columnDefinitions?.[9]?.format).toBe('name');
  });

  it.each<[string, string, unknown, TableCell[]]>([
    [
      'kubelet event with a count',
      'events',
      {
        metadata: { name: 'web.1', namespace: 'team' },
        involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{app}' },
        reason: 'Started',
        message: ' Started container app\n',
        type: 'Normal',
        source: { component: 'kubelet', host: 'node-1' },
        firstTimestamp: '2025-01-02T03:50:00Z',
        lastTimestamp: '2025-01-02T03:58:00Z',
        count: 3,
      },
      [
        '2m',
        'Normal',
        'Started',
        'pod/web',
        'spec.containers{app}',
        'kubelet, node-1',
        'Started container app',
        '10m',
        3,
        'web.1',
      ],
    ],
    [
      'new-style event: eventTime, reportingComponent, count 1',
      'events',
      {
        metadata: { name: 'sb.2', namespace: 'team' },
        involvedObject: { kind: 'Sandbox' },
        reason: 'Created',
        type: 'Normal',
        eventTime: '2025-01-02T03:59:00.000000Z',
        reportingComponent: 'agent-sandbox',
        reportingInstance: 'agent-sandbox-0',
      },
      [
        '60s',
        'Normal',
        'Created',
        'sandbox',
        '',
        'agent-sandbox, agent-sandbox-0',
        '',
        '60s',
        1,
        'sb.2',
      ],
    ],
    [
      'series',
      'events',
      {
        metadata: { name: 'sb.3', namespace: 'team' },
        involvedObject: { kind: 'Sandbox', name: 'sb' },
        reason: 'Retry',
        type: 'Warning',
        eventTime: '2025-01-02T03:00:00.000000Z',
        series: { count: 7, lastObservedTime: '2025-01-02T03:59:30.000000Z' },
      },
      ['30s', 'Warning', 'Retry', 'sandbox/sb', '', '', '', '60m', 7, 'sb.3'],
    ],
    [
      'events.k8s.io/v1 event',
      'events.k8s.io/events',
      {
        metadata: { name: 'sb.4', namespace: 'team' },
        regarding: { kind: 'Sandbox', name: 'sb' },
        note: 'pod is pending',
        reason: 'PodPending',
        type: 'Warning',
        action: 'Reconcile',
        eventTime: '2025-01-02T03:57:00.000000Z',
        reportingController: 'agent-sandbox',
        reportingInstance: 'host-1',
      },
      [
        '3m',
        'Warning',
        'PodPending',
        'sandbox/sb',
        '',
        'agent-sandbox, host-1',
        'pod is pending',
        '3m',
        1,
        'sb.4',
      ],
    ],
    [
      'events.k8s.io/v1 event with deprecated fields and a series',
      'events.k8s.io/events',
      {
        metadata: { name: 'sb.5', namespace: 'team' },
        regarding: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{app}' },
        note: 'Back-off',
        reason: 'BackOff',
        type: 'Warning',
        eventTime: null,
        deprecatedSource: { component: 'kubelet' },
        deprecatedFirstTimestamp: '2025-01-02T02:00:00Z',
        deprecatedLastTimestamp: '2025-01-02T03:00:00Z',
        deprecatedCount: 12,
        series: { count: 14, lastObservedTime: '2025-01-02T03:59:50.000000Z' },
      },
      [
        '10s',
        'Warning',
        'BackOff',
        'pod/web',
        'spec.containers{app}',
        'kubelet',
        'Back-off',
        '120m',
        14,
        'sb.5',
      ],
    ],
  ])('%s', (_name, resource, event, want) => {
    expect(cells(resource, event)).toEqual(want);
  });
});

describe('resources without a printer (customresourcedefinitions)', () => {
  it('Name and Created At as RFC 3339', () => {
    const t = buildTable({
      resource: 'apiextensions.k8s.io/customresourcedefinitions',
      objects: [
        {
          metadata: {
            name: 'sandboxes.agents.x-k8s.io',
            creationTimestamp: '2025-01-02T03:55:00Z',
          },
        },
        { metadata: { name: 'odd.example.com', creationTimestamp: '2025-01-02T04:55:00.7+01:00' } },
        { metadata: { name: 'none.example.com' } },
      ],
      now: NOW,
    });
    expect(t.columnDefinitions?.map((c) => [c.name, c.type, c.format])).toEqual([
      ['Name', 'string', 'name'],
      ['Created At', 'date', ''],
    ]);
    expect(t.rows.map((r) => r.cells)).toEqual([
      ['sandboxes.agents.x-k8s.io', '2025-01-02T03:55:00Z'],
      ['odd.example.com', '2025-01-02T03:55:00Z'],
      ['none.example.com', '0001-01-01T00:00:00Z'],
    ]);
  });
});

describe('includeObject on built-in kinds', () => {
  const cm = {
    metadata: { name: 'cfg', namespace: 'team', creationTimestamp: CREATED, resourceVersion: '7' },
    data: { a: '1' },
  };
  it('Metadata gives PartialObjectMetadata, Object the object, None null', () => {
    const rows = (includeObject: string) =>
      buildTable({ resource: 'configmaps', objects: [cm], now: NOW, includeObject }).rows;
    expect(rows('Metadata')[0]?.object).toEqual({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: cm.metadata,
    });
    expect(rows('Object')[0]?.object).toBe(cm);
    expect(rows('None')[0]?.object).toBeNull();
  });
});
