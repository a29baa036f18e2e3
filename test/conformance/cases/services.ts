// Services (kube's SetDefaults_Service and Service strategy): defaulting on create, ClusterIP
// allocation from the service CIDR, headless and ExternalName Services, clusterIPs immutable on
// update. Allocated addresses differ between servers, so they are recorded as "an address in the
// CIDR" instead of their value.
import { nsPath, observe, type ConformanceCase } from '../case.ts';
import type { HttpResult, Target } from '../target.ts';

const V1 = '/api/v1';
/** The harness's --service-cluster-ip-range (test/cluster/src/components.ts). */
const SERVICE_CIDR = { base: [10, 96, 0, 0], bits: 12 };

function toNumber(octets: number[]): number {
  return octets.reduce((n, o) => n * 256 + o, 0);
}

function inCidr(ip: unknown): boolean {
  if (typeof ip !== 'string' || !/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) return false;
  const octets = ip.split('.').map(Number);
  if (octets.some((o) => o > 255)) return false;
  const base = toNumber(SERVICE_CIDR.base);
  const size = 2 ** (32 - SERVICE_CIDR.bits);
  const n = toNumber(octets);
  return n > base && n < base + size - 1;
}

function maskIP(ip: unknown): unknown {
  if (ip === 'None' || ip === undefined) return ip;
  return inCidr(ip) ? '<ip in service CIDR>' : `<not in service CIDR: ${String(ip)}>`;
}

/** Replaces allocated clusterIP/clusterIPs of Services in a body with whether they are in the CIDR. */
function maskService(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const obj = structuredClone(value) as Record<string, unknown>;
  if ('body' in obj) obj['body'] = maskService(obj['body']);
  // Items of a ServiceList carry no kind of their own.
  if (Array.isArray(obj['items']))
    obj['items'] = obj['items'].map((item: unknown) =>
      maskService({ kind: 'Service', ...(item as Record<string, unknown>) }),
    );
  const spec = obj['spec'] as Record<string, unknown> | undefined;
  if (obj['kind'] === 'Service' && spec) {
    if ('clusterIP' in spec) spec['clusterIP'] = maskIP(spec['clusterIP']);
    if (Array.isArray(spec['clusterIPs'])) spec['clusterIPs'] = spec['clusterIPs'].map(maskIP);
  }
  return obj;
}

function seen(res: HttpResult): unknown {
  return maskNodePorts(maskService(observe(res)));
}

/** Allocated nodePorts as "in range" (their values differ between servers and runs). */
function maskNodePorts(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value).replace(
      /"(nodePort|healthCheckNodePort)":(\d+)/g,
      (_m, key: string, n: string) =>
        Number(n) >= 30000 && Number(n) <= 32767
          ? `"${key}":"<in range>"`
          : `"${key}":"<out of range: ${n}>"`,
    ),
  ) as unknown;
}

/** A Service address nobody else on the shared cluster is likely to hold. */
function randomServiceIP(): string {
  const n = 2 ** 16 + Math.floor(Math.random() * (2 ** 20 - 2 ** 17));
  return `10.${96 + Math.floor(n / 65536)}.${Math.floor(n / 256) % 256}.${(n % 254) + 1}`;
}

function mergePatch(t: Target, path: string, body: unknown): Promise<HttpResult> {
  return t.request('PATCH', path, { body, contentType: 'application/merge-patch+json' });
}

function service(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec };
}

const port = (p: number, extra: Record<string, unknown> = {}) => ({ port: p, ...extra });

