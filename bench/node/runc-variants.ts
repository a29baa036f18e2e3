// The bundles runc-path.ts times against each other: the config.json the node agent writes for a
// bench Pod (oci-spec.ts, with its volumes, pod files, daemon mounts, netns, cgroup and seccomp)
// and copies of it with one part taken out, plus the `runc run` floor's bare bundle. Pure: each
// variant is a function of the agent's config, so a change to oci-spec.ts shows here too.

/** A config.json as a plain object. */
export type Config = Record<string, unknown>;

export interface Variant {
  name: string;
  /** The bundle's config.json from the agent's own. */
  config(ours: Config): Config;
  /** `runc run --keep` as the agent runs it. @default true */
  keep?: boolean;
  /** The same container as another row once it runs: not exec'd into. */
  runOnly?: boolean;
  /**
   * `fresh pod`: each run in a new Pod's cgroup (runc makes two levels in every hierarchy, as
   * for each Pod the agent starts); `made ahead`: the same, made before `runc run` is spawned.
   * Absent: one cgroupsPath per row, whose Pod level stays between runs.
   */
  cgroup?: 'fresh pod' | 'made ahead';
}

type Linux = Record<string, unknown> & { namespaces?: { type: string; path?: string }[] };
type Mount = { destination: string; type?: string; source?: string };

const clone = (c: Config): Config => structuredClone(c);
const linuxOf = (c: Config): Linux => (c['linux'] ?? {}) as Linux;
const mountsOf = (c: Config): Mount[] => (c['mounts'] ?? []) as Mount[];

/** A copy of `ours` with `edit` applied to it. */
function edited(edit: (c: Config, linux: Linux) => void): (ours: Config) => Config {
  return (ours) => {
    const c = clone(ours);
    edit(c, linuxOf(c));
    return c;
  };
}

const STANDARD = new Set(['/proc', '/dev', '/dev/pts', '/dev/shm', '/dev/mqueue', '/sys']);

/** The floor bundle of floors.ts on the same root (read-only root, /proc only, no cgroup set). */
export function floorConfig(ours: Config): Config {
  const root = (ours['root'] ?? {}) as { path?: string };
  return {
    ociVersion: '1.0.2',
    process: {
      terminal: false,
      user: { uid: 0, gid: 0 },
      args: (ours['process'] as { args?: string[] } | undefined)?.args ?? ['echo', 'hi'],
      env: ['PATH=/bin'],
      cwd: '/',
    },
    root: { path: root.path, readonly: true },
    mounts: [{ destination: '/proc', type: 'proc', source: 'proc' }],
    linux: { namespaces: ['pid', 'ipc', 'uts', 'mount', 'network'].map((type) => ({ type })) },
  };
}

export const VARIANTS: readonly Variant[] = [
  { name: 'floor bundle', config: floorConfig, keep: false },
  { name: 'ours', config: clone },
  { name: 'ours, no --keep', config: clone, keep: false, runOnly: true },
  { name: 'ours, a new Pod cgroup', config: clone, runOnly: true, cgroup: 'fresh pod' },
  { name: 'ours, a new Pod cgroup made ahead', config: clone, runOnly: true, cgroup: 'made ahead' },
  { name: 'ours − seccomp', config: edited((_, l) => delete l['seccomp']) },
  { name: 'ours − resources', config: edited((_, l) => delete l['resources']) },
  { name: 'ours − cgroupsPath', config: edited((_, l) => delete l['cgroupsPath']) },
  {
    name: 'ours − cgroup ns',
    config: edited((_, l) => (l.namespaces = l.namespaces?.filter((n) => n.type !== 'cgroup'))),
  },
  {
    name: 'ours − netns path (new netns)',
    config: edited((_, l) => (l.namespaces = l.namespaces?.map((n) => ({ type: n.type })))),
  },
  {
    name: 'ours − /sys/fs/cgroup mount',
    config: edited((c) => (c['mounts'] = mountsOf(c).filter((m) => m.type !== 'cgroup'))),
  },
  {
    name: 'ours − bind mounts',
    config: edited((c) => (c['mounts'] = mountsOf(c).filter((m) => m.type !== 'bind'))),
  },
  {
    name: 'ours − /.sbx mounts',
    config: edited(
      (c) => (c['mounts'] = mountsOf(c).filter((m) => !m.destination.startsWith('/.sbx'))),
    ),
  },
  {
    name: 'ours − masked/readonly paths',
    config: edited((_, l) => {
      delete l['maskedPaths'];
      delete l['readonlyPaths'];
    }),
  },
  {
    name: 'ours − capabilities',
    config: edited((c) => delete (c['process'] as Config)['capabilities']),
  },
  {
    name: 'ours, standard mounts only',
    config: edited((c) => (c['mounts'] = mountsOf(c).filter((m) => STANDARD.has(m.destination)))),
  },
];
