// The Pod Security checks, table-driven: each level's verdict and kube's words for one field
// at a time, how restricted replaces baseline checks, versions, and label parsing.
import type { PodSpec } from '@agent-sandbox/kube-types';
import { describe as group, expect, it } from 'vitest';
import { describe, evaluate, policyFor, PRIVILEGED_DEFAULTS, type LevelVersion } from './policy.ts';

const latest = (level: LevelVersion['level']): LevelVersion => ({ level, version: 'latest' });
const spec = (s: Partial<PodSpec> = {}, c: Record<string, unknown> = {}): PodSpec =>
  ({ containers: [{ name: 'c', image: 'x', ...c }], ...s }) as PodSpec;

const OK_RESTRICTED = {
  securityContext: {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    runAsNonRoot: true,
    seccompProfile: { type: 'RuntimeDefault' },
  },
};

group('baseline', () => {
  const cases: [string, PodSpec, string][] = [
    ['nothing set', spec(), ''],
    [
      'privileged',
      spec({}, { securityContext: { privileged: true } }),
      'privileged (container "c" must not set securityContext.privileged=true)',
    ],
    [
      'hostPath',
      spec({
        volumes: [
          { name: 'a', hostPath: { path: '/' } },
          { name: 'b', hostPath: { path: '/x' } },
        ],
      }),
      'hostPath volumes (volumes "a", "b")',
    ],
    [
      'host namespaces',
      spec({ hostPID: true, hostNetwork: true }),
      'host namespaces (hostNetwork=true, hostPID=true)',
    ],
    [
      'capabilities',
      spec({}, { securityContext: { capabilities: { add: ['SYS_ADMIN', 'CHOWN', 'NET_RAW'] } } }),
      'non-default capabilities (container "c" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add)',
    ],
    [
      'hostPorts',
      spec(
        {},
        {
          ports: [
            { containerPort: 1, hostPort: 9000 },
            { containerPort: 2, hostPort: 10000 },
          ],
        },
      ),
      'hostPort (container "c" uses hostPorts 10000, 9000)',
    ],
    [
      'seccomp',
      spec({ securityContext: { seccompProfile: { type: 'Unconfined' } } }),
      'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
    ],
    [
      'sysctls',
      spec({
        securityContext: {
          sysctls: [
            { name: 'kernel.shm_rmid_forced', value: '1' },
            { name: 'vm.x', value: '1' },
          ],
        },
      }),
      'forbidden sysctls (vm.x)',
    ],
    [
      'procMount relaxed in a user namespace',
      spec({ hostUsers: false }, { securityContext: { procMount: 'Unmasked' } }),
      '',
    ],
    [
      'windows hostProcess',
      spec({ securityContext: { windowsOptions: { hostProcess: true } } }),
      'hostProcess (pod must not set securityContext.windowsOptions.hostProcess=true)',
    ],
  ];
  it.each(cases)('%s', (_n, s, want) =>
    expect(describe(evaluate(latest('baseline'), { spec: s }))).toBe(want),
  );

  it('lists every violation in kube order, init containers first', () => {
    const s = spec(
      {
        hostIPC: true,
        initContainers: [{ name: 'i', image: 'x', securityContext: { privileged: true } }],
      },
      { securityContext: { privileged: true } },
    );
    expect(describe(evaluate(latest('baseline'), { spec: s }))).toBe(
      'host namespaces (hostIPC=true), privileged (containers "i", "c" must not set securityContext.privileged=true)',
    );
  });
});

group('restricted', () => {
  it('a plain Pod violates four checks', () => {
    expect(describe(evaluate(latest('restricted'), { spec: spec() }))).toBe(
      'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
        'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
        'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
        'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });
  it('a compliant Pod passes; restricted volumes replace the hostPath check', () => {
    expect(evaluate(latest('restricted'), { spec: spec({}, OK_RESTRICTED) })).toEqual([]);
    const s = spec(
      {
        volumes: [
          { name: 'h', hostPath: { path: '/' } },
          { name: 'e', emptyDir: {} },
        ],
      },
      OK_RESTRICTED,
    );
    expect(describe(evaluate(latest('restricted'), { spec: s }))).toBe(
      'restricted volume types (volume "h" uses restricted volume type "hostPath")',
    );
  });
  it('older versions lack newer checks (capabilities_restricted from 1.22)', () => {
    const s = spec(
      {},
      {
        securityContext: { ...OK_RESTRICTED.securityContext, capabilities: { add: ['SYS_ADMIN'] } },
      },
    );
    expect(describe(evaluate({ level: 'restricted', version: 21 }, { spec: s }))).toBe(
      'non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)',
    );
  });
  it('privileged allows anything', () => {
    expect(evaluate(latest('privileged'), { spec: spec({ hostPID: true }) })).toEqual([]);
  });
});

group('policyFor', () => {
  it('reads the labels over the defaults and defaults warn to a stricter enforce', () => {
    const { policy, errors } = policyFor(
      {
        'pod-security.kubernetes.io/enforce': 'baseline',
        'pod-security.kubernetes.io/enforce-version': 'v1.30',
      },
      PRIVILEGED_DEFAULTS,
    );
    expect(errors).toEqual([]);
    expect(policy.enforce).toEqual({ level: 'baseline', version: 30 });
    expect(policy.warn).toEqual({ level: 'baseline', version: 30 });
    expect(policy.audit).toEqual({ level: 'privileged', version: 'latest' });
  });
  it('names each bad label; a bad enforce level enforces restricted', () => {
    const { policy, errors } = policyFor(
      {
        'pod-security.kubernetes.io/enforce': 'strict',
        'pod-security.kubernetes.io/warn-version': '1.2',
      },
      PRIVILEGED_DEFAULTS,
    );
    expect(policy.enforce.level).toBe('restricted');
    expect(errors).toEqual([
      {
        label: 'pod-security.kubernetes.io/enforce',
        value: 'strict',
        message: 'must be one of privileged, baseline, restricted',
      },
      {
        label: 'pod-security.kubernetes.io/warn-version',
        value: '1.2',
        message: 'must be "latest" or "v1.x"',
      },
    ]);
  });
});
