// The OCI runtime config.json of one container, generated purely from the Pod spec, the image
// config and what the node prepared (rootfs, netns, volumes) — kubelet-and-oci §4.4, §6.2, §7.
import type { Container, Pod } from '@agent-sandbox/kube-types';
import { InvalidArgumentError } from '../errors.ts';
import type { ImageConfig } from '../images/oci-types.ts';
import { parseQuantity } from './quantity.ts';
import { DEFAULT_SECCOMP } from './seccomp-profile.ts';

export interface BundleMount {
  destination: string;
  source: string;
  readOnly: boolean;
  /** `bind` (default) or a filesystem type such as `tmpfs`. */
  type?: string;
  options?: string[];
}

export interface OciSpecInput {
  pod: Pod;
  container: Container;
  image: ImageConfig;
  /** Absolute path of the container's writable root (an overlay mount or a copy). */
  rootfs: string;
  netnsPath: string;
  /** cgroupfs path, e.g. `/agent-sandbox/pod<uid>/<name>`. */
  cgroupsPath: string;
  hostname: string;
  /** Resolved env/envFrom entries (after image Env), in order; later names win. */
  env: readonly { name: string; value: string }[];
  /** Volume mounts, /etc/hosts, resolv.conf, the termination-log file. */
  mounts: readonly BundleMount[];
  /** Hook for node-provided read-only mounts (e.g. the in-sandbox daemon and its libraries). */
  extraReadOnlyMounts?: readonly { destination: string; source: string }[];
  /** uid/gid from the image's /etc/passwd when its User is a name. */
  resolveUser?: (user: string) => { uid: number; gid: number } | undefined;
  /** Per-container pids limit (pids.max). @default 4096 */
  pidsLimit?: number;
  nodeMemoryBytes?: number;
}

export const DEFAULT_CAPABILITIES = [
  'CAP_CHOWN',
  'CAP_DAC_OVERRIDE',
  'CAP_FSETID',
  'CAP_FOWNER',
  'CAP_MKNOD',
  'CAP_NET_RAW',
  'CAP_SETGID',
  'CAP_SETUID',
  'CAP_SETFCAP',
  'CAP_SETPCAP',
  'CAP_NET_BIND_SERVICE',
  'CAP_SYS_CHROOT',
  'CAP_KILL',
  'CAP_AUDIT_WRITE',
];

/** `$(NAME)` expansion of command/args (§4.4): `$$` escapes, unknown names stay literal. */
export function expandVars(s: string, env: ReadonlyMap<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) =>
    m === '$$' ? '$' : (env.get(name ?? '') ?? m),
  );
}

/** argv from command/args over the image's Entrypoint/Cmd (§4.4 table). */
export function processArgs(
  c: Container,
  image: ImageConfig,
  env: ReadonlyMap<string, string>,
): string[] {
  const entry = image.config?.Entrypoint ?? [];
  const cmd = image.config?.Cmd ?? [];
  const argv = c.command ? [...c.command, ...(c.args ?? [])] : [...entry, ...(c.args ?? cmd)];
  if (argv.length === 0)
    throw new InvalidArgumentError(
      `container ${c.name}: no command given and the image has no Entrypoint or Cmd`,
    );
  return argv.map((a) => expandVars(a, env));
}

function capabilities(c: Container): string[] {
  const sc = c.securityContext?.capabilities;
  const norm = (x: string) => (x.startsWith('CAP_') ? x : `CAP_${x}`).toUpperCase();
  const drop = new Set((sc?.drop ?? []).map(norm));
  let caps = drop.has('CAP_ALL') ? [] : DEFAULT_CAPABILITIES.filter((x) => !drop.has(x));
  for (const a of (sc?.add ?? []).map(norm))
    if (a !== 'CAP_ALL' && !caps.includes(a)) caps = [...caps, a];
  return caps;
}

function user(input: OciSpecInput): { uid: number; gid: number } {
  const sc = { ...input.pod.spec?.securityContext, ...input.container.securityContext };
  let uid = 0;
  let gid = 0;
  const imageUser = input.image.config?.User ?? '';
  if (imageUser) {
    const [u = '', g] = imageUser.split(':');
    const named = /^\d+$/.test(u) ? undefined : input.resolveUser?.(u);
    if (!/^\d+$/.test(u) && !named)
      throw new InvalidArgumentError(`image user "${u}" is not in the image's /etc/passwd`);
    uid = named ? named.uid : Number(u);
    gid = g !== undefined && /^\d+$/.test(g) ? Number(g) : (named?.gid ?? 0);
  }
  if (sc.runAsUser !== undefined) uid = sc.runAsUser;
  if (sc.runAsGroup !== undefined) gid = sc.runAsGroup;
  return { uid, gid };
}

