// §21.1 TestComputeConditions, as one table (§8.1 reasons and messages, verbatim).
import { describe, expect, it } from 'vitest';
import type { Condition } from '@agent-sandbox/api';
import { MultiplePodsError } from '../errors.ts';
import {
  NOW,
  SANDBOX_UID,
  ownerRef,
  pod,
  readyPod,
  sandbox,
  service,
} from '../testing/builders.ts';
import { computeConditions, type ObservedChildren } from './conditions.ts';

const owned = ownerRef(SANDBOX_UID);
const observed = (o: Partial<ObservedChildren> = {}): ObservedChildren => ({
  podOwned: o.pod !== undefined,
  ownedPodCount: o.pod !== undefined && o.podOwned !== false ? 1 : 0,
  serviceOwned: o.service !== undefined,
  reconcileErrors: [],
  now: NOW,
  ...o,
});
const byType = (conds: Condition[]) =>
  Object.fromEntries(conds.map((c) => [c.type, [c.status, c.reason, c.message]]));

const running = sandbox();
const withService = sandbox('my-sandbox', (s) => (s.spec.service = true));
const suspended = sandbox('my-sandbox', (s) => (s.spec.operatingMode = 'Suspended'));
const svc = service('my-sandbox', owned);
const notSuspended = ['False', 'NotSuspended', 'Sandbox is not suspended'];

