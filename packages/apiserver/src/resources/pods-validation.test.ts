import { describe, expect, it } from 'vitest';
import { POD_UPDATE_FORBIDDEN, validatePodSpecUpdate } from './pods-update-validation.ts';
import { isPodSpecPathCheckedHere, validatePodSpec } from './pods-validation.ts';

const c = (extra: Record<string, unknown> = {}) => ({ name: 'c', image: 'busybox', ...extra });
const fields = (spec: unknown) => validatePodSpec(spec).map((i) => `${i.field}: ${i.message}`);

describe('validatePodSpec', () => {
  it('accepts a minimal Pod and leaves defaulted fields alone', () => {
    expect(validatePodSpec({ containers: [c({ ports: [{ containerPort: 80 }] })] })).toEqual([]);
  });

  it('reports in kube order: volumes, containers, init containers, restartPolicy', () => {
    expect(
      fields({
        restartPolicy: 'X',
        volumes: [{ name: 'V' }],
        initContainers: [c()],
        containers: [{ name: 'c' }, c({ ports: [{ containerPort: 0 }] })],
      }),
    ).toEqual([
      expect.stringMatching(
        /^spec\.volumes\[0\]\.name: Invalid value: "V": a lowercase RFC 1123 label/,
      ),
      'spec.containers[0].image: Required value',
      'spec.containers[1].ports[0].containerPort: Required value',
      'spec.containers[1].name: Duplicate value: "c"',
      'spec.initContainers[0].name: Duplicate value: "c"',
      'spec.restartPolicy: Unsupported value: "X": supported values: "Always", "OnFailure", "Never"',
    ]);
  });

  it('says a dotted name is no DNS label the way kube 1.36 does', () => {
    expect(fields({ containers: [c({ name: 'a.b' })] })).toEqual([
      'spec.containers[0].name: Invalid value: "a.b": must not contain dots',
    ]);
  });

  it('checks set enums, env names, subPaths and Pod fields in kube order', () => {
    expect(
      validatePodSpec({
        hostname: 'H_',
        dnsPolicy: 'X',
        containers: [
          c({
            imagePullPolicy: 'P',
            terminationMessagePolicy: 'T',
            env: [{ name: 'A=B' }],
            volumeMounts: [],
          }),
        ],
        volumes: [],
        activeDeadlineSeconds: 0,
      }).map((i) => i.field),
    ).toEqual([
      'spec.containers[0].terminationMessagePolicy',
      'spec.containers[0].env[0].name',
      'spec.containers[0].imagePullPolicy',
      'spec.dnsPolicy',
      'spec.activeDeadlineSeconds',
      'spec.hostname',
    ]);
    expect(
      fields({
        volumes: [{ name: 'v' }],
        containers: [c({ volumeMounts: [{ name: 'v', mountPath: '/x', subPath: '/a/../b' }] })],
      }),
    ).toEqual([
      'spec.containers[0].volumeMounts.subPath: Invalid value: "/a/../b": must be a relative path',
      'spec.containers[0].volumeMounts.subPath: Invalid value: "/a/../b": must not contain \'..\'',
    ]);
  });

  it('checks mounts against the valid volumes only', () => {
    expect(
      fields({
        volumes: [{ name: 'V' }, { name: 'v' }],
        containers: [
          c({
            volumeMounts: [
              { name: 'V', mountPath: '/a' },
              { name: 'v', mountPath: '/a' },
            ],
          }),
        ],
      }).slice(1),
    ).toEqual([
      'spec.containers[0].volumeMounts[0].name: Not found: "V"',
      'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique',
    ]);
  });

  it('compares requests with limits as quantities, defaulting requests from limits', () => {
    expect(
      fields({
        containers: [c({ resources: { requests: { cpu: '500m' }, limits: { cpu: '0.5' } } })],
      }),
    ).toEqual([]);
    expect(
      fields({ containers: [c({ resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } })] }),
    ).toEqual([
      'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
    ]);
    expect(fields({ containers: [c({ resources: { limits: { memory: '-1' } } })] })).toEqual([
      'spec.containers[0].resources.limits[memory]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.containers[0].resources.requests[memory]: Invalid value: "-1": must be greater than or equal to 0',
    ]);
    expect(
      fields({ containers: [c({ resources: { requests: { 'example.com/gpu': '1' } } })] }),
    ).toEqual([
      'spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
    ]);
  });

  it('names the schema paths whose required checks it replaces', () => {
    expect(isPodSpecPathCheckedHere('spec.containers[3].name')).toBe(true);
    expect(isPodSpecPathCheckedHere('spec.containers[0].env[0].valueFrom.secretKeyRef.key')).toBe(
      false,
    );
  });
});

describe('validatePodSpecUpdate', () => {
  const old = {
    containers: [c()],
    tolerations: [{ key: 'a', operator: 'Exists' }],
    activeDeadlineSeconds: 60,
  };
  const messages = (next: unknown) =>
    validatePodSpecUpdate(next, old).map((i) => `${i.field}: ${i.message}`);

  it('allows images, added tolerations and a lower deadline', () => {
    expect(
      messages({
        containers: [c({ image: 'busybox:2' })],
        tolerations: [...old.tolerations, { key: 'b', operator: 'Exists' }],
        activeDeadlineSeconds: 30,
      }),
    ).toEqual([]);
  });

  it('forbids other changes with kube text and a diff of the changed paths', () => {
    const [issue] = validatePodSpecUpdate({ ...old, restartPolicy: 'Never' }, old);
    expect(issue?.field).toBe('spec');
    expect(issue?.message).toBe(
      `Forbidden: ${POD_UPDATE_FORBIDDEN}\n+ spec.restartPolicy: "Never"\n`,
    );
  });

  it('stops at added or removed containers and refuses removed tolerations and higher deadlines', () => {
    expect(messages({ ...old, containers: [c(), c({ name: 'd' })] })).toEqual([
      'spec.containers: Forbidden: pod updates may not add or remove containers',
    ]);
    expect(messages({ ...old, tolerations: [] })).toEqual([
      'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    ]);
    expect(messages({ ...old, activeDeadlineSeconds: 90 })).toEqual([
      'spec.activeDeadlineSeconds: Invalid value: 90: must be less than or equal to previous value',
    ]);
  });
});
