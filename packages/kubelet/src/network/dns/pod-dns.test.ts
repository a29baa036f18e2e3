import type { Pod } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { podResolvConf, type ResolvConf } from './pod-dns.ts';

const cluster: ResolvConf = {
  nameservers: ['10.88.0.1'],
  searches: ['ns1.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
  options: ['ndots:5'],
};
const host: ResolvConf = { nameservers: ['192.0.2.53'], searches: ['corp'], options: [] };
const pod = (spec: Partial<Pod['spec']>): Pod => ({ spec: { containers: [], ...spec } });

describe('podResolvConf', () => {
  it('ClusterFirst (the default) uses cluster DNS, else the host settings', () => {
    expect(podResolvConf(pod({}), cluster, host)).toEqual(cluster);
    expect(podResolvConf(pod({ dnsPolicy: 'ClusterFirst' }), undefined, host)).toEqual(host);
    expect(podResolvConf(pod({}), undefined)).toBeUndefined();
  });

  it('Default uses the host settings, None only dnsConfig', () => {
    expect(podResolvConf(pod({ dnsPolicy: 'Default' }), cluster, host)).toEqual(host);
    expect(podResolvConf(pod({ dnsPolicy: 'Default' }), cluster)).toBeUndefined();
    expect(
      podResolvConf(
        pod({ dnsPolicy: 'None', dnsConfig: { nameservers: ['8.8.8.8', '1.1.1.1'] } }),
        cluster,
      ),
    ).toEqual({ nameservers: ['8.8.8.8', '1.1.1.1'], searches: [], options: [] });
  });

  it('merges dnsConfig: appended without duplicates (3 nameservers at most), options by name', () => {
    const r = podResolvConf(
      pod({
        dnsConfig: {
          nameservers: ['10.88.0.1', '9.9.9.9', '8.8.8.8', '1.1.1.1'],
          searches: ['cluster.local', 'extra.example'],
          options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }],
        },
      }),
      cluster,
    );
    expect(r).toEqual({
      nameservers: ['10.88.0.1', '9.9.9.9', '8.8.8.8'],
      searches: [...cluster.searches, 'extra.example'],
      options: ['ndots:2', 'edns0'],
    });
  });
});
