import { describe, expect, it } from 'vitest';
import { X86_64_SYSCALLS, compileSeccomp } from './seccomp-bpf.ts';
import { DEFAULT_SECCOMP } from './seccomp-profile.ts';

const AUDIT_ARCH_X86_64 = 0xc000_003e;
const AUDIT_ARCH_I386 = 0x4000_0003;
const ALLOW = 0x7fff_0000;
const EPERM = 0x0005_0001;

/** Runs a classic BPF program over seccomp_data {nr, arch}, as the kernel would (LD/JEQ/JGE/RET). */
function run(program: Buffer, arch: number, nr: number): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch, 4);
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const [jt, jf, k] = [
      program[pc * 8 + 2] ?? 0,
      program[pc * 8 + 3] ?? 0,
      program.readUInt32LE(pc * 8 + 4),
    ];
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code} at ${pc}`);
  }
  throw new Error('fell off the end of the program');
}

describe('compileSeccomp', () => {
  const program = compileSeccomp(DEFAULT_SECCOMP);

  it('refuses every listed syscall with EPERM and allows the rest (x86_64)', () => {
    for (const name of DEFAULT_SECCOMP.syscalls[0].names) {
      const nr = X86_64_SYSCALLS[name];
      if (nr !== undefined)
        expect([name, run(program, AUDIT_ARCH_X86_64, nr)]).toEqual([name, EPERM]);
    }
    for (const nr of [0, 1, 56, 57, 59, 231, 435])
      // read, write, clone, fork, execve, exit_group, clone3
      expect(run(program, AUDIT_ARCH_X86_64, nr)).toBe(ALLOW);
  });

  it('refuses the x32 ABI and other architectures, so int 0x80 cannot bypass it', () => {
    expect(run(program, AUDIT_ARCH_X86_64, 0x4000_0000 + 272)).toBe(EPERM);
    expect(run(program, AUDIT_ARCH_X86_64, 0x4000_0000)).toBe(EPERM);
    expect(run(program, AUDIT_ARCH_I386, 3)).toBe(EPERM);
  });

  it('knows every listed syscall that exists on x86_64', () => {
    const unknown = DEFAULT_SECCOMP.syscalls[0].names.filter(
      (n) => X86_64_SYSCALLS[n] === undefined,
    );
    expect(unknown).toEqual(['umount', 'vm86', 'vm86old']); // i386-only names
  });

  it('refuses profiles of another shape, naming the field', () => {
    expect(() => compileSeccomp({ defaultAction: 'SCMP_ACT_ERRNO' })).toThrow(
      'seccomp defaultAction SCMP_ACT_ERRNO: only SCMP_ACT_ALLOW compiles for bubblewrap',
    );
    expect(() =>
      compileSeccomp({
        defaultAction: 'SCMP_ACT_ALLOW',
        syscalls: [{ names: ['mount'], action: 'SCMP_ACT_KILL' }],
      }),
    ).toThrow('seccomp syscalls action SCMP_ACT_KILL: only SCMP_ACT_ERRNO compiles for bubblewrap');
  });
});
