import { describe, expect, it } from 'vitest';
import type { Pod } from '@agent-sandbox/kube-types';
import {
  UID_HELPER_PATH,
  bwrapExecArgs,
  bwrapStartArgs,
  parseBwrapSpec,
  type BwrapArgsOptions,
  type BwrapSpec,
} from './bwrap-args.ts';
import { buildOciSpec } from './oci-spec.ts';

const pod: Pod = {
  metadata: { name: 'p', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '60'] }] },
};

/** The spec runc would get for `pod`, as the bubblewrap runtime reads it from config.json. */
function specFor(p: Pod, readOnlyRoot = false): BwrapSpec {
  const container = p.spec?.containers[0] ?? { name: 'c' };
  return parseBwrapSpec(
    JSON.parse(
      JSON.stringify(
        buildOciSpec({
          pod: p,
          container: readOnlyRoot
            ? { ...container, securityContext: { readOnlyRootFilesystem: true } }
            : container,
          image: { config: { Env: ['PATH=/bin'] } },
          rootfs: '/data/pods/u1/fs/merged',
          netnsPath: '/run/netns/pod-u1',
          cgroupsPath: '/asb/podu1/c-0',
          hostname: 'p',
          env: [{ name: 'A', value: 'b=c' }],
          mounts: [{ destination: '/data', source: '/host/claims/x', readOnly: true }],
        }),
      ),
    ),
  );
}

const kinds: Record<string, 'file' | 'dir'> = {
  '/proc/sys': 'dir',
  '/proc/keys': 'file',
  '/proc/acpi': 'dir',
};
const opts: BwrapArgsOptions = { pathKind: (p) => kinds[p], uidHelper: '/bin/busybox' };

/** The value after each occurrence of `flag`. */
const after = (args: string[], flag: string) =>
  args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));

describe('bwrapStartArgs', () => {
  it('unshares every namespace but the Pod network (joined by nsenter) and runs the workload as PID 1', () => {
    const args = bwrapStartArgs(specFor(pod), opts);
    expect(args.slice(0, 8)).toEqual([
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup',
      '--as-pid-1',
      '--die-with-parent',
      '--new-session',
      '--json-status-fd',
    ]);
    expect(args).not.toContain('--unshare-net');
    expect(args).not.toContain('--unshare-user');
    expect(args.slice(args.indexOf('--') + 1)).toEqual(['sleep', '60']);
    expect(after(args, '--hostname')).toEqual(['p']);
    expect(after(args, '--chdir')).toEqual(['/']);
  });

  it('binds the prepared root and volumes, maps kernel mounts, covers /proc like runc', () => {
    const argv = bwrapStartArgs(specFor(pod), opts);
    const args = argv.join(' ');
    expect(args).toContain('--bind /data/pods/u1/fs/merged / --proc /proc --dev /dev');
    expect(args).toContain('--perms 1777 --size 67108864 --tmpfs /dev/shm');
    expect(args).toContain('--mqueue /dev/mqueue');
    expect(args).toContain('--ro-bind /host/claims/x /data');
    expect(args).toContain('--ro-bind /proc/sys /proc/sys');
    expect(args).toContain('--dev-bind /dev/null /proc/keys');
    expect(args).toContain('--perms 0555 --tmpfs /proc/acpi --remount-ro /proc/acpi');
    expect(args).not.toMatch(/sysfs|\/sys\/fs\/cgroup|timer_stats/); // absent here: not masked
    expect(after(argv, '--remount-ro')).toEqual(['/proc/acpi']); // the root stays writable
  });

  it("makes a mount point's missing parents 0755 as runc does (bwrap alone makes them 0700)", () => {
    const spec = specFor(pod);
    spec.mounts.push(
      { destination: '/run/agent-sandbox', type: 'bind', source: '/n/exec', options: ['ro'] },
      { destination: '/run/x/y', type: 'bind', source: '/n/y' },
    );
    const args = bwrapStartArgs(spec, opts).join(' ');
    expect(args).toContain(
      '--perms 0755 --dir /run --ro-bind /n/exec /run/agent-sandbox --perms 0755 --dir /run/x --bind /n/y /run/x/y',
    );
  });

  it('drops every capability but the default set and passes only the spec environment', () => {
    const args = bwrapStartArgs(specFor(pod), opts);
    expect(after(args, '--cap-drop')).toEqual(['ALL']);
    expect(after(args, '--cap-add')).toContain('CAP_NET_BIND_SERVICE');
    expect(after(args, '--cap-add')).not.toContain('CAP_SYS_ADMIN');
    expect(args).toContain('--clearenv');
    expect(args.join(' ')).toContain('--setenv PATH /bin --setenv HOSTNAME p --setenv A b=c');
  });

  it('loads the seccomp filter from the fd the caller opened, before the workload', () => {
    const args = bwrapStartArgs(specFor(pod), { ...opts, seccompFd: 5 });
    expect(after(args, '--seccomp')).toEqual(['5']);
    expect(args.indexOf('--seccomp')).toBeLessThan(args.indexOf('--'));
    expect(bwrapStartArgs(specFor(pod), opts)).not.toContain('--seccomp');
  });

  it('turns the root read-only after the mount points exist (readOnlyRootFilesystem)', () => {
    const args = bwrapStartArgs(specFor(pod, true), opts);
    expect(args.slice(args.indexOf('--cap-drop') - 2, args.indexOf('--cap-drop'))).toEqual([
      '--remount-ro',
      '/',
    ]);
  });

  it('switches a non-root user through the static busybox, with the caps that takes', () => {
    const p: Pod = {
      ...pod,
      spec: {
        ...pod.spec,
        containers: pod.spec?.containers ?? [],
        securityContext: { runAsUser: 7, runAsGroup: 8 },
      },
    };
    const args = bwrapStartArgs(specFor(p), opts);
    expect(args.join(' ')).toContain(`--ro-bind /bin/busybox ${UID_HELPER_PATH}`);
    expect(after(args, '--cap-add')).toEqual(expect.arrayContaining(['CAP_SETUID', 'CAP_SETGID']));
    expect(args.slice(args.indexOf('--') + 1)).toEqual([
      UID_HELPER_PATH,
      'nsenter',
      '-S',
      '7',
      '-G',
      '8',
      '--',
      'sleep',
      '60',
    ]);
    expect(() => bwrapStartArgs(specFor(p), { pathKind: () => undefined })).toThrow(
      'user 7:8: bubblewrap needs a static busybox to run as a non-root user (apt-get install busybox-static), or run as uid 0',
    );
  });

  it('refuses what it cannot give, naming the field and the fix', () => {
    const groups: Pod = {
      ...pod,
      spec: {
        ...pod.spec,
        containers: pod.spec?.containers ?? [],
        securityContext: { supplementalGroups: [5] },
      },
    };
    expect(() => bwrapStartArgs(specFor(groups), opts)).toThrow(
      'spec.securityContext.supplementalGroups: not supported under bubblewrap; remove it or use the runc RuntimeClass',
    );
    const overlay = { ...specFor(pod), mounts: [{ destination: '/x', type: 'overlay' }] };
    expect(() => bwrapStartArgs(overlay, opts)).toThrow(
      'config.json mounts[/x].type: "overlay" is not supported under bubblewrap (bind, tmpfs, proc, mqueue)',
    );
    expect(() => parseBwrapSpec({ process: { args: [] } })).toThrow(
      'config.json process.args: must be a non-empty list',
    );
  });

  it('isolates the network itself when the Pod has no namespace path', () => {
    const spec = specFor(pod);
    const noNet = { ...spec, linux: { ...spec.linux, namespaces: [{ type: 'pid' }] } };
    expect(bwrapStartArgs(noNet, opts)).toContain('--unshare-net');
  });
});

