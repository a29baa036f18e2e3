// Golden cases for phase and conditions (kubelet-and-oci §1.3–1.4), one row per situation.
import type { Pod } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import type { ContainerRecord, RunState, Terminated } from './container-record.ts';
import { computePodStatus } from './pod-status.ts';

const T0 = '2026-01-01T00:00:00Z';
const NOW = '2026-01-01T00:01:00Z';

function rec(name: string, state: RunState, extra: Partial<ContainerRecord> = {}): ContainerRecord {
  return {
    name,
    state,
    restartCount: 0,
    ready: state.kind === 'running',
    started: state.kind === 'running',
    image: 'busybox',
    imageID: 'id',
    containerID: 'runc://x',
    ...extra,
  };
}
const running: RunState = { kind: 'running', startedAt: T0 };
const exited = (exitCode: number): RunState & Terminated => ({
  kind: 'terminated',
  exitCode,
  reason: exitCode ? 'Error' : 'Completed',
  startedAt: T0,
  finishedAt: T0,
  containerID: 'runc://x',
});
const creating: RunState = { kind: 'waiting', reason: 'ContainerCreating' };
const crashLoop: RunState = { kind: 'waiting', reason: 'CrashLoopBackOff' };

function pod(restartPolicy: string, phase?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: [], restartPolicy },
    ...(phase ? { status: { phase } } : {}),
  } as Pod;
}

type Row = [
  string,
  {
    policy: string;
    phase?: string;
    init?: ContainerRecord[];
    containers: ContainerRecord[];
    terminal?: boolean;
  },
  string,
  Record<string, string>,
];

const rows: Row[] = [
  [
    'creating',
    { policy: 'Always', containers: [rec('app', creating)] },
    'Pending',
    {
      Initialized: 'True',
      ContainersReady: 'False/ContainersNotReady',
      Ready: 'False/ContainersNotReady',
    },
  ],
  [
    'running and ready',
    { policy: 'Always', containers: [rec('app', running)] },
    'Running',
    { ContainersReady: 'True', Ready: 'True' },
  ],
  [
    'crash loop stays Running under Always',
    {
      policy: 'Always',
      containers: [rec('app', crashLoop, { lastTerminated: exited(1), restartCount: 2 })],
    },
    'Running',
    { Ready: 'False/ContainersNotReady' },
  ],
  [
    'Never, exit 0 → Succeeded',
    { policy: 'Never', containers: [rec('app', exited(0), { ready: false })] },
    'Succeeded',
    {
      Initialized: 'True/PodCompleted',
      ContainersReady: 'False/PodCompleted',
      Ready: 'False/PodCompleted',
    },
  ],
  [
    'Never, exit 1 → Failed',
    { policy: 'Never', containers: [rec('app', exited(1), { ready: false })] },
    'Failed',
    { ContainersReady: 'False/PodFailed' },
  ],
  [
    'OnFailure, exit 1 → Running (restarting)',
    { policy: 'OnFailure', containers: [rec('app', exited(1), { ready: false })] },
    'Running',
    {},
  ],
  [
    'Always, deleted, all exit 0 → Succeeded',
    { policy: 'Always', terminal: true, containers: [rec('app', exited(0), { ready: false })] },
    'Succeeded',
    {},
  ],
  [
    'Always, deleted, killed → Failed',
    { policy: 'Always', terminal: true, containers: [rec('app', exited(137), { ready: false })] },
    'Failed',
    { PodReadyToStartContainers: 'False' },
  ],
  [
    'init running',
    {
      policy: 'Always',
      init: [rec('setup', running)],
      containers: [rec('app', { kind: 'waiting', reason: 'PodInitializing' })],
    },
    'Pending',
    { Initialized: 'False/ContainersNotInitialized' },
  ],
  [
    'init failed under Never → Failed',
    {
      policy: 'Never',
      init: [rec('setup', exited(2), { ready: false })],
      containers: [rec('app', { kind: 'waiting', reason: 'PodInitializing' })],
    },
    'Failed',
    {},
  ],
  [
    'init failed under Always → Pending',
    {
      policy: 'Always',
      init: [rec('setup', crashLoop, { lastTerminated: exited(2) })],
      containers: [rec('app', { kind: 'waiting', reason: 'PodInitializing' })],
    },
    'Pending',
    {},
  ],
  [
    'init done, app running',
    {
      policy: 'Always',
      init: [rec('setup', exited(0), { ready: false })],
      containers: [rec('app', running)],
    },
    'Running',
    { Initialized: 'True', Ready: 'True' },
  ],
  [
    'terminal phases are sticky',
    { policy: 'Always', phase: 'Failed', containers: [rec('app', running)] },
    'Failed',
    {},
  ],
];

describe('computePodStatus', () => {
  it.each(rows)('%s', (_name, c, phase, conditions) => {
    const s = computePodStatus({
      pod: pod(c.policy, c.phase),
      init: c.init ?? [],
      containers: c.containers,
      sandboxReady: true,
      terminal: c.terminal ?? false,
      hostIP: '10.0.0.1',
      podIPs: [],
      startTime: T0,
      now: NOW,
    });
    expect(s.phase).toBe(phase);
    expect(s.conditions?.map((x) => x.type)).toEqual([
      'PodReadyToStartContainers',
      'Initialized',
      'Ready',
      'ContainersReady',
      'PodScheduled',
    ]);
    for (const [type, want] of Object.entries(conditions)) {
      const got = s.conditions?.find((x) => x.type === type);
      expect(`${type}=${got?.status}${got?.reason ? `/${got.reason}` : ''}`).toBe(
        `${type}=${want}`,
      );
    }
  });

  it('names unready containers, keeps transition times and foreign conditions', () => {
    const p = pod('Always');
    p.status = {
      conditions: [
        { type: 'Ready', status: 'False', lastTransitionTime: T0 },
        { type: 'example.com/gate', status: 'True' },
      ],
    };
    const s = computePodStatus({
      pod: p,
      init: [],
      containers: [rec('b', creating), rec('a', creating)],
      sandboxReady: false,
      terminal: false,
      hostIP: '10.0.0.1',
      podIPs: ['10.1.0.2'],
      startTime: T0,
      now: NOW,
    });
    expect(s.conditions?.find((c) => c.type === 'ContainersReady')?.message).toBe(
      'containers with unready status: [b a]',
    );
    expect(s.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime).toBe(T0);
    expect(s.conditions?.find((c) => c.type === 'PodScheduled')?.lastTransitionTime).toBe(NOW);
    expect(s.conditions?.at(-1)).toEqual({ type: 'example.com/gate', status: 'True' });
    expect(s.containerStatuses?.map((c) => c.name)).toEqual(['a', 'b']);
    expect(s.podIPs).toEqual([{ ip: '10.1.0.2' }]);
  });
});
