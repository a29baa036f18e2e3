// What `npm start` needs from the machine, as data: each host tool the node agent and the demo
// image use, the Debian package that has it, and whether `up` can run without it. planSetup()
// is pure (which tools are missing → what to install or tell); ensureSystemPackages() does the
// one apt-get run, through an injected command runner.

export interface HostTool {
  /** The executable looked up on PATH. */
  binary: string;
  /** The Debian package that provides it. */
  debianPackage: string;
  /** What it is for, in the words the setup prints. */
  purpose: string;
  /** `up` runs without it, with less (gVisor, the demo image). */
  optional: boolean;
}

export const HOST_TOOLS: readonly HostTool[] = [
  { binary: 'runc', debianPackage: 'runc', purpose: 'runs sandbox containers', optional: false },
  {
    binary: 'ip',
    debianPackage: 'iproute2',
    purpose: 'creates each Pod network namespace',
    optional: false,
  },
  {
    binary: 'nft',
    debianPackage: 'nftables',
    purpose: 'enforces NetworkPolicy on the pod bridge',
    optional: false,
  },
  {
    binary: 'runsc',
    debianPackage: 'runsc',
    purpose: 'gVisor, the RuntimeClass gvisor',
    optional: true,
  },
  {
    binary: 'bwrap',
    debianPackage: 'bubblewrap',
    purpose: 'the RuntimeClass bubblewrap, the default where runc cannot run',
    optional: true,
  },
  {
    binary: 'mmdebstrap',
    debianPackage: 'mmdebstrap',
    purpose: 'builds the demo image from Debian packages',
    optional: true,
  },
];

export type SetupPlan =
  | { kind: 'ready' }
  /** Root with apt: install these packages. */
  | { kind: 'install'; packages: string[]; tools: HostTool[] }
  /** Cannot install: the message says what is missing and how to get it. */
  | { kind: 'missing'; required: HostTool[]; optional: HostTool[]; hint: string };

/** Pure: what to do about the tools `has` says are absent. */
export function planSetup(
  has: (binary: string) => boolean,
  machine: { isRoot: boolean; hasApt: boolean },
  tools: readonly HostTool[] = HOST_TOOLS,
): SetupPlan {
  const absent = tools.filter((t) => !has(t.binary));
  if (absent.length === 0) return { kind: 'ready' };
  const packages = [...new Set(absent.map((t) => t.debianPackage))];
  if (machine.isRoot && machine.hasApt) return { kind: 'install', packages, tools: absent };
  const hint = machine.hasApt
    ? `as root: apt-get install -y ${packages.join(' ')}`
    : `install ${packages.join(', ')} with this system's package manager (Debian package names)`;
  return {
    kind: 'missing',
    required: absent.filter((t) => !t.optional),
    optional: absent.filter((t) => t.optional),
    hint,
  };
}

/**
 * Runs a host command to completion (`env` is added to the process's environment); code 127
 * when the binary is missing. `onLine` sees each line of stdout and stderr as it comes.
 */
export type RunHostCommand = (
  file: string,
  args: readonly string[],
  options?: { env?: Record<string, string>; onLine?: (line: string) => void },
) => Promise<{ code: number; output: string }>;

export function describeTools(tools: readonly HostTool[]): string {
  return tools.map((t) => `${t.binary} (${t.debianPackage}: ${t.purpose})`).join(', ');
}

/**
 * Installs what `plan` says with apt-get (update once, then install), reporting each step.
 * `ok` is false when apt-get failed; `output` is what it printed.
 */
export async function installPackages(
  plan: Extract<SetupPlan, { kind: 'install' }>,
  run: RunHostCommand,
  report: (line: string) => void,
): Promise<{ ok: boolean; output: string }> {
  report(
    `setup: installing ${plan.packages.join(' ')} with apt-get, for ${describeTools(plan.tools)}`,
  );
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const update = await run('apt-get', ['update', '-qq'], { env });
  if (update.code !== 0) return { ok: false, output: update.output };
  const install = await run(
    'apt-get',
    ['install', '-y', '-qq', '--no-install-recommends', ...plan.packages],
    { env, onLine: (l) => (l.startsWith('Setting up ') ? report(`setup: ${l}`) : undefined) },
  );
  return { ok: install.code === 0, output: install.output };
}
