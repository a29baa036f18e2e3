// The Pod Security Standards as a table of checks (k8s.io/pod-security-admission's policy, as
// of its latest version): each check has an id, the level that adds it, the minor version it
// appears in, the baseline checks it replaces at restricted, and a pure function of the Pod's
// metadata and spec that returns kube's forbidden reason and detail, word for word.
import type { Container, PodSpec, SecurityContext } from '@agent-sandbox/kube-types';

export type Level = 'privileged' | 'baseline' | 'restricted';

export interface Violation {
  reason: string;
  detail: string;
}

export interface PodSecurityCheck {
  id: string;
  level: 'baseline' | 'restricted';
  /** The first 1.x minor the check applies to. */
  since: number;
  /** Baseline checks this restricted check replaces. */
  overrides?: string[];
  check(annotations: Record<string, string>, spec: PodSpec): Violation | undefined;
}

const plural = (one: string, many: string, n: number) => (n === 1 ? one : many);
const joinQuote = (items: readonly string[]) =>
  items.length === 0 ? '' : `"${items.join('", "')}"`;
const sortedSet = (items: Iterable<string>) => [...new Set(items)].sort();
const containers = (n: number) => plural('container', 'containers', n);

/** Init, regular and ephemeral containers, in kube's visiting order. */
function allContainers(spec: PodSpec): Container[] {
  return [
    ...(spec.initContainers ?? []),
    ...(spec.containers ?? []),
    ...((spec.ephemeralContainers ?? []) as Container[]),
  ];
}

function badContainers(
  spec: PodSpec,
  bad: (sc: SecurityContext | undefined, c: Container) => boolean,
) {
  return allContainers(spec)
    .filter((c) => bad(c.securityContext, c))
    .map((c) => c.name);
}

/** "pod and containers "a", "b"" — who set a forbidden value. */
function setters(podBad: boolean, names: string[]): string[] {
  const out = podBad ? ['pod'] : [];
  if (names.length > 0) out.push(`${containers(names.length)} ${joinQuote(names)}`);
  return out;
}

const userNamespaced = (spec: PodSpec) => spec.hostUsers === false;
const isWindows = (spec: PodSpec) => spec.os?.name === 'windows';

const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
const ALLOWED_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
  'net.ipv4.tcp_rmem',
  'net.ipv4.tcp_wmem',
]);
const SELINUX_TYPES = new Set([
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
]);
const RESTRICTED_VOLUME_SOURCES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'image',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);
const VOLUME_TYPE_NAMES: Record<string, string> = { storageos: 'storageos', cephfs: 'cephfs' };

function appArmor(annotations: Record<string, string>, spec: PodSpec): Violation | undefined {
  const ok = (t: string | undefined) => t === 'RuntimeDefault' || t === 'Localhost';
  const values: string[] = [];
  const podType = spec.securityContext?.appArmorProfile?.type;
  const podBad = spec.securityContext?.appArmorProfile !== undefined && !ok(podType);
  if (podBad) values.push(podType ?? '');
  const names = badContainers(spec, (sc) => {
    const p = sc?.appArmorProfile;
    if (p === undefined || ok(p.type)) return false;
    values.push(p.type ?? '');
    return true;
  });
  const who = setters(podBad, names);
  const list = sortedSet(values);
  const annotated = Object.entries(annotations)
    .filter(
      ([k, v]) =>
        k.startsWith('container.apparmor.security.beta.kubernetes.io/') &&
        !(v === '' || v === 'runtime/default' || v.startsWith('localhost/')),
    )
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .sort();
  if (annotated.length > 0) {
    list.push(...annotated);
    who.push(plural('annotation', 'annotations', annotated.length));
  }
  if (who.length === 0) return undefined;
  return {
    reason: plural('forbidden AppArmor profile', 'forbidden AppArmor profiles', list.length),
    detail: `${who.join(' and ')} must not set AppArmor profile type to ${joinQuote(list)}`,
  };
}

