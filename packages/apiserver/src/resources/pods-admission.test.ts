import { describe, expect, it } from 'vitest';
import { admitPodCreate, TOKEN_MOUNT_PATH } from './pods-admission.ts';

type Json = Record<string, unknown>;

function admitted(spec: Json, serviceAccount?: Json, annotations?: Json): Json {
  const pod: Json = { metadata: { name: 'p', ...(annotations ? { annotations } : {}) }, spec };
  expect(admitPodCreate(pod, { serviceAccount, suffix: 'abcde' })).toBeUndefined();
  return pod['spec'] as Json;
}

function refusal(spec: Json): string | undefined {
  const pod: Json = { metadata: { name: 'p', namespace: 'ns' }, spec };
  return admitPodCreate(pod, { serviceAccount: undefined, suffix: 'abcde' });
}

const TOKEN_MOUNT = { name: 'kube-api-access-abcde', readOnly: true, mountPath: TOKEN_MOUNT_PATH };
const DEFAULT_TOLERATIONS = ['not-ready', 'unreachable'].map((k) => ({
  key: `node.kubernetes.io/${k}`,
  operator: 'Exists',
  effect: 'NoExecute',
  tolerationSeconds: 300,
}));

describe('admitPodCreate', () => {
  it('adds the default ServiceAccount, its token volume and mounts, tolerations and priority', () => {
    const spec = admitted({
      initContainers: [{ name: 'i', image: 'x' }],
      containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'v', mountPath: '/v' }] }],
      volumes: [{ name: 'v', emptyDir: {} }],
    });
    expect(spec['serviceAccountName']).toBe('default');
    expect(spec['serviceAccount']).toBe('default');
    expect((spec['initContainers'] as Json[])[0]?.['volumeMounts']).toEqual([TOKEN_MOUNT]);
    expect((spec['containers'] as Json[])[0]?.['volumeMounts']).toEqual([
      { name: 'v', mountPath: '/v' },
      TOKEN_MOUNT,
    ]);
    const volumes = spec['volumes'] as Json[];
    expect(volumes).toHaveLength(2);
    expect(volumes[1]).toEqual({
      name: 'kube-api-access-abcde',
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          {
            downwardAPI: {
              items: [
                {
                  path: 'namespace',
                  fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' },
                },
              ],
            },
          },
        ],
      },
    });
    expect(spec['tolerations']).toEqual(DEFAULT_TOLERATIONS);
    expect(spec['priority']).toBe(0);
    expect(spec['preemptionPolicy']).toBe('PreemptLowerPriority');
  });

  it('mounts nothing when the Pod or else its ServiceAccount says so, and copies pull secrets', () => {
    const quiet = { automountServiceAccountToken: false, imagePullSecrets: [{ name: 'pull' }] };
    const bySa = admitted(
      { serviceAccountName: 'q', containers: [{ name: 'c', image: 'x' }] },
      quiet,
    );
    expect(bySa['volumes']).toBeUndefined();
    expect(bySa['imagePullSecrets']).toEqual([{ name: 'pull' }]);
    const byPod = admitted(
      {
        automountServiceAccountToken: true,
        imagePullSecrets: [{ name: 'own' }],
        containers: [{ name: 'c', image: 'x' }],
      },
      quiet,
    );
    expect(byPod['volumes']).toHaveLength(1);
    expect(byPod['imagePullSecrets']).toEqual([{ name: 'own' }]);
    const off = admitted({
      automountServiceAccountToken: false,
      containers: [{ name: 'c', image: 'x' }],
    });
    expect(off['volumes']).toBeUndefined();
  });

  it('leaves a container that mounts the token path itself alone', () => {
    const own = { name: 'own', mountPath: TOKEN_MOUNT_PATH };
    const spec = admitted({ containers: [{ name: 'c', image: 'x', volumeMounts: [own] }] });
    expect((spec['containers'] as Json[])[0]?.['volumeMounts']).toEqual([own]);
    expect(spec['volumes']).toBeUndefined();
  });

  it('skips the ServiceAccount plugin for mirror Pods', () => {
    const spec = admitted({ containers: [] }, undefined, { 'kubernetes.io/config.mirror': 'x' });
    expect(spec['serviceAccountName']).toBeUndefined();
    expect(spec['tolerations']).toEqual(DEFAULT_TOLERATIONS);
  });

  it('adds only the tolerations the Pod lacks', () => {
    const notReady = { key: 'node.kubernetes.io/not-ready', operator: 'Exists' };
    expect(admitted({ tolerations: [notReady], containers: [] })['tolerations']).toEqual([
      notReady,
      DEFAULT_TOLERATIONS[1],
    ]);
    const everything = { operator: 'Exists' };
    expect(admitted({ tolerations: [everything], containers: [] })['tolerations']).toEqual([
      everything,
    ]);
    const noSchedule = {
      key: 'node.kubernetes.io/unreachable',
      operator: 'Exists',
      effect: 'NoSchedule',
    };
    expect(admitted({ tolerations: [noSchedule], containers: [] })['tolerations']).toEqual([
      noSchedule,
      ...DEFAULT_TOLERATIONS,
    ]);
  });

  it('takes priority from the system classes and leaves other classes alone', () => {
    expect(admitted({ priorityClassName: 'system-node-critical', containers: [] })).toMatchObject({
      priority: 2_000_001_000,
      preemptionPolicy: 'PreemptLowerPriority',
    });
    const other = admitted({ priorityClassName: 'batch', containers: [] });
    expect(other['priority']).toBeUndefined();
    expect(other['preemptionPolicy']).toBeUndefined();
  });

  it('refuses a missing named ServiceAccount and client-set priorities that differ', () => {
    expect(refusal({ serviceAccountName: 'ghost', containers: [] })).toBe(
      'error looking up service account ns/ghost: serviceaccount "ghost" not found',
    );
    expect(refusal({ containers: [] })).toBeUndefined();
    expect(refusal({ priority: 5, containers: [] })).toBe(
      'the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    );
    expect(refusal({ priority: 0, containers: [] })).toBeUndefined();
    expect(refusal({ preemptionPolicy: 'Never', containers: [] })).toBe(
      'the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
    );
  });
});
