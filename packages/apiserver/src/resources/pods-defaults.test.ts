import { describe, expect, it } from 'vitest';
import { defaultPodSpec, pullPolicyFor } from './pods-defaults.ts';

type Json = Record<string, unknown>;

function defaulted(spec: Json): Json {
  const copy = structuredClone(spec);
  defaultPodSpec(copy);
  return copy;
}

const containersOf = (spec: Json) => spec['containers'] as Json[];

describe('pullPolicyFor', () => {
  it.each([
    ['busybox', 'Always'],
    ['busybox:latest', 'Always'],
    ['localhost:5000/img', 'Always'],
    ['localhost:5000/img:latest', 'Always'],
    ['busybox:1.36', 'IfNotPresent'],
    ['localhost:5000/img:v2', 'IfNotPresent'],
    [`img@sha256:${'0'.repeat(64)}`, 'IfNotPresent'],
    [`img:latest@sha256:${'0'.repeat(64)}`, 'IfNotPresent'],
  ])('%s → %s', (image, policy) => expect(pullPolicyFor(image)).toBe(policy));
});

describe('defaultPodSpec', () => {
  it('fills the Pod spec defaults of a minimal Pod', () => {
    const spec = defaulted({ containers: [{ name: 'c', image: 'busybox' }] });
    expect(spec).toEqual({
      containers: [
        {
          name: 'c',
          image: 'busybox',
          imagePullPolicy: 'Always',
          resources: {},
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
      securityContext: {},
    });
  });

  it('keeps values the client set, including false and zero', () => {
    const sent = {
      dnsPolicy: 'Default',
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      schedulerName: 'mine',
      enableServiceLinks: false,
      securityContext: { runAsUser: 1 },
      containers: [{ name: 'c', image: 'x', imagePullPolicy: 'Never' }],
    };
    const spec = defaulted(sent);
    for (const k of Object.keys(sent).filter((k) => k !== 'containers'))
      expect(spec[k]).toEqual((sent as Json)[k]);
    expect(containersOf(spec)[0]?.['imagePullPolicy']).toBe('Never');
  });

  it('defaults probes (zero counts as unset), HTTP handlers, ports and env selectors', () => {
    const spec = defaulted({
      containers: [
        {
          name: 'c',
          image: 'x:1',
          ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
          livenessProbe: { httpGet: { port: 80 }, timeoutSeconds: 0 },
          readinessProbe: { grpc: { port: 9 }, periodSeconds: 3 },
          lifecycle: { preStop: { httpGet: { port: 80, path: '/stop' } } },
          env: [
            { name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'B', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
          ],
        },
      ],
    });
    const c = containersOf(spec)[0] ?? {};
    expect(c['ports']).toEqual([
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 53, protocol: 'UDP' },
    ]);
    expect(c['livenessProbe']).toEqual({
      httpGet: { port: 80, path: '/', scheme: 'HTTP' },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(c['readinessProbe']).toMatchObject({ grpc: { port: 9, service: '' }, periodSeconds: 3 });
    expect(c['lifecycle']).toEqual({
      preStop: { httpGet: { port: 80, path: '/stop', scheme: 'HTTP' } },
    });
    expect(c['env']).toEqual([
      { name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } },
      { name: 'B', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } } },
    ]);
  });

  it('uses the container port as host port on the host network', () => {
    const spec = defaulted({
      hostNetwork: true,
      containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 8080 }] }],
    });
    expect(containersOf(spec)[0]?.['ports']).toEqual([
      { containerPort: 8080, hostPort: 8080, protocol: 'TCP' },
    ]);
  });

  it('defaults requests from limits, per container and at pod level', () => {
    const spec = defaulted({
      resources: { limits: { cpu: '2', memory: '1Gi' } },
      containers: [
        {
          name: 'c',
          image: 'x',
          resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } },
        },
        { name: 'd', image: 'x', resources: { requests: { cpu: '250m' } } },
      ],
    });
    expect(containersOf(spec)[0]?.['resources']).toEqual({
      limits: { cpu: '1', memory: '1Gi' },
      requests: { cpu: '500m', memory: '1Gi' },
    });
    // cpu: the containers' requests added up; memory: only the first container's (defaulted) one.
    expect(spec['resources']).toEqual({
      limits: { cpu: '2', memory: '1Gi' },
      requests: { cpu: '750m', memory: '1Gi' },
    });
  });

  it('defaults volume sources and turns a volume without source into an emptyDir', () => {
    const spec = defaulted({
      containers: [{ name: 'c', image: 'x' }],
      volumes: [
        { name: 's', secret: { secretName: 's' } },
        { name: 'cm', configMap: { name: 'cm', defaultMode: 256 } },
        {
          name: 'd',
          downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] },
        },
        { name: 'p', projected: { sources: [] } },
        { name: 'h', hostPath: { path: '/tmp' } },
        { name: 'none' },
        { name: 'pvc', persistentVolumeClaim: { claimName: 'x' } },
      ],
    });
    expect(spec['volumes']).toEqual([
      { name: 's', secret: { secretName: 's', defaultMode: 420 } },
      { name: 'cm', configMap: { name: 'cm', defaultMode: 256 } },
      {
        name: 'd',
        downwardAPI: {
          defaultMode: 420,
          items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } }],
        },
      },
      { name: 'p', projected: { sources: [], defaultMode: 420 } },
      { name: 'h', hostPath: { path: '/tmp', type: '' } },
      { name: 'none', emptyDir: {} },
      { name: 'pvc', persistentVolumeClaim: { claimName: 'x' } },
    ]);
  });

  it('carries serviceAccount into serviceAccountName and back', () => {
    expect(defaulted({ serviceAccount: 'old', containers: [] })).toMatchObject({
      serviceAccountName: 'old',
      serviceAccount: 'old',
    });
    expect(
      defaulted({ serviceAccountName: 'new', serviceAccount: 'old', containers: [] }),
    ).toMatchObject({ serviceAccountName: 'new', serviceAccount: 'new' });
  });

  it('is idempotent', () => {
    const once = defaulted({
      containers: [{ name: 'c', image: 'x', livenessProbe: { tcpSocket: { port: 1 } } }],
      volumes: [{ name: 'v' }],
    });
    expect(defaulted(once)).toEqual(once);
  });
});