function capabilitiesBaseline(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const added: string[] = [];
  const names = badContainers(spec, (sc) => {
    const bad = (sc?.capabilities?.add ?? []).filter((c) => !BASELINE_CAPABILITIES.has(c));
    added.push(...bad);
    return bad.length > 0;
  });
  if (names.length === 0) return undefined;
  return {
    reason: 'non-default capabilities',
    detail: `${containers(names.length)} ${joinQuote(names)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add`,
  };
}

function hostNamespaces(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const set = [
    spec.hostNetwork === true && 'hostNetwork=true',
    spec.hostPID === true && 'hostPID=true',
    spec.hostIPC === true && 'hostIPC=true',
  ].filter((s): s is string => typeof s === 'string');
  return set.length > 0 ? { reason: 'host namespaces', detail: set.join(', ') } : undefined;
}

function hostPathVolumes(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const names = (spec.volumes ?? []).filter((v) => v.hostPath !== undefined).map((v) => v.name);
  if (names.length === 0) return undefined;
  return {
    reason: 'hostPath volumes',
    detail: `${plural('volume', 'volumes', names.length)} ${joinQuote(names)}`,
  };
}

function hostPorts(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const ports: string[] = [];
  const names = badContainers(spec, (_sc, c) => {
    const used = (c.ports ?? [])
      .filter((p) => (p.hostPort ?? 0) !== 0)
      .map((p) => String(p.hostPort));
    ports.push(...used);
    return used.length > 0;
  });
  if (names.length === 0) return undefined;
  const list = sortedSet(ports);
  return {
    reason: 'hostPort',
    detail: `${containers(names.length)} ${joinQuote(names)} ${plural('uses', 'use', names.length)} ${plural('hostPort', 'hostPorts', list.length)} ${list.join(', ')}`,
  };
}

interface HostCarrier {
  httpGet?: { host?: string };
  tcpSocket?: { host?: string };
}
function hostsOf(h: HostCarrier | undefined): string[] {
  return [h?.httpGet?.host, h?.tcpSocket?.host].filter(
    (x): x is string => x !== undefined && x !== '',
  );
}

function hostProbes(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const hosts: string[] = [];
  const names = badContainers(spec, (_sc, c) => {
    const found = [
      ...hostsOf(c.livenessProbe),
      ...hostsOf(c.readinessProbe),
      ...hostsOf(c.startupProbe),
      ...hostsOf(c.lifecycle?.postStart),
      ...hostsOf(c.lifecycle?.preStop),
    ];
    hosts.push(...found);
    return found.length > 0;
  });
  if (names.length === 0) return undefined;
  const list = sortedSet(hosts);
  const unique = sortedSet(names);
  return {
    reason: 'probe or lifecycle host',
    detail: `${containers(unique.length)} ${joinQuote(unique)} ${plural('uses', 'use', unique.length)} ${plural('probe or lifecycle host', 'probe or lifecycle hosts', list.length)} ${joinQuote(list)}`,
  };
}

function privileged(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const names = badContainers(spec, (sc) => sc?.privileged === true);
  if (names.length === 0) return undefined;
  return {
    reason: 'privileged',
    detail: `${containers(names.length)} ${joinQuote(names)} must not set securityContext.privileged=true`,
  };
}

function procMountStrict(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const types: string[] = [];
  const names = badContainers(spec, (sc) => {
    if (sc?.procMount === undefined || sc.procMount === 'Default') return false;
    types.push(sc.procMount);
    return true;
  });
  if (names.length === 0) return undefined;
  return {
    reason: 'procMount',
    detail: `${containers(names.length)} ${joinQuote(names)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`,
  };
}

function procMountBaseline(a: Record<string, string>, spec: PodSpec): Violation | undefined {
  return userNamespaced(spec) ? undefined : procMountStrict(a, spec);
}

