import type { Pod, Service } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { answerClusterName, type ClusterView } from './cluster-records.ts';

const D = 'cluster.local';

function pod(name: string, ip: string, extra: Partial<Pod['spec']> = {}, ready = true): Pod {
  return {
    metadata: { name, namespace: 'ns1', labels: { app: name.split('-')[0] as string } },
    spec: { containers: [], ...extra },
    status: {
      phase: 'Running',
      podIP: ip,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
    },
  };
}

function svc(name: string, spec: Service['spec']): Service {
  return { metadata: { name, namespace: 'ns1' }, spec };
}

const view: ClusterView = {
  services: [
    svc('web', { selector: { app: 'web' }, clusterIP: '10.96.0.10' }),
    svc('lazy', { selector: { app: 'lazy' }, publishNotReadyAddresses: true }),
    svc('ext', { type: 'ExternalName', externalName: 'example.org' }),
    svc('none', {}),
    svc('sub', { clusterIP: 'None', selector: { app: 'h' } }),
  ],
  pods: [
    pod('web-1', '10.88.0.3'),
    pod('web-2', '10.88.0.2'),
    pod('web-3', '10.88.0.4', {}, false),
    pod('lazy-1', '10.88.0.5', {}, false),
    pod('h-1', '10.88.0.6', { hostname: 'h1', subdomain: 'sub' }),
  ],
};

const a = (name: string, type = 'A') => answerClusterName(name, type, view, D);

describe('answerClusterName', () => {
  it('answers a Service with its ready Pods (no proxy here), sorted', () => {
    expect(a('web.ns1.svc.cluster.local')).toEqual({
      rcode: 'NOERROR',
      answers: [
        { type: 'A', name: 'web.ns1.svc.cluster.local', data: '10.88.0.2' },
        { type: 'A', name: 'web.ns1.svc.cluster.local', data: '10.88.0.3' },
      ],
    });
    expect(a('lazy.ns1.svc.cluster.local').answers.map((r) => r.data)).toEqual(['10.88.0.5']);
  });

  it('gives NODATA for an existing name without records of the type, NXDOMAIN for unknown names', () => {
    expect(a('web.ns1.svc.cluster.local', 'AAAA')).toEqual({ rcode: 'NOERROR', answers: [] });
    expect(a('none.ns1.svc.cluster.local')).toEqual({ rcode: 'NOERROR', answers: [] });
    for (const n of [
      'web.ns2.svc.cluster.local',
      'nope.ns1.svc.cluster.local',
      'web.ns1.svc.other.local',
      'ns1.svc.cluster.local',
      'x.y.z.w.ns1.svc.cluster.local',
      '1-2-3.ns1.pod.cluster.local',
    ])
      expect(a(n).rcode, n).toBe('NXDOMAIN');
  });

  it('answers ExternalName with a CNAME, for A questions too', () => {
    expect(a('ext.ns1.svc.cluster.local').answers).toEqual([
      { type: 'CNAME', name: 'ext.ns1.svc.cluster.local', data: 'example.org' },
    ]);
  });

  it('answers hostname.subdomain and dashed Pod IP names', () => {
    expect(a('h1.sub.ns1.svc.cluster.local').answers.map((r) => r.data)).toEqual(['10.88.0.6']);
    expect(a('h1.web.ns1.svc.cluster.local').rcode).toBe('NXDOMAIN');
    expect(a('10-88-0-9.ns1.pod.cluster.local').answers).toEqual([
      { type: 'A', name: '10-88-0-9.ns1.pod.cluster.local', data: '10.88.0.9' },
    ]);
  });
});
