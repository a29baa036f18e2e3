import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../objects.ts';
import { openStore } from '../storage/index.ts';
import { ResourceRegistry } from './registry.ts';
import { allocateService, allocateServiceUpdate, inServiceCidr } from './service-allocation.ts';
import { defaultService } from './service-strategy.ts';

const r = new ResourceRegistry().lookup('', 'v1', 'services');
if (!r) throw new Error('services are not served');
const services = r;

function svc(name: string, spec: Record<string, unknown>): KubeObject {
  const obj: KubeObject = { metadata: { name, namespace: 'ns' }, spec };
  defaultService(obj);
  return obj;
}

function stored(store: ReturnType<typeof openStore>, obj: KubeObject): void {
  store.create(`/registry/core/services/ns/${obj.metadata.name ?? ''}`, JSON.stringify(obj));
}

const message = (fn: () => void): string => {
  try {
    fn();
  } catch (err: unknown) {
    return err instanceof Error ? err.message : String(err);
  }
  return 'no error';
};

describe('Service allocation', () => {
  it('allocates distinct ClusterIPs in the CIDR, never the kubernetes Service address', () => {
    const store = openStore({ path: ':memory:' });
    // A random source stuck on 0 would pick offset 2 every time; collisions must be skipped.
    const ips = ['a', 'b', 'c'].map((name) => {
      const obj = svc(name, { ports: [{ port: 80 }] });
      allocateService(services, obj, store, () => 0);
      stored(store, obj);
      return (obj['spec'] as { clusterIP: string }).clusterIP;
    });
    expect(new Set(ips).size).toBe(3);
    expect(ips.every((ip) => inServiceCidr(ip) && ip !== '10.96.0.1')).toBe(true);
    store.close();
  });

  it('checks client-chosen ClusterIPs with kube messages', () => {
    const store = openStore({ path: ':memory:' });
    const taken = svc('taken', { clusterIP: '10.96.3.3', ports: [{ port: 80 }] });
    allocateService(services, taken, store, Math.random);
    stored(store, taken);
    const attempt = (ip: string) => () =>
      allocateService(services, svc('x', { clusterIP: ip }), store, Math.random);
    expect(message(attempt('10.96.3.3'))).toBe(
      'Service "x" is invalid: spec.clusterIPs: Invalid value: ["10.96.3.3"]: failed to allocate IP 10.96.3.3: provided IP is already allocated',
    );
    expect(message(attempt('10.96.0.1'))).toContain('provided IP is already allocated');
    expect(message(attempt('192.168.0.1'))).toContain(
      'the provided network does not match the current range',
    );
    expect(message(attempt('nope'))).toContain(
      'spec.clusterIPs[0]: Invalid value: "nope": must be a valid IP address',
    );
    store.close();
  });

  it('allocates nodePorts in 30000-32767, keeps them on update, refuses taken or out-of-range ones', () => {
    const store = openStore({ path: ':memory:' });
    const np = svc('np', {
      type: 'NodePort',
      ports: [
        { name: 'a', port: 80 },
        { name: 'b', port: 81 },
      ],
    });
    allocateService(services, np, store, Math.random);
    stored(store, np);
    const ports = (np['spec'] as { ports: { nodePort: number }[] }).ports.map((p) => p.nodePort);
    expect(ports.every((p) => p >= 30000 && p <= 32767)).toBe(true);
    expect(new Set(ports).size).toBe(2);
    const next = structuredClone(np);
    for (const p of (next['spec'] as { ports: Record<string, unknown>[] }).ports)
      delete p['nodePort'];
    allocateServiceUpdate(services, np, next, store, Math.random);
    expect(
      (next['spec'] as { ports: { nodePort: number }[] }).ports.map((p) => p.nodePort),
    ).toEqual(ports);
    const dup = svc('dup', { type: 'NodePort', ports: [{ port: 80, nodePort: ports[0] }] });
    expect(message(() => allocateService(services, dup, store, Math.random))).toBe(
      `Service "dup" is invalid: spec.ports[0].nodePort: Invalid value: ${ports[0]}: provided port is already allocated`,
    );
    const out = svc('out', { type: 'NodePort', ports: [{ port: 80, nodePort: 29999 }] });
    expect(message(() => allocateService(services, out, store, Math.random))).toContain(
      'provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    store.close();
  });

  it('releases nodePorts and traffic policy when the type goes back to ClusterIP, the ClusterIP for ExternalName', () => {
    const store = openStore({ path: ':memory:' });
    const np = svc('np', { type: 'NodePort', ports: [{ port: 80 }] });
    allocateService(services, np, store, Math.random);
    const back = structuredClone(np);
    (back['spec'] as Record<string, unknown>)['type'] = 'ClusterIP';
    allocateServiceUpdate(services, np, back, store, Math.random);
    const spec = back['spec'] as Record<string, unknown>;
    expect((spec['ports'] as Record<string, unknown>[])[0]).not.toHaveProperty('nodePort');
    expect(spec).not.toHaveProperty('externalTrafficPolicy');
    expect(spec['clusterIP']).toBe((np['spec'] as Record<string, unknown>)['clusterIP']);
    const ext = structuredClone(np);
    Object.assign(ext['spec'] as object, { type: 'ExternalName', externalName: 'db.example.com' });
    allocateServiceUpdate(services, np, ext, store, Math.random);
    expect(ext['spec']).not.toHaveProperty('clusterIP');
    expect(ext['spec']).not.toHaveProperty('ipFamilies');
    store.close();
  });

  it('gives a Local LoadBalancer a healthCheckNodePort, keeps it, and refuses one out of range', () => {
    const store = openStore({ path: ':memory:' });
    const lb = svc('lb', {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      ports: [{ port: 80 }],
    });
    allocateService(services, lb, store, Math.random);
    const port = (lb['spec'] as { healthCheckNodePort?: number }).healthCheckNodePort ?? 0;
    expect(port >= 30000 && port <= 32767).toBe(true);
    const same = structuredClone(lb);
    delete (same['spec'] as Record<string, unknown>)['healthCheckNodePort'];
    allocateServiceUpdate(services, lb, same, store, Math.random);
    expect((same['spec'] as { healthCheckNodePort?: number }).healthCheckNodePort).toBe(port);
    const bad = svc('bad', {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      healthCheckNodePort: 40001,
      ports: [{ port: 80 }],
    });
    expect(message(() => allocateService(services, bad, store, Math.random))).toBe(
      'Internal error occurred: failed to allocate requested HealthCheck NodePort 40001: provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    store.close();
  });
});
