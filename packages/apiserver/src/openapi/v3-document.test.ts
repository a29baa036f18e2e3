import { describe, expect, it } from 'vitest';
import { ResourceRegistry } from '../resources/registry.ts';
import { readOurCrds } from '../testing/our-crds.ts';
import { isObject, referencedNames, V3_PREFIX, type Json, type JsonObject } from './definitions.ts';
import { groupVersionDocument } from './v3-document.ts';

const registry = new ResourceRegistry();
for (const crd of readOurCrds()) registry.setCrd(crd);

function doc(group: string, version: string): JsonObject {
  return groupVersionDocument(registry.inGroupVersion(group, version), group, version);
}

function obj(v: Json | undefined): JsonObject {
  if (!isObject(v)) throw new Error(`not an object: ${JSON.stringify(v)}`);
  return v;
}

function paths(d: JsonObject): Record<string, JsonObject> {
  return obj(d['paths']) as Record<string, JsonObject>;
}

function schemas(d: JsonObject): Record<string, JsonObject> {
  return obj(obj(d['components'])['schemas']) as Record<string, JsonObject>;
}

function paramNames(op: JsonObject): string[] {
  return ((op['parameters'] ?? []) as JsonObject[]).map((p) => String(p['name']));
}

/** Every PATCH operation in a document, with its path. */
function patchOps(d: JsonObject): [string, JsonObject][] {
  return Object.entries(paths(d)).flatMap(([p, item]) =>
    isObject(item['patch']) ? [[p, item['patch']] as [string, JsonObject]] : [],
  );
}

function expectSelfContained(d: JsonObject): void {
  const defined = new Set(Object.keys(schemas(d)));
  for (const name of referencedNames(d, V3_PREFIX))
    expect(defined, `dangling $ref ${name}`).toContain(name);
}

