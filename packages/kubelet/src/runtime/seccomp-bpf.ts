// The RuntimeDefault seccomp profile (seccomp-profile.ts, OCI JSON) compiled to the classic BPF
// program the kernel loads, for runtimes that take only compiled filters (bwrap --seccomp FD,
// ADR 0034). Pure. x86_64 only: any other architecture's syscalls, the x32 ABI included, are
// refused, so `int 0x80` cannot step around the filter.
import { InvalidArgumentError } from '../errors.ts';

/** x86_64 numbers of the syscalls the profile names (asm/unistd_64.h); absent: not on x86_64. */
export const X86_64_SYSCALLS: Readonly<Record<string, number>> = {
  _sysctl: 156,
  acct: 163,
  add_key: 248,
  bpf: 321,
  clock_adjtime: 305,
  clock_settime: 227,
  create_module: 174,
  delete_module: 176,
  finit_module: 313,
  fsconfig: 431,
  fsmount: 432,
  fsopen: 430,
  fspick: 433,
  get_kernel_syms: 177,
  get_mempolicy: 239,
  init_module: 175,
  ioperm: 173,
  iopl: 172,
  kcmp: 312,
  kexec_file_load: 320,
  kexec_load: 246,
  keyctl: 250,
  lookup_dcookie: 212,
  mbind: 237,
  mount: 165,
  move_mount: 429,
  move_pages: 279,
  name_to_handle_at: 303,
  nfsservctl: 180,
  open_by_handle_at: 304,
  open_tree: 428,
  perf_event_open: 298,
  pivot_root: 155,
  process_vm_readv: 310,
  process_vm_writev: 311,
  query_module: 178,
  quotactl: 179,
  reboot: 169,
  request_key: 249,
  set_mempolicy: 238,
  setns: 308,
  settimeofday: 164,
  swapoff: 168,
  swapon: 167,
  sysfs: 139,
  umount2: 166,
  unshare: 272,
  uselib: 134,
  userfaultfd: 323,
  ustat: 136,
};

export interface SeccompProfile {
  defaultAction: string;
  syscalls?: readonly { names: readonly string[]; action: string; errnoRet?: number }[];
}

// linux/filter.h, linux/seccomp.h, linux/audit.h
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff_0000;
const RET_ERRNO = 0x0005_0000;
const AUDIT_ARCH_X86_64 = 0xc000_003e;
const X32_SYSCALL_BIT = 0x4000_0000;
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const EPERM = 1;

type Insn = [code: number, jt: number, jf: number, k: number];

/**
 * The program for a profile that allows by default and answers listed syscalls with an errno (the
 * only shape the node's profile has); any other shape is refused naming the field.
 */
export function compileSeccomp(profile: SeccompProfile): Buffer {
  if (profile.defaultAction !== 'SCMP_ACT_ALLOW')
    throw new InvalidArgumentError(
      `seccomp defaultAction ${profile.defaultAction}: only SCMP_ACT_ALLOW compiles for bubblewrap`,
    );
  const denied = new Map<number, number>();
  for (const rule of profile.syscalls ?? []) {
    if (rule.action !== 'SCMP_ACT_ERRNO')
      throw new InvalidArgumentError(
        `seccomp syscalls action ${rule.action}: only SCMP_ACT_ERRNO compiles for bubblewrap`,
      );
    for (const name of rule.names) {
      const nr = X86_64_SYSCALLS[name];
      if (nr !== undefined) denied.set(nr, rule.errnoRet ?? EPERM);
    }
  }
  const rules = [...denied];
  // Layout: arch check, nr load, x32 check, one JEQ per denied syscall (each jumps to its own
  // RET), ALLOW, then the RETs; the arch and x32 checks jump to the last RET (EPERM).
  const n = rules.length;
  const program: Insn[] = [
    [LD_W_ABS, 0, 0, OFFSET_ARCH],
    [JEQ_K, 0, 2 * n + 3, AUDIT_ARCH_X86_64], // else → the trailing EPERM
    [LD_W_ABS, 0, 0, OFFSET_NR],
    [JGE_K, 2 * n + 1, 0, X32_SYSCALL_BIT],
    ...rules.map(([nr]): Insn => [JEQ_K, n, 0, nr]), // → its RET, n instructions on
    [RET_K, 0, 0, RET_ALLOW],
    ...rules.map(([, errno]): Insn => [RET_K, 0, 0, RET_ERRNO | (errno & 0xffff)]),
    [RET_K, 0, 0, RET_ERRNO | EPERM],
  ];
  const out = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    if (jt > 255 || jf > 255) throw new InvalidArgumentError('seccomp profile: too many syscalls');
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}