function resources(input: OciSpecInput): Record<string, unknown> {
  const { container: c } = input;
  const limits = c.resources?.limits ?? {};
  const requests = c.resources?.requests ?? {};
  const field = (k: string, kind: string) => `spec.containers[${c.name}].resources.${kind}.${k}`;
  const out: Record<string, unknown> = { pids: { limit: input.pidsLimit ?? 4096 } };
  if (limits['memory'] !== undefined) {
    const limit = Math.floor(parseQuantity(limits['memory'], field('memory', 'limits')));
    out['memory'] = { limit, swap: limit }; // no swap
  }
  const cpuReq = requests['cpu'] ?? limits['cpu'];
  const cpu: Record<string, number> = {};
  if (cpuReq !== undefined) {
    const milli = parseQuantity(cpuReq, field('cpu', 'requests')) * 1000;
    cpu['shares'] = Math.min(262144, Math.max(2, Math.floor((milli * 1024) / 1000)));
  }
  if (limits['cpu'] !== undefined) {
    const milli = parseQuantity(limits['cpu'], field('cpu', 'limits')) * 1000;
    cpu['period'] = 100_000;
    cpu['quota'] = Math.max(1000, Math.floor((milli * 100_000) / 1000));
  }
  if (Object.keys(cpu).length > 0) out['cpu'] = cpu;
  out['devices'] = [{ allow: false, access: 'rwm' }];
  return out;
}

function oomScoreAdj(pod: Pod, nodeMemoryBytes: number): number {
  const qos = pod.status?.qosClass;
  if (qos === 'Guaranteed') return -997;
  if (qos === 'BestEffort' || qos === undefined) return 1000;
  let req = 0;
  for (const c of pod.spec?.containers ?? []) {
    const m = c.resources?.requests?.['memory'];
    if (m !== undefined)
      req += parseQuantity(m, `spec.containers[${c.name}].resources.requests.memory`);
  }
  return Math.min(999, Math.max(3, Math.round(1000 - (1000 * req) / nodeMemoryBytes)));
}

const STANDARD_MOUNTS = [
  { destination: '/proc', type: 'proc', source: 'proc', options: ['nosuid', 'noexec', 'nodev'] },
  {
    destination: '/dev',
    type: 'tmpfs',
    source: 'tmpfs',
    options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'],
  },
  {
    destination: '/dev/pts',
    type: 'devpts',
    source: 'devpts',
    options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'],
  },
  {
    destination: '/dev/shm',
    type: 'tmpfs',
    source: 'shm',
    options: ['nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k'],
  },
  {
    destination: '/dev/mqueue',
    type: 'mqueue',
    source: 'mqueue',
    options: ['nosuid', 'noexec', 'nodev'],
  },
  {
    destination: '/sys',
    type: 'sysfs',
    source: 'sysfs',
    options: ['nosuid', 'noexec', 'nodev', 'ro'],
  },
  {
    destination: '/sys/fs/cgroup',
    type: 'cgroup',
    source: 'cgroup',
    options: ['nosuid', 'noexec', 'nodev', 'relatime', 'ro'],
  },
];

export function buildOciSpec(input: OciSpecInput): Record<string, unknown> {
  const { container: c, pod } = input;
  const envMap = new Map<string, string>();
  for (const kv of input.image.config?.Env ?? []) {
    const i = kv.indexOf('=');
    if (i > 0) envMap.set(kv.slice(0, i), kv.slice(i + 1));
  }
  envMap.set('HOSTNAME', input.hostname);
  for (const e of input.env) envMap.set(e.name, e.value);
  const args = processArgs(c, input.image, envMap);
  const caps = capabilities(c);
  const sc = c.securityContext ?? {};
  const { uid, gid } = user(input);
  const groups = pod.spec?.securityContext?.supplementalGroups ?? [];
  const mounts = [
    ...STANDARD_MOUNTS,
    ...input.mounts.map((m) => ({
      destination: m.destination,
      type: m.type ?? 'bind',
      source: m.source,
      options: m.options ?? ['rbind', 'rprivate', m.readOnly ? 'ro' : 'rw'],
    })),
    ...(input.extraReadOnlyMounts ?? []).map((m) => ({
      destination: m.destination,
      type: 'bind',
      source: m.source,
      options: ['rbind', 'rprivate', 'ro'],
    })),
  ];
  return {
    ociVersion: '1.0.2',
    hostname: input.hostname,
    process: {
      terminal: c.tty === true,
      user: { uid, gid, ...(groups.length ? { additionalGids: groups } : {}) },
      args,
      env: [...envMap].map(([k, v]) => `${k}=${v}`),
      cwd: c.workingDir || input.image.config?.WorkingDir || '/',
      capabilities: {
        bounding: caps,
        effective: caps,
        permitted: caps,
        inheritable: [],
        ambient: [],
      },
      noNewPrivileges: sc.allowPrivilegeEscalation === false,
      oomScoreAdj: oomScoreAdj(pod, input.nodeMemoryBytes ?? 8 * 2 ** 30),
    },
    root: { path: input.rootfs, readonly: sc.readOnlyRootFilesystem === true },
    mounts,
    linux: {
      namespaces: [
        { type: 'pid' },
        { type: 'ipc' },
        { type: 'uts' },
        { type: 'mount' },
        { type: 'cgroup' },
        { type: 'network', path: input.netnsPath },
      ],
      cgroupsPath: input.cgroupsPath,
      resources: resources(input),
      seccomp: DEFAULT_SECCOMP,
      maskedPaths: [
        '/proc/acpi',
        '/proc/asound',
        '/proc/kcore',
        '/proc/keys',
        '/proc/latency_stats',
        '/proc/timer_list',
        '/proc/timer_stats',
        '/proc/sched_debug',
        '/proc/scsi',
        '/sys/firmware',
      ],
      readonlyPaths: ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'],
    },
  };
}
