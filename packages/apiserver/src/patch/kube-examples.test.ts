import { describe, expect, it } from 'vitest';
import { apply } from './apply.ts';
import { FieldSet, fieldElement } from './field-set.ts';
import type { JsonObject } from './json-value.ts';
import { builtinMergeSchema } from './merge-schema.ts';
import { T0, T1, T2 } from './test-schemas.ts';
import { updateManagedFields } from './update.ts';

const podSchema = builtinMergeSchema('io.k8s.api.core.v1.Pod');
const configMapSchema = builtinMergeSchema('io.k8s.api.core.v1.ConfigMap');
const serviceSchema = builtinMergeSchema('io.k8s.api.core.v1.Service');
const statusReset = FieldSet.fromPaths([[fieldElement('status')]]);

// The expected fieldsV1 in this block are written by hand from what kube-apiserver 1.32 records
// for `kubectl run nginx --image=nginx`, `kubectl create configmap` and
// `kubectl apply --server-side` of a small Pod (field order as structured-merge-diff serialises).
describe('managedFields exactly as kube records them', () => {
  it('kubectl run: a defaulted Pod created with operation Update', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'nginx', namespace: 'default', labels: { run: 'nginx' } },
      spec: {
        containers: [
          {
            name: 'nginx',
            image: 'nginx',
            imagePullPolicy: 'Always',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        dnsPolicy: 'ClusterFirst',
        enableServiceLinks: true,
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
      },
      status: { phase: 'Pending' },
    };
    const { managedFields } = updateManagedFields(undefined, pod, {
      manager: 'kubectl-run',
      apiVersion: 'v1',
      schema: podSchema,
      now: T0,
      ignoredFields: statusReset,
    });
    expect(JSON.stringify(managedFields)).toBe(
      JSON.stringify([
        {
          manager: 'kubectl-run',
          operation: 'Update',
          apiVersion: 'v1',
          time: T0,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { '.': {}, 'f:run': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"nginx"}': {
                  '.': {},
                  'f:image': {},
                  'f:imagePullPolicy': {},
                  'f:name': {},
                  'f:resources': {},
                  'f:terminationMessagePath': {},
                  'f:terminationMessagePolicy': {},
                },
              },
              'f:dnsPolicy': {},
              'f:enableServiceLinks': {},
              'f:restartPolicy': {},
              'f:schedulerName': {},
              'f:securityContext': {},
              'f:terminationGracePeriodSeconds': {},
            },
          },
        },
      ]),
    );
  });

  it('kubectl create configmap', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { key: 'v' } };
    const { managedFields } = updateManagedFields(undefined, cm, {
      manager: 'kubectl-create',
      apiVersion: 'v1',
      schema: configMapSchema,
      now: T0,
    });
    expect(managedFields).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:key': {} } },
      },
    ]);
  });

  it('kubectl apply --server-side of a Pod', () => {
    const body = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: {
        containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }],
      },
    };
    const { managedFields } = apply(undefined, body, {
      manager: 'kubectl',
      force: false,
      apiVersion: 'v1',
      schema: podSchema,
      now: T0,
    });
    expect(JSON.stringify(managedFields)).toBe(
      JSON.stringify([
        {
          manager: 'kubectl',
          operation: 'Apply',
          apiVersion: 'v1',
          time: T0,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { 'f:app': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"nginx"}': {
                  '.': {},
                  'f:image': {},
                  'f:name': {},
                  'f:ports': {
                    'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                  },
                },
              },
            },
          },
        },
      ]),
    );
  });

  it('kubectl create service clusterip web --tcp=80:8080', () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: {
        ports: [{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }],
        selector: { app: 'web' },
        type: 'ClusterIP',
        sessionAffinity: 'None',
        internalTrafficPolicy: 'Cluster',
      },
    };
    const { managedFields } = updateManagedFields(undefined, svc, {
      manager: 'kubectl-create',
      apiVersion: 'v1',
      schema: serviceSchema,
      now: T0,
      ignoredFields: statusReset,
    });
    expect(JSON.stringify(managedFields[0]?.fieldsV1)).toBe(
      JSON.stringify({
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': {
          'f:internalTrafficPolicy': {},
          'f:ports': {
            '.': {},
            'k:{"port":80,"protocol":"TCP"}': {
              '.': {},
              'f:name': {},
              'f:port': {},
              'f:protocol': {},
              'f:targetPort': {},
            },
          },
          'f:selector': {},
          'f:sessionAffinity': {},
          'f:type': {},
        },
      }),
    );
  });
});

describe('a Pod under kubectl apply --server-side and a controller', () => {
  const opts = (now: string) => ({
    manager: 'kubectl',
    force: false,
    apiVersion: 'v1',
    schema: podSchema,
    now,
    ignoredFields: statusReset,
  });
  const body = (env: { name: string; value: string }[]) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      containers: [{ name: 'app', image: 'app:1', env, ports: [{ containerPort: 8080 }] }],
      tolerations: [{ key: 'k', operator: 'Exists' }],
    },
  });

  it('re-applies idempotently, removes a dropped env var and leaves the controller fields', () => {
    const first = apply(
      undefined,
      body([
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ]),
      opts(T0),
    );
    const again = apply(
      first.object,
      body([
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ]),
      opts(T1),
    );
    expect(again.object).toEqual(first.object);

    const ctrl = structuredClone(first.object);
    ((ctrl.spec as JsonObject).containers as JsonObject[])[0]!.resources = { limits: { cpu: '1' } };
    const controlled = updateManagedFields(first.object, ctrl, {
      manager: 'resizer',
      apiVersion: 'v1',
      schema: podSchema,
      now: T1,
    });
    const dropped = apply(controlled.object, body([{ name: 'A', value: '1' }]), opts(T2));
    const container = ((dropped.object.spec as JsonObject).containers as JsonObject[])[0];
    expect(container).toEqual({
      name: 'app',
      image: 'app:1',
      env: [{ name: 'A', value: '1' }],
      ports: [{ containerPort: 8080 }],
      resources: { limits: { cpu: '1' } },
    });
    expect(JSON.stringify(dropped.managedFields)).toBe(
      JSON.stringify([
        {
          manager: 'kubectl',
          operation: 'Apply',
          apiVersion: 'v1',
          time: T2,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:spec': {
              'f:containers': {
                'k:{"name":"app"}': {
                  '.': {},
                  'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                  'f:image': {},
                  'f:name': {},
                  'f:ports': {
                    'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                  },
                },
              },
              'f:tolerations': {},
            },
          },
        },
        {
          manager: 'resizer',
          operation: 'Update',
          apiVersion: 'v1',
          time: T1,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:spec': {
              'f:containers': {
                'k:{"name":"app"}': {
                  'f:resources': { '.': {}, 'f:limits': { '.': {}, 'f:cpu': {} } },
                },
              },
            },
          },
        },
      ]),
    );
  });
});
