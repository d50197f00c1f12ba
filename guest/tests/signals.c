// Signal handling in one thread: sigaction handlers for raise()d signals (SA_SIGINFO with
// si_signo/si_code, and plain handlers), SIG_IGN, blocking with sigprocmask (a blocked signal
// stays pending until unblocked, then is delivered once), sa_mask and SA_NODEFER semantics, a
// handler that modifies global state seen after sigreturn, a SIGSEGV handler that recovers
// with siglongjmp from a store to an unmapped page, SIGFPE never raised by integer division
// (RISC-V does not trap), kill() on our own pid, sigaltstack, and SA_RESETHAND.
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

static volatile sig_atomic_t hits;
static volatile sig_atomic_t last_signo;
static volatile sig_atomic_t last_code;
static volatile sig_atomic_t nested_depth;
static sigjmp_buf recover;
static volatile int on_alt_stack;
static char* alt_base;

static void plain_handler(int sig) {
  ++hits;
  last_signo = sig;
}

static void info_handler(int sig, siginfo_t* info, void* ucontext) {
  (void)ucontext;
  ++hits;
  last_signo = sig;
  last_code = info->si_code;
}

static void segv_handler(int sig, siginfo_t* info, void* ucontext) {
  (void)ucontext;
  last_signo = sig;
  last_code = info->si_code;
  char probe;
  on_alt_stack = alt_base != NULL && &probe >= alt_base && &probe < alt_base + 65536;
  siglongjmp(recover, 1);
}

static void reentrant_handler(int sig) {
  ++nested_depth;
  if (nested_depth < 3) raise(sig);  // SA_NODEFER: delivered immediately, nesting
  ++hits;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = plain_handler;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  CHECK(raise(SIGUSR1) == 0);
  printf("plain handler: hits=%d signo=%d\n", (int)hits, (int)last_signo);

  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = info_handler;
  sa.sa_flags = SA_SIGINFO;
  CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
  CHECK(raise(SIGUSR2) == 0);
  printf("siginfo handler: hits=%d signo=%d code_is_tkill=%d\n", (int)hits, (int)last_signo,
         last_code == SI_TKILL);
  CHECK(kill(getpid(), SIGUSR2) == 0);
  printf("kill(getpid()): hits=%d code_is_user=%d\n", (int)hits, last_code == SI_USER);

  // Blocked signals stay pending and are delivered once on unblock.
  sigset_t set, pending;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
  CHECK(raise(SIGUSR1) == 0);
  CHECK(raise(SIGUSR1) == 0);
  CHECK(sigpending(&pending) == 0);
  printf("while blocked: hits=%d pending=%d\n", (int)hits, sigismember(&pending, SIGUSR1));
  CHECK(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0);
  printf("after unblock: hits=%d (standard signals do not queue)\n", (int)hits);

  // SIG_IGN discards.
  CHECK(signal(SIGUSR1, SIG_IGN) != SIG_ERR);
  CHECK(raise(SIGUSR1) == 0);
  printf("ignored: hits=%d\n", (int)hits);

  // SA_NODEFER lets the handler interrupt itself: it raises its own signal until 3 deep.
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = reentrant_handler;
  sa.sa_flags = SA_NODEFER;
  CHECK(sigaction(SIGURG, &sa, NULL) == 0);
  nested_depth = 0;
  CHECK(raise(SIGURG) == 0);
  printf("SA_NODEFER nesting depth=%d hits=%d\n", (int)nested_depth, (int)hits);
  // Without SA_NODEFER the signal is blocked while its handler runs: the inner raise stays
  // pending and is delivered right after the handler returns (nesting depth 1 at a time).
  sa.sa_flags = 0;
  CHECK(sigaction(SIGURG, &sa, NULL) == 0);
  nested_depth = 0;
  CHECK(raise(SIGURG) == 0);
  printf("deferred: handler entries=%d hits=%d\n", (int)nested_depth, (int)hits);
  // SA_RESETHAND restores the default action once the handler has been entered.
  sa.sa_flags = SA_RESETHAND;
  sa.sa_handler = plain_handler;
  CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
  CHECK(raise(SIGUSR2) == 0);
  struct sigaction now;
  CHECK(sigaction(SIGUSR2, NULL, &now) == 0);
  printf("SA_RESETHAND: hits=%d reset to default=%d\n", (int)hits, now.sa_handler == SIG_DFL);

  // Recover from SIGSEGV on an alternate signal stack.
  alt_base = malloc(65536);
  CHECK(alt_base != NULL);
  stack_t ss = {.ss_sp = alt_base, .ss_size = 65536, .ss_flags = 0};
  CHECK(sigaltstack(&ss, NULL) == 0);
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = segv_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
  volatile int* p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK((void*)p != MAP_FAILED);
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (sigsetjmp(recover, 1) == 0) {
      *p = attempt;  // read-only page: SEGV_ACCERR
      printf("store succeeded?!\n");
    } else {
      printf("recovered from SIGSEGV #%d: code=%s on_alt_stack=%d\n", attempt,
             last_code == SEGV_ACCERR ? "SEGV_ACCERR"
                                      : (last_code == SEGV_MAPERR ? "SEGV_MAPERR" : "other"),
             on_alt_stack);
    }
  }
  CHECK(munmap((void*)p, 4096) == 0);
  if (sigsetjmp(recover, 1) == 0) {
    *p = 1;  // now unmapped: SEGV_MAPERR
  } else {
    printf("recovered from SIGSEGV on unmapped: code=%s\n",
           last_code == SEGV_MAPERR ? "SEGV_MAPERR" : "other");
  }

  // Integer division by zero does not trap on RISC-V.
  volatile long zero = 0, num = 7;
  printf("7/0=%ld 7%%0=%ld (no SIGFPE)\n", num / zero, num % zero);
  return 0;
}
