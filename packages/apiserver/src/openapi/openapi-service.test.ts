import type { CustomResourceDefinition } from '@agent-sandbox/kube-types';
import { describe, expect, it } from 'vitest';
import { BUILTIN_RESOURCES } from '../resources/builtin.ts';
import { ResourceRegistry } from '../resources/registry.ts';
import { serveOpenApi } from './index.ts';
import { negotiate, OpenApiService } from './openapi-service.ts';

const NOW = new Date('2026-11-30T08:00:00Z');
// A small registry keeps these tests fast: two built-ins and two small CRDs.
const BUILTINS = BUILTIN_RESOURCES.filter(
  (b) => b.group === '' && ['configmaps', 'namespaces'].includes(b.plural),
);

function widgetCrd(group: string, description: string): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}`, resourceVersion: '1' },
    spec: {
      group,
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: ['v1', 'v1beta1'].map((name) => ({
        name,
        served: true,
        storage: name === 'v1',
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object' as const,
            description,
            properties: {
              spec: { type: 'object' as const, properties: { color: { type: 'string' as const } } },
            },
          },
        },
      })),
    },
  };
}

const CRDS = [
  widgetCrd('example.com', 'a widget'),
  widgetCrd('other.example.com', 'another widget'),
];

function setup(): {
  registry: ResourceRegistry;
  service: OpenApiService;
  crds: CustomResourceDefinition[];
} {
  const registry = new ResourceRegistry(BUILTINS);
  const crds = structuredClone(CRDS);
  for (const crd of crds) registry.setCrd(crd);
  return { registry, service: new OpenApiService(registry, { now: () => NOW }), crds };
}

function get(service: OpenApiService, url: string, headers: Record<string, string> = {}): Response {
  const u = new URL(url, 'http://127.0.0.1');
  const res = service.serve(new Request(u, { headers }), u.pathname.replace(/\/+$/, ''));
  if (!res) throw new Error(`no response for ${url}`);
  return res;
}

async function index(service: OpenApiService): Promise<Record<string, string>> {
  const body = (await get(service, '/openapi/v3').json()) as {
    paths: Record<string, { serverRelativeURL: string }>;
  };
  return Object.fromEntries(Object.entries(body.paths).map(([k, v]) => [k, v.serverRelativeURL]));
}

describe('/openapi/v3', () => {
  it('indexes every served group-version with uppercase SHA-512 hashes and an Etag', async () => {
    const { service } = setup();
    const res = get(service, '/openapi/v3?timeout=32s');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('etag')).toMatch(/^"[0-9A-F]{128}"$/);
    const paths = await index(service);
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        'api/v1',
        'apis/example.com/v1',
        'apis/example.com/v1beta1',
        'apis/other.example.com/v1',
      ]),
    );
    expect(paths['api/v1']).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    expect(paths['apis/example.com/v1beta1']).toMatch(
      /^\/openapi\/v3\/apis\/example\.com\/v1beta1\?hash=[0-9A-F]{128}$/,
    );
  });

  it('serves a document with immutable caching for the current hash and redirects a stale one', async () => {
    const { service } = setup();
    const url = (await index(service))['apis/example.com/v1beta1'] as string;
    const hash = url.split('hash=')[1] as string;
    const res = get(service, url, { accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, immutable');
    expect(res.headers.get('expires')).toBe('Tue, 30 Nov 2027 08:00:00 GMT');
    expect(res.headers.get('vary')).toBe('Accept');
    expect(res.headers.get('etag')).toBe(`"${hash}"`);
    const body = (await res.json()) as { openapi: string; paths: object };
    expect(body.openapi).toBe('3.0.0');

    const stale = get(service, '/openapi/v3/apis/example.com/v1beta1?hash=0123ABCD');
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toBe(url);

    const plain = get(service, '/openapi/v3/apis/example.com/v1beta1');
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBeNull();
    expect(get(service, url, { 'if-none-match': `"${hash}"` }).status).toBe(304);
  });

  it('answers 404 for unknown group-versions and 406 when JSON is not acceptable', () => {
    const { service } = setup();
    expect(get(service, '/openapi/v3/apis/nope.example.com/v1').status).toBe(404);
    expect(
      get(service, '/openapi/v3/api/v1', {
        accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf',
      }).status,
    ).toBe(406);
    expect(
      get(service, '/openapi/v3/api/v1', {
        accept:
          'application/com.github.proto-openapi.spec.v3.v1.0+protobuf, application/json;q=0.5',
      }).status,
    ).toBe(200);
  });

  it('rebuilds only the group-version whose CRD changed, and drops removed ones', async () => {
    const { registry, service, crds } = setup();
    const before = await index(service);
    const v1 = service.groupVersionDocument('', 'v1');
    const widgets = crds[0] as CustomResourceDefinition;
    const changed = structuredClone(widgets);
    const schema = changed.spec.versions[0]?.schema?.openAPIV3Schema;
    if (schema) schema.description = 'changed';
    registry.setCrd(changed);
    const after = await index(service);
    expect(after['apis/example.com/v1']).not.toBe(before['apis/example.com/v1']);
    expect(after['apis/example.com/v1beta1']).toBe(before['apis/example.com/v1beta1']);
    expect(after['apis/other.example.com/v1']).toBe(before['apis/other.example.com/v1']);
    expect(after['api/v1']).toBe(before['api/v1']);
    expect(service.groupVersionDocument('', 'v1')).toBe(v1);
    // Same content again: the rebuilt document has the original hash.
    registry.setCrd(structuredClone(widgets));
    expect((await index(service))['apis/example.com/v1']).toBe(before['apis/example.com/v1']);
    registry.removeCrd(widgets.metadata.name ?? '');
    expect(Object.keys(await index(service))).not.toContain('apis/example.com/v1beta1');
    expect(get(service, '/openapi/v3/apis/example.com/v1beta1').status).toBe(404);
  });
});

describe('/openapi/v2', () => {
  it('serves protobuf to kubectl and JSON to JSON clients, with one Etag', async () => {
    const { service } = setup();
    const pb = get(service, '/openapi/v2?timeout=32s', {
      accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    });
    expect(pb.status).toBe(200);
    expect(pb.headers.get('content-type')).toBe(
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    );
    expect(pb.headers.get('vary')).toBe('Accept');
    const bytes = new Uint8Array(await pb.arrayBuffer());
    expect(bytes[0]).toBe(0x0a); // field 1 (swagger), length-delimited
    const json = get(service, '/openapi/v2', { accept: 'application/json' });
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(json.headers.get('etag')).toBe(pb.headers.get('etag'));
    const doc = (await json.json()) as { swagger: string; definitions: Record<string, unknown> };
    expect(doc.swagger).toBe('2.0');
    expect(doc.definitions).toHaveProperty(['com.example.v1.Widget']);
    expect(doc.definitions).toHaveProperty(['com.example.v1beta1.WidgetList']);
    expect(get(service, '/openapi/v2', { accept: 'text/html' }).status).toBe(406);
  });
});

describe('serveOpenApi', () => {
  it('answers only /openapi paths and keeps one cache per registry', () => {
    const { registry } = setup();
    const req = (p: string) => new Request(`http://127.0.0.1${p}`);
    expect(serveOpenApi(registry, req('/api/v1'), '/api/v1')).toBeUndefined();
    expect(serveOpenApi(registry, req('/openapi/v3'), '/openapi/v3')?.status).toBe(200);
    const etag = serveOpenApi(registry, req('/openapi/v3'), '/openapi/v3')?.headers.get('etag');
    expect(
      serveOpenApi(new ResourceRegistry(), req('/openapi/v3'), '/openapi/v3')?.headers.get('etag'),
    ).not.toBe(etag);
  });
});

describe('negotiate', () => {
  it('follows Accept order and quality, with wildcards', () => {
    expect(negotiate(null, ['application/json'])).toBe('application/json');
    expect(negotiate('application/json, */*', ['application/json'])).toBe('application/json');
    expect(negotiate('*/*', ['application/json', 'application/x'])).toBe('application/json');
    expect(
      negotiate('application/x;q=0.9, application/json;q=0.1', [
        'application/json',
        'application/x',
      ]),
    ).toBe('application/x');
    expect(negotiate('application/json;q=0', ['application/json'])).toBeUndefined();
  });
});