describe('bwrapExecArgs', () => {
  it('rebuilds the same view in the entered namespaces, unsharing nothing', () => {
    const spec = specFor(pod);
    const start = bwrapStartArgs(spec, opts);
    const exec = bwrapExecArgs(spec, ['ls', '/'], { tty: false }, opts);
    expect(exec.filter((a) => a.startsWith('--unshare') || a === '--as-pid-1')).toEqual([]);
    const view = (a: string[]) => a.slice(a.indexOf('--bind'), a.indexOf('--'));
    expect(view(exec)).toEqual(view(start));
    expect(exec.slice(exec.indexOf('--') + 1)).toEqual(['ls', '/']);
    expect(bwrapExecArgs(spec, ['sh'], { tty: true }, opts)).not.toContain('--new-session');
    expect(exec).not.toContain('--die-with-parent'); // racy under --pidns (bwrap-runtime.int)
  });

  it("sets an exec's own cwd and env over the container's, and refuses malformed ones", () => {
    const spec = specFor(pod);
    const pairs = (a: string[]) =>
      a.flatMap((x, i) => (x === '--setenv' ? [`${a[i + 1]}=${a[i + 2]}`] : []));
    const plain = bwrapExecArgs(spec, ['env'], { tty: false }, opts);
    expect(plain[plain.indexOf('--chdir') + 1]).toBe(spec.process.cwd);
    expect(pairs(plain)).toEqual(spec.process.env);
    const own = bwrapExecArgs(
      spec,
      ['env'],
      { tty: false, cwd: '/tmp', env: { A: 'x', NEW: '1' } },
      opts,
    );
    expect(own[own.indexOf('--chdir') + 1]).toBe('/tmp');
    expect(pairs(own)).toEqual([
      ...spec.process.env.filter((kv) => !kv.startsWith('A=')),
      'A=x',
      'NEW=1',
    ]);
    expect(() => bwrapExecArgs(spec, ['env'], { tty: false, cwd: 'tmp' }, opts)).toThrow(
      /exec\.cwd/,
    );
    expect(() => bwrapExecArgs(spec, ['env'], { tty: false, env: { 'A=B': 'x' } }, opts)).toThrow(
      /exec\.env: "A=B"/,
    );
  });
});
