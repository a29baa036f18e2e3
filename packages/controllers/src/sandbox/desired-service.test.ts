// §21.1 TestReconcileService, TestServicePortsForSandboxReturnsNilWithoutContainerPorts,
// TestSetServiceStatusCustomDomain.
import { describe, expect, it } from 'vitest';
import { nameHash } from '@agent-sandbox/api';
import type { v1beta1 } from '@agent-sandbox/api';
import type { Container } from '@agent-sandbox/kube-types';
import { SANDBOX_UID, ownerRef, sandbox, service } from '../testing/builders.ts';
import { serviceAction, serviceFQDN, servicePortsForSandbox } from './desired-service.ts';

const HASH = nameHash('my-sandbox');
const TRACK = 'agents.x-k8s.io/sandbox-name-hash';
const owned = ownerRef(SANDBOX_UID);
const withContainers =
  (containers: Container[], initContainers: Container[] = [], svc?: boolean) =>
  (s: v1beta1.Sandbox) => {
    s.spec.podTemplate.spec.containers = containers;
    if (initContainers.length > 0) s.spec.podTemplate.spec.initContainers = initContainers;
    if (svc !== undefined) s.spec.service = svc;
  };
const web = withContainers(
  [{ name: 'main', image: 'x', ports: [{ containerPort: 8080, name: 'http' }] }],
  [],
  true,
);

describe('servicePortsForSandbox', () => {
  it('TestServicePortsForSandboxReturnsNilWithoutContainerPorts', () => {
    expect(servicePortsForSandbox(sandbox())).toBeUndefined();
    const zero = sandbox(
      'my-sandbox',
      withContainers([{ name: 'm', ports: [{ containerPort: 0 }] }]),
    );
    expect(servicePortsForSandbox(zero)).toBeUndefined();
  });

  it('native sidecar ports, sorted/deduped, TCP default, first explicit name wins', () => {
    const s = sandbox(
      'my-sandbox',
      withContainers(
        [
          {
            name: 'a',
            ports: [
              { containerPort: 9000, protocol: 'UDP', name: 'dns' },
              { containerPort: 8080 },
              { containerPort: 9000, name: 'metrics' },
            ],
          },
          {
            name: 'b',
            ports: [
              { containerPort: 8080, name: 'http' },
              { containerPort: 8080, name: 'web' },
            ],
          },
        ],
        [
          {
            name: 'sidecar',
            restartPolicy: 'Always',
            ports: [{ containerPort: 7000, name: 'side' }],
          },
          { name: 'init', ports: [{ containerPort: 6000, name: 'ignored' }] },
        ],
      ),
    );
    expect(servicePortsForSandbox(s)).toEqual([
      { name: 'side', protocol: 'TCP', port: 7000, targetPort: 7000 },
      { name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080 },
      { name: 'metrics', protocol: 'TCP', port: 9000, targetPort: 9000 },
      { name: 'dns', protocol: 'UDP', port: 9000, targetPort: 9000 },
    ]);
  });

  it('an explicit name already taken by another key is not reused; generated-name collision gets a suffix', () => {
    const s = sandbox(
      'my-sandbox',
      withContainers([
        {
          name: 'a',
          ports: [
            { containerPort: 80, name: 'p-81-tcp' },
            { containerPort: 81 },
            { containerPort: 82, name: 'p-81-tcp' },
          ],
        },
      ]),
    );
    expect(servicePortsForSandbox(s)).toEqual([
      { name: 'p-81-tcp', protocol: 'TCP', port: 80, targetPort: 80 },
      { name: 'p-81-tcp-2', protocol: 'TCP', port: 81, targetPort: 81 },
      { name: 'p-82-tcp', protocol: 'TCP', port: 82, targetPort: 82 },
    ]);
  });
});

