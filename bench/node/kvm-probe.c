// Can this host's /dev/kvm run gVisor's KVM platform? Three checks, each on a fresh VM with one
// vCPU in 64-bit mode (bench/README.md "gVisor's KVM platform on this host"):
//   1. a 4 KiB, a 2 MiB and a 1 GiB page at a high guest-physical address, as gVisor's ring 0
//      maps host memory (its page tables use 1 GiB pages wherever a region allows);
//   2. how fast guest ring-0 code runs against guest ring-3 code (a dec/jnz loop).
// Build and run as root: gcc -O1 -o /tmp/kvm-probe bench/node/kvm-probe.c && /tmp/kvm-probe
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define LOW_SIZE 0x400000ul
#define HIGH_GPA 0xc040000000ull
#define HIGH_VA 0x8000000000ull

// KVM_GET_SUPPORTED_CPUID, given to every vCPU (as gVisor does): without it the guest's
// physical address width is 36 bits and HIGH_GPA would be out of range.
static struct {
  struct kvm_cpuid2 c;
  struct kvm_cpuid_entry2 e[128];
} cpuid = {.c.nent = 128};

struct vm {
  int kvm, fd, vcpu;
  uint8_t *low;
  struct kvm_run *run;
};

static void die(const char *what) {
  perror(what);
  exit(1);
}

static void on_alarm(int s) { (void)s; } // KVM_RUN returns EINTR: a guest that never exits

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void map(struct vm *v, int slot, uint64_t gpa, void *host, size_t size) {
  struct kvm_userspace_memory_region r = {
      .slot = slot, .guest_phys_addr = gpa, .memory_size = size, .userspace_addr = (uint64_t)host};
  if (ioctl(v->fd, KVM_SET_USER_MEMORY_REGION, &r) < 0) die("KVM_SET_USER_MEMORY_REGION");
}