describe('OpenAPI v3 document of a CRD group-version', () => {
  const d = doc('agents.x-k8s.io', 'v1beta1');
  const base = '/apis/agents.x-k8s.io/v1beta1';

  it('names the kind and list schemas by reversed group and carries GVK arrays', () => {
    const s = schemas(d);
    const sandbox = obj(s['io.x-k8s.agents.v1beta1.Sandbox']);
    expect(sandbox['x-kubernetes-group-version-kind']).toEqual([
      { group: 'agents.x-k8s.io', kind: 'Sandbox', version: 'v1beta1' },
    ]);
    expect(obj(obj(sandbox['properties'])['metadata'])['allOf']).toEqual([
      { $ref: `${V3_PREFIX}io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta` },
    ]);
    expect(obj(obj(sandbox['properties'])['apiVersion'])['type']).toBe('string');
    expect(obj(obj(sandbox['properties'])['kind'])['type']).toBe('string');
    expect(obj(obj(sandbox['properties'])['spec'])['properties']).toHaveProperty('podTemplate');
    const list = obj(s['io.x-k8s.agents.v1beta1.SandboxList']);
    expect(list['x-kubernetes-group-version-kind']).toEqual([
      { group: 'agents.x-k8s.io', kind: 'SandboxList', version: 'v1beta1' },
    ]);
    expect(obj(obj(list['properties'])['items'])['items']).toEqual({
      $ref: `${V3_PREFIX}io.x-k8s.agents.v1beta1.Sandbox`,
    });
    expect(list['required']).toEqual(['items']);
  });

  it('is self-contained: every $ref resolves inside components.schemas', () => {
    expectSelfContained(d);
    expect(Object.keys(schemas(d))).toContain('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  });

  it('has PATCH operations with a single GVK object, fieldValidation, and no strategic merge patch', () => {
    const ops = patchOps(d);
    expect(ops.map(([p]) => p).sort()).toEqual([
      `${base}/namespaces/{namespace}/sandboxes/{name}`,
      `${base}/namespaces/{namespace}/sandboxes/{name}/status`,
    ]);
    for (const [, op] of ops) {
      expect(op['x-kubernetes-group-version-kind']).toEqual({
        group: 'agents.x-k8s.io',
        kind: 'Sandbox',
        version: 'v1beta1',
      });
      expect(op['x-kubernetes-action']).toBe('patch');
      expect(paramNames(op)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
      expect(
        ((op['parameters'] ?? []) as JsonObject[]).find((p) => p['name'] === 'fieldValidation')?.[
          'in'
        ],
      ).toBe('query');
      expect(Object.keys(obj(obj(op['requestBody'])['content']))).toEqual([
        'application/apply-patch+yaml',
        'application/json-patch+json',
        'application/merge-patch+json',
      ]);
    }
  });

  it('follows the CRD builder: operation ids, tags, list for all namespaces, no /watch/ paths', () => {
    const p = paths(d);
    expect(Object.keys(p).some((k) => k.includes('/watch/'))).toBe(false);
    expect(obj(obj(p[`${base}/sandboxes`])['get'])['operationId']).toBe(
      'listAgentsXK8sIoV1beta1SandboxForAllNamespaces',
    );
    const item = obj(p[`${base}/namespaces/{namespace}/sandboxes/{name}`]);
    expect(obj(item['patch'])['operationId']).toBe('patchAgentsXK8sIoV1beta1NamespacedSandbox');
    expect(obj(item['patch'])['tags']).toEqual(['agentsXK8sIo_v1beta1']);
    expect(obj(item['put'])['x-kubernetes-action']).toBe('put');
    expect(paramNames(item)).toEqual(['name', 'namespace', 'pretty']);
    const collection = obj(p[`${base}/namespaces/{namespace}/sandboxes`]);
    expect(obj(collection['post'])['x-kubernetes-action']).toBe('post');
    expect(paramNames(obj(collection['post']))).toEqual([
      'dryRun',
      'fieldManager',
      'fieldValidation',
    ]);
    expect(obj(collection['delete'])['operationId']).toBe(
      'deleteAgentsXK8sIoV1beta1CollectionNamespacedSandbox',
    );
  });

  it('documents each version with its own subresources (scale only where that version has it)', () => {
    const alpha = paths(doc('agents.x-k8s.io', 'v1alpha1'));
    const scale = obj(
      obj(alpha['/apis/agents.x-k8s.io/v1alpha1/namespaces/{namespace}/sandboxes/{name}/scale'])[
        'patch'
      ],
    );
    expect(scale['x-kubernetes-group-version-kind']).toEqual({
      group: 'agents.x-k8s.io',
      kind: 'Sandbox',
      version: 'v1alpha1',
    });
    expect(paramNames(scale)).toContain('fieldValidation');
    expect(Object.keys(paths(d)).some((k) => k.endsWith('/scale'))).toBe(false);
  });
});

describe('OpenAPI v3 document of api/v1', () => {
  const d = doc('', 'v1');

  it('carries the captured ConfigMap and Pod schemas and resolves every reference', () => {
    const s = schemas(d);
    expect(obj(s['io.k8s.api.core.v1.ConfigMap'])['x-kubernetes-group-version-kind']).toEqual([
      { group: '', kind: 'ConfigMap', version: 'v1' },
    ]);
    expect(s).toHaveProperty(['io.k8s.api.core.v1.PodSpec']);
    expect(s).toHaveProperty(['io.k8s.api.core.v1.ConfigMapList']);
    expectSelfContained(d);
  });

  it('offers strategic merge patch and fieldValidation on built-in PATCH operations', () => {
    for (const kind of ['ConfigMap', 'Pod']) {
      const plural = `${kind.toLowerCase()}s`;
      const op = obj(obj(paths(d)[`/api/v1/namespaces/{namespace}/${plural}/{name}`])['patch']);
      expect(op['operationId']).toBe(`patchCoreV1Namespaced${kind}`);
      expect(op['x-kubernetes-group-version-kind']).toEqual({ group: '', kind, version: 'v1' });
      expect(paramNames(op)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
      expect(Object.keys(obj(obj(op['requestBody'])['content']))).toContain(
        'application/strategic-merge-patch+json',
      );
    }
    const status = obj(obj(paths(d)['/api/v1/namespaces/{namespace}/pods/{name}/status'])['patch']);
    expect(status['operationId']).toBe('patchCoreV1NamespacedPodStatus');
    expect(paramNames(status)).toContain('fieldValidation');
  });

  it('has the real server list, watch and subresource operations', () => {
    const p = paths(d);
    expect(obj(obj(p['/api/v1/configmaps'])['get'])['operationId']).toBe(
      'listCoreV1ConfigMapForAllNamespaces',
    );
    expect(paramNames(obj(p['/api/v1/configmaps']))).toEqual([
      'allowWatchBookmarks',
      'continue',
      'fieldSelector',
      'labelSelector',
      'limit',
      'pretty',
      'resourceVersion',
      'resourceVersionMatch',
      'sendInitialEvents',
      'timeoutSeconds',
      'watch',
    ]);
    expect(
      obj(obj(p['/api/v1/watch/namespaces/{namespace}/configmaps/{name}'])['get'])[
        'x-kubernetes-action'
      ],
    ).toBe('watch');
    expect(
      obj(obj(p['/api/v1/namespaces/{namespace}/pods/{name}/binding'])['post'])[
        'x-kubernetes-group-version-kind'
      ],
    ).toEqual({ group: '', kind: 'Binding', version: 'v1' });
    expect(
      obj(obj(p['/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token'])['post'])[
        'x-kubernetes-group-version-kind'
      ],
    ).toEqual({
      group: 'authentication.k8s.io',
      kind: 'TokenRequest',
      version: 'v1',
    });
    expect(obj(obj(p['/api/v1/namespaces/{name}/finalize'])['put'])['operationId']).toBe(
      'replaceCoreV1NamespaceFinalize',
    );
    expect(obj(obj(p['/api/v1/'])['get'])['operationId']).toBe('getCoreV1APIResources');
    // Cluster-scoped: no namespace parameter, no list-for-all-namespaces path.
    expect(paramNames(obj(p['/api/v1/namespaces/{name}']))).toEqual(['name', 'pretty']);
  });

  it('documents other built-in groups, the CRD kind included', () => {
    const crds = doc('apiextensions.k8s.io', 'v1');
    const op = obj(
      obj(paths(crds)['/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}'])['patch'],
    );
    expect(op['operationId']).toBe('patchApiextensionsV1CustomResourceDefinition');
    expect(op['tags']).toEqual(['apiextensions_v1']);
    expectSelfContained(crds);
    expectSelfContained(doc('networking.k8s.io', 'v1'));
    expectSelfContained(doc('authentication.k8s.io', 'v1'));
  });
});