describe('TestComputeConditions', () => {
  const cases: {
    name: string;
    sandbox: typeof running;
    observed: ObservedChildren;
    want: Record<string, string[] | undefined>;
  }[] = [
    {
      name: 'provisioning, no pod, service required but missing',
      sandbox: withService,
      observed: observed(),
      want: {
        Suspended: notSuspended,
        Ready: ['False', 'DependenciesNotReady', 'Pod does not exist; Service does not exist'],
        PodScheduled: undefined,
      },
    },
    {
      name: 'no pod, service present',
      sandbox: withService,
      observed: observed({ service: svc }),
      want: { Ready: ['False', 'DependenciesNotReady', 'Pod does not exist; Service Exists'] },
    },
    {
      name: 'pod Pending (+ PodScheduled Unknown)',
      sandbox: withService,
      observed: observed({
        pod: pod('my-sandbox', { owner: owned, phase: 'Pending' }),
        service: svc,
      }),
      want: {
        Ready: ['False', 'DependenciesNotReady', 'Pod exists with phase: Pending; Service Exists'],
        PodScheduled: [
          'Unknown',
          'PodSchedulingUnknown',
          'Pod has not reported a PodScheduled condition yet',
        ],
      },
    },
    {
      name: 'pod Running not Ready',
      sandbox: running,
      observed: observed({
        pod: pod('my-sandbox', {
          owner: owned,
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'False' }],
        }),
      }),
      want: { Ready: ['False', 'DependenciesNotReady', 'Pod is Running but not Ready'] },
    },
    {
      name: 'pod Ready without IPs',
      sandbox: running,
      observed: observed({ pod: readyPod('my-sandbox', { owner: owned, podIPs: [] }) }),
      want: { Ready: ['False', 'DependenciesNotReady', 'Pod is Ready but has no podIPs yet'] },
    },
    {
      name: 'pod Ready with IPs and no Service by default',
      sandbox: running,
      observed: observed({ pod: readyPod('my-sandbox', { owner: owned }) }),
      want: { Ready: ['True', 'DependenciesReady', 'Pod is Ready'] },
    },
    {
      name: 'service unset but an owned Service exists: it is required',
      sandbox: running,
      observed: observed({ pod: readyPod('my-sandbox', { owner: owned }), service: svc }),
      want: { Ready: ['True', 'DependenciesReady', 'Pod is Ready; Service Exists'] },
    },
    {
      name: 'suspended with owned terminating pod',
      sandbox: suspended,
      observed: observed({
        pod: pod('my-sandbox', {
          owner: owned,
          phase: 'Running',
          deletionTimestamp: '2026-01-01T00:00:00Z',
        }),
      }),
      want: {
        Suspended: ['False', 'PodTerminating', 'Pod is terminating. Sandbox is suspending'],
        Ready: ['False', 'SandboxSuspended', 'Sandbox is suspending'],
      },
    },
    {
      name: 'suspended with unowned pod',
      sandbox: suspended,
      observed: observed({ pod: pod('my-sandbox'), podOwned: false }),
      want: {
        Suspended: [
          'False',
          'PodNotOwned',
          'Refused to delete pod because it is not owned by this sandbox',
        ],
        Ready: ['False', 'SandboxSuspended', 'Sandbox is suspending'],
        PodScheduled: undefined,
      },
    },
    {
      name: 'suspended, owned pod whose delete failed: still PodTerminating (not Unknown)',
      sandbox: suspended,
      observed: observed({
        pod: pod('my-sandbox', { owner: owned }),
        podError: new Error('failed to delete pod: boom'),
        reconcileErrors: [new Error('failed to delete pod: boom')],
      }),
      want: {
        Suspended: ['False', 'PodTerminating', 'Pod is terminating. Sandbox is suspending'],
        Ready: ['False', 'ReconcilerError', 'Error seen: failed to delete pod: boom'],
      },
    },
    {
      name: 'fully suspended (no pod)',
      sandbox: suspended,
      observed: observed(),
      want: {
        Suspended: ['True', 'PodTerminated', 'Pod has been terminated. Sandbox is suspended'],
        Ready: ['False', 'SandboxSuspended', 'Sandbox is suspended'],
      },
    },
    {
      name: 'suspended, pod reconcile failed',
      sandbox: suspended,
      observed: observed({
        podError: new Error('pod get failed: timeout'),
        reconcileErrors: [new Error('pod get failed: timeout')],
      }),
      want: {
        Suspended: [
          'Unknown',
          'PodStateUnknown',
          'Pod state is unknown. Sandbox suspension cannot be confirmed',
        ],
        Ready: ['False', 'ReconcilerError', 'Error seen: pod get failed: timeout'],
      },
    },
    {
      name: 'running, pod reconcile failed: PodScheduled Unknown',
      sandbox: running,
      observed: observed({
        podError: new Error('pod get failed: timeout'),
        reconcileErrors: [new Error('pod get failed: timeout')],
      }),
      want: {
        Suspended: notSuspended,
        PodScheduled: [
          'Unknown',
          'PodSchedulingUnknown',
          'Pod state is unknown. Pod scheduling cannot be determined',
        ],
      },
    },
    {
      name: 'resuming with pod missing',
      sandbox: running,
      observed: observed(),
      want: {
        Suspended: notSuspended,
        Ready: ['False', 'DependenciesNotReady', 'Pod does not exist'],
      },
    },
    {
      name: 'pod phase Unknown',
      sandbox: withService,
      observed: observed({
        pod: pod('my-sandbox', { owner: owned, phase: 'Unknown' }),
        service: svc,
      }),
      want: {
        Ready: ['False', 'DependenciesNotReady', 'Pod exists with phase: Unknown; Service Exists'],
      },
    },
    {
      name: 'pod Failed',
      sandbox: running,
      observed: observed({ pod: pod('my-sandbox', { owner: owned, phase: 'Failed' }) }),
      want: {
        Ready: ['False', 'PodFailed', 'Pod failed'],
        Finished: ['True', 'PodFailed', 'Pod failed'],
      },
    },
    {
      name: 'pod Succeeded',
      sandbox: running,
      observed: observed({ pod: pod('my-sandbox', { owner: owned, phase: 'Succeeded' }) }),
      want: {
        Ready: ['False', 'PodSucceeded', 'Pod completed successfully'],
        Finished: ['True', 'PodSucceeded', 'Pod completed successfully'],
      },
    },
    {
      name: 'foreign terminal pod does not produce Finished',
      sandbox: suspended,
      observed: observed({ pod: pod('my-sandbox', { phase: 'Succeeded' }), podOwned: false }),
      want: { Finished: undefined, PodScheduled: undefined },
    },
    {
      name: 'reconcile error takes precedence over everything',
      sandbox: suspended,
      observed: observed({
        pod: pod('my-sandbox', { owner: owned, phase: 'Failed' }),
        reconcileErrors: [new Error('pvc boom'), new Error('service boom')],
      }),
      want: { Ready: ['False', 'ReconcilerError', 'Error seen: pvc boom\nservice boom'] },
    },
    {
      name: 'pod Unschedulable: PodScheduled reason/message copied verbatim',
      sandbox: running,
      observed: observed({
        pod: pod('my-sandbox', {
          owner: owned,
          phase: 'Pending',
          conditions: [
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message: '0/3 nodes are available',
            },
          ],
        }),
      }),
      want: { PodScheduled: ['False', 'Unschedulable', '0/3 nodes are available'] },
    },
    {
      name: 'SchedulingGated reason passed through',
      sandbox: running,
      observed: observed({
        pod: pod('my-sandbox', {
          owner: owned,
          phase: 'Pending',
          conditions: [
            { type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'gated' },
          ],
        }),
      }),
      want: { PodScheduled: ['False', 'SchedulingGated', 'gated'] },
    },
    {
      name: 'PodScheduled False with empty reason: fallback PodSchedulingUnknown',
      sandbox: running,
      observed: observed({
        pod: pod('my-sandbox', {
          owner: owned,
          conditions: [{ type: 'PodScheduled', status: 'False', reason: '' }],
        }),
      }),
      want: { PodScheduled: ['False', 'PodSchedulingUnknown', ''] },
    },
    {
      name: 'PodScheduled True with empty reason: fallback PodScheduled',
      sandbox: running,
      observed: observed({
        pod: pod('my-sandbox', {
          owner: owned,
          conditions: [{ type: 'PodScheduled', status: 'True' }],
        }),
      }),
      want: { PodScheduled: ['True', 'PodScheduled', ''] },
    },
    {
      name: 'multiple owned pods: MultiplePods message excludes other joined errors',
      sandbox: running,
      observed: observed({
        ownedPodCount: 2,
        podError: new MultiplePodsError(2),
        reconcileErrors: [new Error('pvc boom'), new MultiplePodsError(2)],
      }),
      want: {
        Ready: [
          'False',
          'MultiplePods',
          'multiple Pods (2) are controlled by this Sandbox; refusing to choose or create a Pod',
        ],
      },
    },
  ];

  it.each(cases)('$name', ({ sandbox: s, observed: o, want }) => {
    const got = byType(computeConditions(s, o));
    for (const [type, expected] of Object.entries(want)) expect(got[type], type).toEqual(expected);
    expect(got.Suspended, 'Suspended is always present').toBeDefined();
  });
});