// A VM whose low 4 MiB hold code at 0x1000 and page tables at 0x2000-0x7fff (identity map of
// the first 2 MiB; `user` makes it and the CPU state ring 3).
static void vm_open(struct vm *v, const uint8_t *code, size_t len, int user) {
  v->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (v->kvm < 0) die("open /dev/kvm");
  v->fd = ioctl(v->kvm, KVM_CREATE_VM, 0);
  if (v->fd < 0) die("KVM_CREATE_VM");
  v->low = mmap(NULL, LOW_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  map(v, 0, 0, v->low, LOW_SIZE);
  memcpy(v->low + 0x1000, code, len);
  uint64_t *pml4 = (uint64_t *)(v->low + 0x2000), u = user ? 4 : 0;
  pml4[0] = 0x3000 | 3 | u;
  ((uint64_t *)(v->low + 0x3000))[0] = 0x4000 | 3 | u;
  ((uint64_t *)(v->low + 0x4000))[0] = 0x83 | u;
  v->vcpu = ioctl(v->fd, KVM_CREATE_VCPU, 0);
  if (v->vcpu < 0) die("KVM_CREATE_VCPU");
  if (ioctl(v->vcpu, KVM_SET_CPUID2, &cpuid) < 0) die("KVM_SET_CPUID2");
  v->run = mmap(NULL, ioctl(v->kvm, KVM_GET_VCPU_MMAP_SIZE, 0), PROT_READ | PROT_WRITE, MAP_SHARED,
                v->vcpu, 0);
  struct kvm_sregs s;
  if (ioctl(v->vcpu, KVM_GET_SREGS, &s) < 0) die("KVM_GET_SREGS");
  s.cr3 = 0x2000, s.cr4 = 1 << 5, s.cr0 = 0x80050033, s.efer = 0x500;
  struct kvm_segment seg = {.limit = 0xffffffff, .present = 1, .type = 11, .s = 1, .l = 1, .g = 1};
  seg.dpl = user ? 3 : 0, seg.selector = user ? 8 | 3 : 8;
  s.cs = seg;
  seg.type = 3, seg.selector = user ? 16 | 3 : 16, seg.l = 0, seg.db = 1;
  s.ds = s.es = s.fs = s.gs = s.ss = seg;
  if (ioctl(v->vcpu, KVM_SET_SREGS, &s) < 0) die("KVM_SET_SREGS");
  struct kvm_regs regs = {.rip = 0x1000, .rflags = user ? 0x3002 : 2, .rsp = 0x200000};
  if (ioctl(v->vcpu, KVM_SET_REGS, &regs) < 0) die("KVM_SET_REGS");
}

static const char *run_once(struct vm *v, uint8_t *port_byte) {
  alarm(3);
  int rc = ioctl(v->vcpu, KVM_RUN, 0);
  alarm(0);
  if (rc < 0) return "no exit within 3 s";
  if (v->run->exit_reason == KVM_EXIT_SHUTDOWN) return "triple fault (shutdown)";
  if (v->run->exit_reason != KVM_EXIT_IO) return "unexpected exit";
  *port_byte = *((uint8_t *)v->run + v->run->io.data_offset);
  return NULL;
}

// Check 1: read one byte through a page of `kind` at HIGH_GPA.
static void page_check(const char *kind) {
  // movabs $HIGH_VA+0x123,%rbx; mov (%rbx),%al; out %al,$0x10; hlt
  uint8_t code[] = {0x48, 0xbb, 0, 0, 0, 0, 0, 0, 0, 0, 0x8a, 0x03, 0xe6, 0x10, 0xf4};
  uint64_t target = HIGH_VA + 0x123;
  memcpy(code + 2, &target, 8);
  struct vm v;
  vm_open(&v, code, sizeof code, 0);
  uint8_t *high = mmap(NULL, 0x200000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  high[0x123] = 0x77;
  map(&v, 1, HIGH_GPA, high, 0x200000);
  uint64_t *pml4 = (uint64_t *)(v.low + 0x2000), *pdpt = (uint64_t *)(v.low + 0x5000);
  uint64_t *pd = (uint64_t *)(v.low + 0x6000), *pt = (uint64_t *)(v.low + 0x7000);
  pml4[1] = 0x5000 | 3;
  if (!strcmp(kind, "1 GiB")) pdpt[0] = HIGH_GPA | 0x83;
  else if (!strcmp(kind, "2 MiB")) pdpt[0] = 0x6000 | 3, pd[0] = HIGH_GPA | 0x83;
  else pdpt[0] = 0x6000 | 3, pd[0] = 0x7000 | 3, pt[0] = HIGH_GPA | 3;
  uint8_t got = 0;
  const char *err = run_once(&v, &got);
  printf("%-6s page: %s\n", kind, err ? err : got == 0x77 ? "read ok" : "read a wrong byte");
}

// Check 2: ns per iteration of `dec %ecx; jnz` in ring 0 or ring 3.
static void speed_check(int user, uint32_t n) {
  uint8_t code[] = {0xb9, 0, 0, 0, 0, 0xff, 0xc9, 0x75, 0xfc, 0xb0, 0x42, 0xe6, 0x10, 0xf4};
  memcpy(code + 1, &n, 4);
  struct vm v;
  vm_open(&v, code, sizeof code, user);
  uint8_t got = 0;
  double t0 = now_ms();
  const char *err = run_once(&v, &got);
  double ms = now_ms() - t0;
  if (err) printf("ring %d loop: %s\n", user ? 3 : 0, err);
  else printf("ring %d loop: %u iterations in %.1f ms, %.1f ns each\n", user ? 3 : 0, n, ms, ms * 1e6 / n);
}

int main(void) {
  struct sigaction sa = {.sa_handler = on_alarm};
  sigaction(SIGALRM, &sa, NULL);
  int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
  if (kvm < 0) die("open /dev/kvm");
  if (ioctl(kvm, KVM_GET_SUPPORTED_CPUID, &cpuid) < 0) die("KVM_GET_SUPPORTED_CPUID");
  for (unsigned i = 0; i < cpuid.c.nent; i++)
    if (cpuid.e[i].function == 0x80000001)
      printf("KVM_GET_SUPPORTED_CPUID: 1 GiB pages (pdpe1gb) %s\n",
             (cpuid.e[i].edx >> 26) & 1 ? "yes" : "no");
  page_check("4 KiB");
  page_check("2 MiB");
  page_check("1 GiB");
  speed_check(0, 200000);
  speed_check(1, 10000000);
  return 0;
}