export const SERVICE_CASES: ConformanceCase[] = [
  {
    name: 'services: ClusterIP service is defaulted and gets an address in the CIDR',
    run: async (t, ns, rec) => {
      const res = await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('web', {
          selector: { app: 'web' },
          ports: [port(80, { name: 'http', targetPort: 8080 }), port(443, { name: 'https' })],
        }),
      });
      rec('create', seen(res));
      rec('get', seen(await t.request('GET', nsPath(V1, ns, 'services', 'web'))));
    },
  },
  {
    name: 'services: two services get different ClusterIPs',
    run: async (t, ns, rec) => {
      const ips: unknown[] = [];
      for (const name of ['a', 'b', 'c']) {
        const res = await t.request('POST', nsPath(V1, ns, 'services'), {
          body: service(name, { ports: [port(80)] }),
        });
        rec(`create ${name}`, res.status);
        ips.push(
          ((res.body as Record<string, unknown>)['spec'] as Record<string, unknown>)?.['clusterIP'],
        );
      }
      rec('all in CIDR', ips.every(inCidr));
      rec('distinct', new Set(ips).size);
    },
  },
  {
    name: 'services: headless service keeps clusterIP None',
    run: async (t, ns, rec) => {
      const res = await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('headless', {
          clusterIP: 'None',
          selector: { app: 'db' },
          ports: [port(5432, { protocol: 'TCP' })],
        }),
      });
      rec('create', seen(res));
    },
  },
  {
    name: 'services: ExternalName service has no clusterIP',
    run: async (t, ns, rec) => {
      const res = await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('ext', { type: 'ExternalName', externalName: 'db.example.com' }),
      });
      rec('create', seen(res));
    },
  },
  {
    name: 'services: changing clusterIP on update is invalid',
    run: async (t, ns, rec) => {
      const created = await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('web', { ports: [port(80)] }),
      });
      rec('create', created.status);
      const body = structuredClone(created.body) as Record<string, unknown>;
      const spec = body['spec'] as Record<string, unknown>;
      spec['clusterIP'] = '10.96.5.5';
      spec['clusterIPs'] = ['10.96.5.5'];
      rec('update both', seen(await t.request('PUT', nsPath(V1, ns, 'services', 'web'), { body })));
      const only = structuredClone(created.body) as Record<string, unknown>;
      (only['spec'] as Record<string, unknown>)['clusterIP'] = '10.96.5.6';
      rec(
        'update clusterIP only',
        seen(await t.request('PUT', nsPath(V1, ns, 'services', 'web'), { body: only })),
      );
      const unset = structuredClone(created.body) as Record<string, unknown>;
      delete (unset['spec'] as Record<string, unknown>)['clusterIP'];
      delete (unset['spec'] as Record<string, unknown>)['clusterIPs'];
      const kept = await t.request('PUT', nsPath(V1, ns, 'services', 'web'), { body: unset });
      rec('update without clusterIP', kept.status);
      const specOf = (r: HttpResult) => (r.body as { spec?: Record<string, unknown> }).spec ?? {};
      rec('clusterIP kept', specOf(kept)['clusterIP'] === specOf(created)['clusterIP']);
    },
  },
  {
    name: 'services: list',
    run: async (t, ns, rec) => {
      for (const name of ['one', 'two'])
        await t.request('POST', nsPath(V1, ns, 'services'), {
          body: service(name, { ports: [port(80, { protocol: 'UDP' })] }),
        });
      const res = await t.request('GET', nsPath(V1, ns, 'services'));
      rec('list', seen(res));
    },
  },
  {
    name: 'services: a client-chosen clusterIP is checked against the range and other Services',
    run: async (t, ns, rec) => {
      const ip = randomServiceIP();
      const create = (name: string, clusterIP: string) =>
        t.request('POST', nsPath(V1, ns, 'services'), {
          body: service(name, { clusterIP, ports: [port(80)] }),
        });
      const first = await create('chosen', ip);
      rec('in range', seen(first));
      rec('kept', (first.body as { spec?: { clusterIP?: string } }).spec?.clusterIP === ip);
      const taken = observe(await create('taken', ip));
      rec('already allocated', JSON.parse(JSON.stringify(taken).split(ip).join('<ip>')));
      rec('kubernetes service address', observe(await create('first', '10.96.0.1')));
      rec('outside the range', observe(await create('outside', '10.0.0.5')));
      rec('not an IP', observe(await create('bogus', 'bogus')));
    },
  },
  {
    name: 'services: nodePorts are allocated, kept and checked',
    run: async (t, ns, rec) => {
      const path = nsPath(V1, ns, 'services');
      const res = await t.request('POST', path, {
        body: service('np', {
          type: 'NodePort',
          selector: { app: 'web' },
          ports: [port(80, { name: 'http' }), port(443, { name: 'https' })],
        }),
      });
      rec('create', seen(res));
      const ports = (res.body as { spec: { ports: { nodePort: number }[] } }).spec.ports;
      rec('distinct', new Set(ports.map((p) => p.nodePort)).size);
      const taken = ports[0]?.nodePort ?? 0;
      const dup = await t.request('POST', path, {
        body: service('dup', { type: 'NodePort', ports: [port(80, { nodePort: taken })] }),
      });
      rec(
        'already allocated',
        JSON.parse(JSON.stringify(observe(dup)).split(String(taken)).join('<port>')),
      );
      const out = await t.request('POST', path, {
        body: service('out', { type: 'NodePort', ports: [port(80, { nodePort: 40000 })] }),
      });
      rec('out of range', observe(out));
      // A PUT without nodePorts keeps the ones the ports had.
      const body = structuredClone(res.body) as { spec: { ports: Record<string, unknown>[] } };
      for (const p of body.spec.ports) delete p['nodePort'];
      const kept = await t.request('PUT', nsPath(V1, ns, 'services', 'np'), { body });
      const keptPorts = (kept.body as { spec: { ports: { nodePort: number }[] } }).spec.ports;
      rec(
        'kept on update',
        keptPorts.map((p) => p.nodePort).join() === ports.map((p) => p.nodePort).join(),
      );
    },
  },
  {
    name: 'services: type changes allocate and release clusterIPs and nodePorts',
    run: async (t, ns, rec) => {
      const path = nsPath(V1, ns, 'services', 'web');
      const created = await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('web', { selector: { app: 'web' }, ports: [port(80, { name: 'http' })] }),
      });
      rec('ClusterIP', seen(created));
      const steps: [string, Record<string, unknown>][] = [
        ['NodePort', { spec: { type: 'NodePort' } }],
        ['LoadBalancer', { spec: { type: 'LoadBalancer' } }],
        ['back to ClusterIP', { spec: { type: 'ClusterIP' } }],
        ['ExternalName without externalName', { spec: { type: 'ExternalName' } }],
        ['ExternalName', { spec: { type: 'ExternalName', externalName: 'db.example.com' } }],
        ['ClusterIP from ExternalName', { spec: { type: 'ClusterIP', externalName: null } }],
        [
          'LoadBalancer without nodePorts',
          { spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false } },
        ],
      ];
      for (const [label, patch] of steps) rec(label, seen(await mergePatch(t, path, patch)));
    },
  },
  {
    name: 'services: a headless Service stays headless',
    run: async (t, ns, rec) => {
      const path = nsPath(V1, ns, 'services', 'db');
      await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('db', { clusterIP: 'None', selector: { app: 'db' }, ports: [port(5432)] }),
      });
      rec('label change', seen(await mergePatch(t, path, { metadata: { labels: { a: 'b' } } })));
      rec('set an address', seen(await mergePatch(t, path, { spec: { clusterIP: '10.96.9.9' } })));
    },
  },
  {
    name: 'services: a LoadBalancer with externalTrafficPolicy Local gets a healthCheckNodePort',
    run: async (t, ns, rec) => {
      const path = nsPath(V1, ns, 'services', 'lb');
      const created = await t.request('POST', nsPath(V1, ns, 'services'), {
        body: service('lb', {
          type: 'LoadBalancer',
          externalTrafficPolicy: 'Local',
          selector: { app: 'web' },
          ports: [port(80)],
        }),
      });
      rec('create', seen(created));
      rec(
        'to Cluster',
        seen(await mergePatch(t, path, { spec: { externalTrafficPolicy: 'Cluster' } })),
      );
      rec(
        'out of range',
        seen(
          await mergePatch(t, path, {
            spec: { externalTrafficPolicy: 'Local', healthCheckNodePort: 40001 },
          }),
        ),
      );
      rec(
        'back to Local',
        seen(await mergePatch(t, path, { spec: { externalTrafficPolicy: 'Local' } })),
      );
      rec('to ClusterIP', seen(await mergePatch(t, path, { spec: { type: 'ClusterIP' } })));
    },
  },
];