describe('TestReconcileService', () => {
  it('service true, missing: create headless with ports, selector+label, controller ref', () => {
    const got = serviceAction(sandbox('my-sandbox', web), undefined);
    expect(got.action).toBe('Create');
    if (got.action !== 'Create') return;
    expect(got.service).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'my-sandbox',
        namespace: 'default',
        labels: { [TRACK]: HASH },
        ownerReferences: [owned],
      },
      spec: {
        clusterIP: 'None',
        selector: { [TRACK]: HASH },
        ports: [{ name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080 }],
      },
    });
  });

  it('reuse owned: no write', () => {
    const s = sandbox('my-sandbox', web);
    const existing = service('my-sandbox', owned, { [TRACK]: HASH });
    existing.spec = {
      clusterIP: 'None',
      selector: { [TRACK]: HASH },
      ports: [{ name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080 }],
    };
    expect(serviceAction(s, existing)).toEqual({ action: 'None', inUse: existing });
  });

  it('repair selector/label drift (stale selector keys deleted)', () => {
    const existing = service('my-sandbox', owned, { [TRACK]: 'stale' });
    existing.spec = { clusterIP: 'None', selector: { app: 'x' } };
    const got = serviceAction(sandbox(), existing);
    expect(got.action).toBe('Patch');
    if (got.action !== 'Patch') return;
    expect(got.patch).toEqual({
      metadata: { labels: { [TRACK]: HASH } },
      spec: { selector: { app: null, [TRACK]: HASH } },
    });
    expect(got.inUse.spec?.selector).toEqual({ [TRACK]: HASH });
  });

  it('repair port drift; unmanaged port fields preserved while the four fields match', () => {
    const s = sandbox('my-sandbox', web);
    const existing = service('my-sandbox', owned, { [TRACK]: HASH });
    existing.spec = {
      clusterIP: 'None',
      selector: { [TRACK]: HASH },
      ports: [{ name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080, appProtocol: 'http' }],
    };
    expect(serviceAction(s, existing).action).toBe('None');
    existing.spec.ports = [
      { name: 'old', protocol: 'TCP', port: 80, targetPort: 80, appProtocol: 'http' },
    ];
    const got = serviceAction(s, existing);
    expect(got.action === 'Patch' && got.patch).toEqual({
      spec: { ports: [{ name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080 }] },
    });
  });

  it('refuse foreign-owned', () => {
    const got = serviceAction(
      sandbox('my-sandbox', web),
      service('my-sandbox', ownerRef('other', 'Deployment', 'd')),
    );
    expect(got.action === 'Error' && got.error.message).toBe(
      'service "my-sandbox" is owned by Deployment/d (UID: other), not by sandbox "my-sandbox"',
    );
  });

  it('adopt unowned (adoptable): sets owner, overwrites selector, ports from the template', () => {
    const existing = service('my-sandbox', undefined, { 'agents.x-k8s.io/adoptable': 'true' });
    existing.spec = { clusterIP: 'None', selector: { app: 'x' }, ports: [{ port: 1 }] };
    const got = serviceAction(sandbox('my-sandbox', web), existing);
    expect(got.action).toBe('Update');
    if (got.action !== 'Update') return;
    expect(got.service.metadata?.ownerReferences).toEqual([owned]);
    expect(got.service.metadata?.labels).toEqual({
      'agents.x-k8s.io/adoptable': 'true',
      [TRACK]: HASH,
    });
    expect(got.service.spec?.selector).toEqual({ [TRACK]: HASH });
    expect(got.service.spec?.ports).toEqual([
      { name: 'http', protocol: 'TCP', port: 8080, targetPort: 8080 },
    ]);
  });

  it('adopt clears ports when none; accepts legacy tracking label', () => {
    const existing = service('my-sandbox', undefined, { [TRACK]: HASH });
    existing.spec = { clusterIP: '', ports: [{ port: 1 }] };
    const got = serviceAction(
      sandbox('my-sandbox', (s) => (s.spec.service = true)),
      existing,
    );
    expect(got.action === 'Update' && got.service.spec?.ports).toBeUndefined();
  });

  it('refuses a non-headless ClusterIP Service', () => {
    const existing = service('my-sandbox', undefined, { 'agents.x-k8s.io/adoptable': 'true' });
    existing.spec = { clusterIP: '10.0.0.5' };
    const got = serviceAction(sandbox('my-sandbox', web), existing);
    expect(got.action === 'Error' && got.error.message).toBe(
      'cannot adopt service "my-sandbox": ClusterIP is "10.0.0.5" (expected "None", field is immutable)',
    );
  });

  it('refuse unowned without authorisation label', () => {
    const got = serviceAction(sandbox('my-sandbox', web), service('my-sandbox'));
    expect(got.action === 'Error' && got.error.message).toBe(
      'cannot adopt unowned service "my-sandbox": missing required pool authorization label ("agents.x-k8s.io/adoptable") or sandbox tracking label ("agents.x-k8s.io/sandbox-name-hash")',
    );
  });

  it('nil: no create; keep + reconcile owned (label/selector, ports untouched); ignore unowned', () => {
    const s = sandbox(
      'my-sandbox',
      withContainers([{ name: 'm', ports: [{ containerPort: 80 }] }]),
    );
    expect(serviceAction(s, undefined)).toEqual({ action: 'None', inUse: undefined });
    const ownedSvc = service('my-sandbox', owned);
    ownedSvc.spec = { clusterIP: 'None', ports: [{ port: 1 }] };
    const got = serviceAction(s, ownedSvc);
    expect(got.action === 'Patch' && got.patch).toEqual({
      metadata: { labels: { [TRACK]: HASH } },
      spec: { selector: { [TRACK]: HASH } },
    });
    expect(serviceAction(s, service('my-sandbox', undefined, { [TRACK]: HASH }))).toEqual({
      action: 'None',
      inUse: undefined,
    });
  });

  it('false: delete owned, ignore unowned and foreign', () => {
    const s = sandbox('my-sandbox', (x) => (x.spec.service = false));
    expect(serviceAction(s, service('my-sandbox', owned))).toEqual({
      action: 'Delete',
      name: 'my-sandbox',
      inUse: undefined,
    });
    expect(serviceAction(s, service('my-sandbox')).action).toBe('None');
    expect(serviceAction(s, service('my-sandbox', ownerRef('x', 'Deployment'))).action).toBe(
      'None',
    );
    expect(serviceAction(s, undefined).action).toBe('None');
  });
});

describe('TestSetServiceStatusCustomDomain', () => {
  it.each([
    ['cluster.local', 'my-sandbox.default.svc.cluster.local'],
    ['example.internal', 'my-sandbox.default.svc.example.internal'],
  ])('%s', (domain, want) => {
    expect(serviceFQDN('my-sandbox', 'default', domain)).toBe(want);
  });
});
