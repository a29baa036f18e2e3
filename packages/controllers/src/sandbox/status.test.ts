// §21.1 status scenarios: selector, podIPs/nodeName, service status, TestReconcileCoalescesNodeNameStatusWrite,
// TestReconcileChildResourcesSuspendedForeignPodDoesNotLeakIPOrNodeName; §23.4, §23.6.
import { describe, expect, it } from 'vitest';
import {
  NOW,
  SANDBOX_UID,
  ownerRef,
  pod,
  readyPod,
  sandbox,
  service,
} from '../testing/builders.ts';
import type { ObservedChildren } from './conditions.ts';
import { computeStatus, isStatusWriteNeeded, statusMergePatch } from './status.ts';

const owned = ownerRef(SANDBOX_UID);
const SELECTOR = 'agents.x-k8s.io/sandbox-name-hash=374de8f5';
const observed = (o: Partial<ObservedChildren> = {}): ObservedChildren => ({
  podOwned: o.pod !== undefined,
  ownedPodCount: o.pod !== undefined && o.podOwned !== false ? 1 : 0,
  serviceOwned: o.service !== undefined,
  reconcileErrors: [],
  now: NOW,
  ...o,
});

describe('computeStatus', () => {
  it('minimal spec with a new pod: selector set, no service', () => {
    const st = computeStatus(sandbox(), observed({ pod: pod('my-sandbox', { owner: owned }) }));
    expect(st.selector).toBe(SELECTOR);
    expect(st.service).toBeUndefined();
    expect(st.podIPs).toBeUndefined();
  });

  it('existing pod propagates podIPs and nodeName', () => {
    const st = computeStatus(
      sandbox(),
      observed({
        pod: readyPod('my-sandbox', {
          owner: owned,
          podIPs: ['10.0.0.1', 'fd00::1'],
          nodeName: 'node-a',
        }),
      }),
    );
    expect(st.podIPs).toEqual(['10.0.0.1', 'fd00::1']);
    expect(st.nodeName).toBe('node-a');
    expect(st.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('service: true → status service and FQDN <n>.<ns>.svc.cluster.local', () => {
    const s = sandbox('my-sandbox', (x) => (x.spec.service = true));
    const st = computeStatus(s, observed({ service: service('my-sandbox', owned) }));
    expect(st.service).toBe('my-sandbox');
    expect(st.serviceFQDN).toBe('my-sandbox.default.svc.cluster.local');
    const custom = computeStatus(s, observed({ service: service('my-sandbox', owned) }), {
      clusterDomain: 'corp.example',
    });
    expect(custom.serviceFQDN).toBe('my-sandbox.default.svc.corp.example');
  });

  it('TestReconcileChildResourcesSuspendedForeignPodDoesNotLeakIPOrNodeName', () => {
    const s = sandbox('my-sandbox', (x) => {
      x.spec.operatingMode = 'Suspended';
      x.status = { podIPs: ['10.0.0.9'], nodeName: 'old' };
    });
    const st = computeStatus(
      s,
      observed({
        pod: readyPod('my-sandbox', { nodeName: 'node-b' }),
        podOwned: false,
        ownedPodCount: 0,
      }),
    );
    expect(st.podIPs).toBeUndefined();
    expect(st.nodeName).toBeUndefined();
    expect(st.selector).toBe(SELECTOR);
  });

  it('selector persists across suspend; podIPs, nodeName and service cleared when gone (§23.6)', () => {
    const s = sandbox('my-sandbox', (x) => {
      x.spec.operatingMode = 'Suspended';
      x.status = {
        selector: SELECTOR,
        podIPs: ['10.0.0.1'],
        nodeName: 'n',
        service: 'my-sandbox',
        serviceFQDN: 'f',
      };
    });
    const st = computeStatus(s, observed({ service: service('my-sandbox', owned) }));
    expect(st).toMatchObject({ selector: SELECTOR, service: 'my-sandbox' });
    expect(st.podIPs).toBeUndefined();
    expect(st.nodeName).toBeUndefined();
    const noService = computeStatus(s, observed());
    expect(noService.service).toBeUndefined();
    expect(noService.serviceFQDN).toBeUndefined();
    expect(noService.selector).toBe(SELECTOR);
  });

  it('multiple owned pods: service status untouched (service step skipped), pod fields cleared', () => {
    const s = sandbox(
      'my-sandbox',
      (x) => (x.status = { service: 'my-sandbox', serviceFQDN: 'f', podIPs: ['1.1.1.1'] }),
    );
    const st = computeStatus(s, observed({ ownedPodCount: 2 }));
    expect(st.service).toBe('my-sandbox');
    expect(st.serviceFQDN).toBe('f');
    expect(st.podIPs).toBeUndefined();
    expect(st.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('MultiplePods');
  });
});

describe('service status on a failed service step', () => {
  it('a foreign Service refusal leaves status.service as it was', () => {
    const s = sandbox('my-sandbox', (x) => {
      x.spec.service = true;
      x.status = { service: 'my-sandbox', serviceFQDN: 'my-sandbox.default.svc.cluster.local' };
    });
    const err = new Error(
      'service "my-sandbox" is owned by Deployment/d (UID: x), not by sandbox "my-sandbox"',
    );
    const st = computeStatus(s, observed({ serviceError: err, reconcileErrors: [err] }));
    expect(st.service).toBe('my-sandbox');
    expect(st.serviceFQDN).toBe('my-sandbox.default.svc.cluster.local');
    expect(st.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('ReconcilerError');
  });
});

describe('status write (§11.8)', () => {
  it('TestReconcileCoalescesNodeNameStatusWrite: nodeName-only change not written until Ready', () => {
    const s = sandbox();
    const scheduled = pod('my-sandbox', { owner: owned, phase: 'Pending', nodeName: 'node-a' });
    const before = computeStatus(
      s,
      observed({ pod: pod('my-sandbox', { owner: owned, phase: 'Pending' }) }),
    );
    const next = computeStatus({ ...s, status: before }, observed({ pod: scheduled }));
    expect(next.nodeName).toBe('node-a');
    expect(isStatusWriteNeeded(before, next)).toBe(false);
    const ready = computeStatus(
      { ...s, status: before },
      observed({ pod: readyPod('my-sandbox', { owner: owned, nodeName: 'node-a' }) }),
    );
    expect(isStatusWriteNeeded(before, ready)).toBe(true);
  });

  it('equal statuses are not written; missing and empty compare equal', () => {
    expect(isStatusWriteNeeded(undefined, {})).toBe(false);
    expect(isStatusWriteNeeded({ podIPs: [], service: '' }, {})).toBe(false);
    expect(isStatusWriteNeeded({}, { selector: SELECTOR })).toBe(true);
  });

  it('merge patch: changed fields sent, removed ones null, conditions whole', () => {
    expect(
      statusMergePatch(
        { podIPs: ['1.1.1.1'], selector: SELECTOR },
        { selector: SELECTOR, service: 's' },
      ),
    ).toEqual({
      status: { service: 's', podIPs: null },
    });
  });
});
