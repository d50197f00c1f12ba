// Signal handlers that read and change the interrupted context through the riscv64 ucontext.
// - SIGILL (an illegal instruction), SIGSEGV (a load from an unmapped page), SIGTRAP (ebreak)
//   and SIGBUS (a misaligned AMO): si_code and si_addr are right, the handler sees the faulting
//   pc in uc_mcontext, skips the instruction by advancing the pc by its length, and sets the
//   destination register (a0), whose new value the interrupted code then prints.
// - The handler sees the interrupted code's callee-saved registers (s2..s5) and FP registers
//   (fs0) as they were, and changes fa0 and the FP exception flags in fcsr, which the
//   interrupted code reads back after sigreturn.
// - The handler adds SIGUSR2 to uc_sigmask: the interrupted code runs on with it blocked.
// Each of the four faults executes once, so qemu counts 4 instructions hpmsim does not retire.
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "common.h"

static volatile int last_sig, last_code;
static volatile uintptr_t last_addr, last_pc;
static volatile unsigned long seen_s[4];
static volatile double seen_fs0;

static int insn_length(uintptr_t pc) {
  uint16_t low;
  memcpy(&low, (const void*)pc, 2);
  return (low & 3) == 3 ? 4 : 2;
}

static void skip_and_set(int sig, siginfo_t* info, void* ctx) {
  ucontext_t* uc = ctx;
  last_sig = sig;
  last_code = info->si_code;
  last_addr = (uintptr_t)info->si_addr;
  last_pc = uc->uc_mcontext.__gregs[REG_PC];
  for (int i = 0; i < 4; ++i) seen_s[i] = uc->uc_mcontext.__gregs[18 + i];  // s2..s5
  double fs0;
  memcpy(&fs0, &uc->uc_mcontext.__fpregs.__d.__f[8], sizeof fs0);
  seen_fs0 = fs0;
  uc->uc_mcontext.__gregs[REG_PC] += insn_length(last_pc);
  uc->uc_mcontext.__gregs[REG_A0] = 0x1000 + (unsigned long)sig;
  if (sig == SIGTRAP) {
    const double new_fa0 = 2.75;
    memcpy(&uc->uc_mcontext.__fpregs.__d.__f[10], &new_fa0, sizeof new_fa0);
    uc->uc_mcontext.__fpregs.__d.__fcsr |= 0x1;  // NX: inexact
    sigaddset(&uc->uc_sigmask, SIGUSR2);
  }
}

static const char* code_name(int sig, int code) {
  if (sig == SIGILL && code == ILL_ILLOPC) return "ILL_ILLOPC";
  if (sig == SIGSEGV && code == SEGV_MAPERR) return "SEGV_MAPERR";
  if (sig == SIGTRAP && code == TRAP_BRKPT) return "TRAP_BRKPT";
  if (sig == SIGBUS && code == BUS_ADRALN) return "BUS_ADRALN";
  return "other";
}

// Each fault: a0 is set to 0 first; the handler sets it to 0x1000 + signal.
static long illegal(uintptr_t* where) {
  long a0;
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "li a0, 0\n"
      "1: csrw cycle, zero\n"  // writing a read-only CSR is illegal
      "mv %0, a0\n"
      "la %1, 1b\n"
      ".option pop\n"
      : "=r"(a0), "=r"(*where)
      :
      : "a0");
  return a0;
}

static long load_unmapped(volatile long* p, uintptr_t* where) {
  long a0;
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "li a0, 0\n"
      "mv t0, %2\n"
      "1: ld a0, 0(t0)\n"
      "mv %0, a0\n"
      "la %1, 1b\n"
      ".option pop\n"
      : "=r"(a0), "=r"(*where)
      : "r"(p)
      : "a0", "t0", "memory");
  return a0;
}

static long breakpoint(uintptr_t* where, double* fa0, unsigned* fflags) {
  long a0;
  double f;
  unsigned flags;
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "fsflags zero\n"
      "li s2, 0x22\nli s3, 0x33\nli s4, 0x44\nli s5, 0x55\n"
      "li t0, 0x3ff8000000000000\n"  // 1.5
      "fmv.d.x fs0, t0\n"
      "fmv.d.x fa0, zero\n"
      "li a0, 0\n"
      "1: ebreak\n"
      "mv %0, a0\n"
      "fmv.d %1, fa0\n"
      "frflags %2\n"
      "la %3, 1b\n"
      ".option pop\n"
      : "=r"(a0), "=f"(f), "=r"(flags), "=r"(*where)
      :
      : "a0", "t0", "s2", "s3", "s4", "s5", "fs0", "fa0");
  *fa0 = f;
  *fflags = flags;
  return a0;
}

static long misaligned_amo(char* p, uintptr_t* where) {
  long a0;
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "li a0, 0\n"
      "li t1, 1\n"
      "1: amoadd.w a0, t1, (%2)\n"
      "mv %0, a0\n"
      "la %1, 1b\n"
      ".option pop\n"
      : "=r"(a0), "=r"(*where)
      : "r"(p)
      : "a0", "t1", "memory");
  return a0;
}

static void report(const char* what, long a0, uintptr_t where, uintptr_t expected_addr) {
  printf("%s: %s %s, pc is the faulting instruction %d, si_addr right %d, a0 set to %#lx\n", what,
         last_sig == SIGILL    ? "SIGILL"
         : last_sig == SIGSEGV ? "SIGSEGV"
         : last_sig == SIGTRAP ? "SIGTRAP"
         : last_sig == SIGBUS  ? "SIGBUS"
                               : "other",
         code_name(last_sig, last_code), last_pc == where, last_addr == expected_addr, a0);
  CHECK(last_pc == where && last_addr == expected_addr && a0 == 0x1000 + last_sig);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = skip_and_set;
  sa.sa_flags = SA_SIGINFO;
  const int faults[] = {SIGILL, SIGSEGV, SIGTRAP, SIGBUS};
  for (int i = 0; i < 4; ++i) CHECK(sigaction(faults[i], &sa, NULL) == 0);

  uintptr_t where = 0;
  long a0 = illegal(&where);
  report("illegal instruction", a0, where, where);

  volatile long* page =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK((void*)page != MAP_FAILED);
  CHECK(munmap((void*)page, 4096) == 0);
  a0 = load_unmapped(page + 3, &where);
  report("load from an unmapped page", a0, where, (uintptr_t)(page + 3));

  double fa0 = 0;
  unsigned fflags = 0;
  a0 = breakpoint(&where, &fa0, &fflags);
  report("ebreak", a0, where, where);
  printf("handler saw s2..s5 = %#lx %#lx %#lx %#lx and fs0 = %.2f\n", seen_s[0], seen_s[1],
         seen_s[2], seen_s[3], seen_fs0);
  printf("after sigreturn: fa0 = %.2f (set by the handler), fflags = %#x\n", fa0, fflags);
  CHECK(seen_s[0] == 0x22 && seen_s[3] == 0x55 && seen_fs0 == 1.5 && fa0 == 2.75 && fflags == 1);
  sigset_t now;
  CHECK(sigprocmask(SIG_SETMASK, NULL, &now) == 0);
  printf("uc_sigmask changed by the handler: SIGUSR2 now blocked %d\n", sigismember(&now, SIGUSR2));
  CHECK(sigismember(&now, SIGUSR2));

  static _Alignas(8) char buffer[16];
  a0 = misaligned_amo(buffer + 2, &where);
  report("misaligned amoadd.w", a0, where, (uintptr_t)(buffer + 2));
  return 0;
}