function seLinux(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const types: string[] = [];
  let user = false;
  let role = false;
  const valid = (o: { type?: string; user?: string; role?: string }) => {
    let ok = true;
    if (!SELINUX_TYPES.has(o.type ?? '')) {
      ok = false;
      types.push(o.type ?? '');
    }
    if ((o.user ?? '') !== '') [ok, user] = [false, true];
    if ((o.role ?? '') !== '') [ok, role] = [false, true];
    return ok;
  };
  const podOpts = spec.securityContext?.seLinuxOptions;
  const podBad = podOpts !== undefined && !valid(podOpts);
  const names = badContainers(
    spec,
    (sc) => sc?.seLinuxOptions !== undefined && !valid(sc.seLinuxOptions),
  );
  const who = setters(podBad, names);
  if (who.length === 0) return undefined;
  const data: string[] = [];
  const list = sortedSet(types);
  if (list.length > 0) data.push(`${plural('type', 'types', list.length)} ${joinQuote(list)}`);
  if (user) data.push('user may not be set');
  if (role) data.push('role may not be set');
  return {
    reason: 'seLinuxOptions',
    detail: `${who.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`,
  };
}

const validSeccomp = (t: string | undefined) => t === 'Localhost' || t === 'RuntimeDefault';

function seccomp(spec: PodSpec, requireSet: boolean): Violation | undefined {
  const values: string[] = [];
  const podProfile = spec.securityContext?.seccompProfile;
  const podBad = podProfile !== undefined && !validSeccomp(podProfile.type);
  if (podBad) values.push(podProfile?.type ?? '');
  const podSet = podProfile !== undefined && !podBad;
  const implicit: string[] = [];
  const names = badContainers(spec, (sc, c) => {
    const p = sc?.seccompProfile;
    if (p === undefined) {
      if (!podSet) implicit.push(c.name);
      return false;
    }
    if (validSeccomp(p.type)) return false;
    values.push(p.type ?? '');
    return true;
  });
  const who = setters(podBad, names);
  if (who.length > 0)
    return {
      reason: 'seccompProfile',
      detail: `${who.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`,
    };
  if (requireSet && implicit.length > 0)
    return {
      reason: 'seccompProfile',
      detail: `pod or ${containers(implicit.length)} ${joinQuote(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
    };
  return undefined;
}

function sysctls(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const bad = (spec.securityContext?.sysctls ?? [])
    .map((s) => s.name)
    .filter((n) => !ALLOWED_SYSCTLS.has(n));
  return bad.length > 0 ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
}

function windowsHostProcess(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const names = badContainers(spec, (sc) => sc?.windowsOptions?.hostProcess === true);
  const who = setters(spec.securityContext?.windowsOptions?.hostProcess === true, names);
  if (who.length === 0) return undefined;
  return {
    reason: 'hostProcess',
    detail: `${who.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`,
  };
}

function allowPrivilegeEscalation(
  _a: Record<string, string>,
  spec: PodSpec,
): Violation | undefined {
  if (isWindows(spec)) return undefined;
  const names = badContainers(spec, (sc) => sc?.allowPrivilegeEscalation !== false);
  if (names.length === 0) return undefined;
  return {
    reason: 'allowPrivilegeEscalation != false',
    detail: `${containers(names.length)} ${joinQuote(names)} must set securityContext.allowPrivilegeEscalation=false`,
  };
}

function capabilitiesRestricted(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  if (isWindows(spec)) return undefined;
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const added: string[] = [];
  for (const c of allContainers(spec)) {
    const caps = c.securityContext?.capabilities;
    if (!caps) {
      missingDrop.push(c.name);
      continue;
    }
    if (!(caps.drop ?? []).includes('ALL')) missingDrop.push(c.name);
    const bad = (caps.add ?? []).filter((x) => x !== 'NET_BIND_SERVICE');
    if (bad.length > 0) {
      adding.push(c.name);
      added.push(...bad);
    }
  }
  const details: string[] = [];
  if (missingDrop.length > 0)
    details.push(
      `${containers(missingDrop.length)} ${joinQuote(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`,
    );
  if (adding.length > 0)
    details.push(
      `${containers(adding.length)} ${joinQuote(adding)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add`,
    );
  return details.length > 0
    ? { reason: 'unrestricted capabilities', detail: details.join('; ') }
    : undefined;
}

function restrictedVolumes(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  const names: string[] = [];
  const types: string[] = [];
  for (const v of spec.volumes ?? []) {
    const sources = Object.keys(v).filter((k) => k !== 'name');
    if (sources.some((s) => RESTRICTED_VOLUME_SOURCES.has(s))) continue;
    names.push(v.name);
    const source = sources[0];
    types.push(source === undefined ? 'unknown' : (VOLUME_TYPE_NAMES[source] ?? source));
  }
  if (names.length === 0) return undefined;
  const list = sortedSet(types);
  return {
    reason: 'restricted volume types',
    detail: `${plural('volume', 'volumes', names.length)} ${joinQuote(names)} ${plural('uses', 'use', names.length)} ${plural('restricted volume type', 'restricted volume types', list.length)} ${joinQuote(list)}`,
  };
}

function runAsNonRoot(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  if (userNamespaced(spec)) return undefined;
  const pod = spec.securityContext?.runAsNonRoot;
  const implicit: string[] = [];
  const names = badContainers(spec, (sc, c) => {
    if (sc?.runAsNonRoot === undefined) {
      if (pod !== true) implicit.push(c.name);
      return false;
    }
    return sc.runAsNonRoot === false;
  });
  const who = setters(pod === false, names);
  if (who.length > 0)
    return {
      reason: 'runAsNonRoot != true',
      detail: `${who.join(' and ')} must not set securityContext.runAsNonRoot=false`,
    };
  if (implicit.length > 0)
    return {
      reason: 'runAsNonRoot != true',
      detail: `pod or ${containers(implicit.length)} ${joinQuote(implicit)} must set securityContext.runAsNonRoot=true`,
    };
  return undefined;
}

function runAsUser(_a: Record<string, string>, spec: PodSpec): Violation | undefined {
  if (userNamespaced(spec)) return undefined;
  const names = badContainers(spec, (sc) => sc?.runAsUser === 0);
  const who = setters(spec.securityContext?.runAsUser === 0, names);
  return who.length > 0
    ? { reason: 'runAsUser=0', detail: `${who.join(' and ')} must not set runAsUser=0` }
    : undefined;
}

/** Sorted by id within each level (kube's order of reasons in a message). */
export const CHECKS: readonly PodSecurityCheck[] = [
  { id: 'appArmorProfile', level: 'baseline', since: 0, check: appArmor },
  { id: 'capabilities_baseline', level: 'baseline', since: 0, check: capabilitiesBaseline },
  { id: 'hostNamespaces', level: 'baseline', since: 0, check: hostNamespaces },
  { id: 'hostPathVolumes', level: 'baseline', since: 0, check: hostPathVolumes },
  { id: 'hostPorts', level: 'baseline', since: 0, check: hostPorts },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', since: 34, check: hostProbes },
  { id: 'privileged', level: 'baseline', since: 0, check: privileged },
  { id: 'procMount', level: 'baseline', since: 0, check: procMountBaseline },
  { id: 'seLinuxOptions', level: 'baseline', since: 0, check: seLinux },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    since: 0,
    check: (_a, s) => seccomp(s, false),
  },
  { id: 'sysctls', level: 'baseline', since: 0, check: sysctls },
  { id: 'windowsHostProcess', level: 'baseline', since: 0, check: windowsHostProcess },
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    since: 8,
    check: allowPrivilegeEscalation,
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    since: 22,
    overrides: ['capabilities_baseline'],
    check: capabilitiesRestricted,
  },
  {
    id: 'procMount_restricted',
    level: 'restricted',
    since: 35,
    overrides: ['procMount'],
    check: procMountStrict,
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    since: 0,
    overrides: ['hostPathVolumes'],
    check: restrictedVolumes,
  },
  { id: 'runAsNonRoot', level: 'restricted', since: 0, check: runAsNonRoot },
  { id: 'runAsUser', level: 'restricted', since: 23, check: runAsUser },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    since: 19,
    overrides: ['seccompProfile_baseline'],
    check: (_a, s) => (isWindows(s) ? undefined : seccomp(s, true)),
  },
];

/** The checks of a level at a 1.x minor, restricted ones replacing what they override. */
export function checksFor(level: Level, minor: number): PodSecurityCheck[] {
  if (level === 'privileged') return [];
  const active = CHECKS.filter(
    (c) => c.since <= minor && (level === 'restricted' || c.level === 'baseline'),
  );
  const overridden = new Set(active.flatMap((c) => c.overrides ?? []));
  return active.filter((c) => !overridden.has(c.id));
}
