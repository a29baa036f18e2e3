import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../objects.ts';
import { podEndpoints, TriggerTimeTracker } from './desired.ts';
import { endpointSubsets, sliceContents } from './shapes.ts';

function service(spec: Record<string, unknown>): KubeObject {
  return {
    metadata: { name: 'web', namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: {
      selector: { app: 'web' },
      ports: [{ name: 'http', port: 80, targetPort: 'http' }],
      ...spec,
    },
  };
}

function pod(
  name: string,
  extra: {
    ready?: boolean;
    ip?: string;
    node?: string;
    deleting?: boolean;
    phase?: string;
    spec?: Record<string, unknown>;
    changed?: string;
  } = {},
): KubeObject {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      labels: { app: 'web' },
      ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:09Z' } : {}),
    },
    spec: {
      ...('node' in extra ? (extra.node ? { nodeName: extra.node } : {}) : { nodeName: 'n1' }),
      containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] }],
      ...extra.spec,
    },
    status: {
      phase: extra.phase ?? 'Running',
      ...(extra.ip === '' ? {} : { podIP: extra.ip ?? `10.0.0.${name.length}` }),
      conditions: [
        {
          type: 'Ready',
          status: extra.ready === false ? 'False' : 'True',
          lastTransitionTime: extra.changed ?? '2026-01-01T00:00:05Z',
        },
      ],
    },
  };
}

describe('endpoints of a Service', () => {
  it('leaves out Pods without an IP, without a node, terminal ones and other labels', () => {
    const others = {
      ...pod('other'),
      metadata: { ...pod('other').metadata, labels: { app: 'x' } },
    };
    const names = podEndpoints(service({}), [
      pod('a'),
      pod('noip', { ip: '' }),
      pod('nonode', { node: '' }),
      pod('done', { phase: 'Succeeded' }),
      others,
    ]).map((e) => e.pod.name);
    expect(names).toEqual(['a']);
  });

  it('marks terminating Pods not ready but serving, and publishNotReadyAddresses makes all ready', () => {
    const [t] = podEndpoints(service({}), [pod('t', { deleting: true })]);
    expect(t).toMatchObject({ ready: false, serving: true, terminating: true });
    const [n] = podEndpoints(service({ publishNotReadyAddresses: true }), [
      pod('n', { ready: false }),
    ]);
    expect(n).toMatchObject({ ready: true, serving: true, terminating: false });
  });

  it('resolves named ports per Pod and drops ports a Pod does not have', () => {
    const svc = service({
      ports: [
        { name: 'http', port: 80, targetPort: 'http' },
        { name: 'x', port: 81, targetPort: 'nope' },
        { name: 'n', port: 82, targetPort: 9000 },
      ],
    });
    const [e] = podEndpoints(svc, [pod('a')]);
    expect(e?.ports).toEqual([
      { name: 'http', protocol: 'TCP', port: 8080 },
      { name: 'n', protocol: 'TCP', port: 9000 },
    ]);
  });

  it('sets hostname only for Pods whose subdomain is the Service', () => {
    const [h, o] = podEndpoints(service({}), [
      pod('h', { spec: { hostname: 'h0', subdomain: 'web' } }),
      pod('o', { spec: { hostname: 'o0', subdomain: 'other' } }),
    ]);
    expect(h?.hostname).toBe('h0');
    expect(o?.hostname).toBeUndefined();
  });

  it('groups slices by port set, keeps a placeholder, and splits Endpoints into ready and not ready', () => {
    expect(sliceContents([])).toEqual([{ endpoints: null, ports: null }]);
    const eps = podEndpoints(service({}), [
      pod('a'),
      pod('bb', { ready: false }),
      pod('ccc', { deleting: true }),
    ]);
    expect(sliceContents(eps)).toHaveLength(1);
    const [subset] = endpointSubsets(eps) ?? [];
    expect((subset?.['addresses'] as { ip: string }[]).map((a) => a.ip)).toEqual(['10.0.0.1']);
    expect((subset?.['notReadyAddresses'] as { ip: string }[]).map((a) => a.ip)).toEqual([
      '10.0.0.2',
    ]);
  });

  it('tracks trigger times like kube: the Service at first, then only newer Pod transitions', () => {
    const tracker = new TriggerTimeTracker();
    const svc = service({});
    expect(tracker.compute('ns/web', svc, [])).toBe('2026-01-01T00:00:00Z');
    expect(tracker.compute('ns/web', svc, [])).toBeUndefined();
    expect(tracker.compute('ns/web', svc, [pod('a', { changed: '2026-01-01T00:01:00Z' })])).toBe(
      '2026-01-01T00:01:00Z',
    );
    expect(
      tracker.compute('ns/web', svc, [pod('a', { changed: '2026-01-01T00:01:00Z' })]),
    ).toBeUndefined();
  });
});
