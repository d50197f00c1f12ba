// Signal actions, masks and waits in one thread.
// - sa_mask (only with the argument "sa_mask": qemu-user 7.2 ignores sa_mask on riscv64, so
//   this part is checked under hpmsim alone): a signal in the handler's sa_mask raised inside
//   the handler waits until the handler returns; the interrupted code's mask comes back after
//   sigreturn.
// - rt_sigpending reports blocked pending signals; a blocked standard signal raised twice is
//   delivered once; real-time signals queue (three raises, three deliveries, lowest number first
//   across signals, in order within one).
// - sigsuspend: waits with a temporary mask, returns EINTR after the handler, restores the mask.
// - sigtimedwait/sigwaitinfo: take a pending blocked signal at once (with its siginfo), time out
//   with EAGAIN no earlier than the timeout, and a zero timeout polls.
// - ppoll with a signal mask: the mask applies during the call only (after a timeout, and after
//   a handler that interrupted it with EINTR).
// - SA_NODEFER lets a handler be re-entered; SA_RESETHAND restores SIG_DFL on entry (the signal
//   raised again inside the handler then takes the default action, ignore for SIGURG); SA_ONSTACK
//   with sigaltstack runs the handler on the alternate stack, which reports SS_ONSTACK inside the
//   handler, refuses changes there (EPERM), and a nested handler on it stays on it; a too-small
//   stack is ENOMEM; SS_DISABLE turns it off.
// - SIG_IGN discards, and setting SIG_IGN discards a pending instance; SIGCHLD's default is to
//   ignore; sigaction reports the old action and flags.
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "thread_util.h"

static volatile sig_atomic_t usr1_count, usr2_count, usr2_seen_in_usr1;
static volatile int order[16];
static volatile int order_len;
static volatile sig_atomic_t depth, max_depth, entries;
static char* alt_stack;
static const size_t kAltSize = 64 * 1024;
static volatile int on_alt[4], alt_flags_onstack, alt_change_error, nested_on_alt;

static int on_alternate_stack(void) {
  char probe;
  return &probe >= alt_stack && &probe < alt_stack + kAltSize;
}

static void usr1_with_mask(int sig) {
  (void)sig;
  ++usr1_count;
  raise(SIGUSR2);  // in sa_mask: stays pending until we return
  usr2_seen_in_usr1 = usr2_count;
}

static void count_usr2(int sig) {
  (void)sig;
  ++usr2_count;
}

static void record(int sig, siginfo_t* info, void* uc) {
  (void)uc;
  order[order_len++] = sig * 100 + info->si_value.sival_int;
}

// Raises its own signal until it has been entered 3 times.
static void reenter(int sig) {
  ++entries;
  ++depth;
  if (depth > max_depth) max_depth = depth;
  if (entries < 3) raise(sig);
  --depth;
}

static void on_alt_handler(int sig) {
  int i = sig == SIGUSR1 ? 0 : 1;
  on_alt[i] = on_alternate_stack();
  if (sig == SIGUSR1) {
    stack_t now;
    CHECK(sigaltstack(NULL, &now) == 0);
    alt_flags_onstack = (now.ss_flags & SS_ONSTACK) != 0;
    stack_t other = {.ss_sp = malloc(kAltSize), .ss_size = kAltSize, .ss_flags = 0};
    alt_change_error = sigaltstack(&other, NULL) == 0 ? 0 : errno;
    free(other.ss_sp);
    raise(SIGUSR2);  // SIGUSR2's handler is also SA_ONSTACK, and not blocked here
    nested_on_alt = on_alt[1];
  }
}

static void set_action(int sig, void (*handler)(int), int flags, const sigset_t* mask) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = flags;
  if (mask != NULL) sa.sa_mask = *mask;
  CHECK(sigaction(sig, &sa, NULL) == 0);
}

static sigset_t current_mask(void) {
  sigset_t m;
  CHECK(sigprocmask(SIG_SETMASK, NULL, &m) == 0);
  return m;
}

static void check_sa_mask(void) {
  // sa_mask defers SIGUSR2 raised inside the SIGUSR1 handler.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGUSR2);
  set_action(SIGUSR1, usr1_with_mask, 0, &mask);
  set_action(SIGUSR2, count_usr2, 0, NULL);
  CHECK(raise(SIGUSR1) == 0);
  printf("sa_mask: SIGUSR2 raised in the SIGUSR1 handler ran after it: seen inside %d, after %d\n",
         (int)usr2_seen_in_usr1, (int)usr2_count);
  CHECK(usr2_seen_in_usr1 == 0 && usr2_count == 1);
  sigset_t now = current_mask();
  CHECK(!sigismember(&now, SIGUSR1) && !sigismember(&now, SIGUSR2));
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "sa_mask") == 0) {
    check_sa_mask();
    return 0;
  }
  set_action(SIGUSR2, count_usr2, 0, NULL);
  sigset_t now;

  // Pending sets, standard signals do not queue, real-time signals do.
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  sigaddset(&block, SIGRTMIN + 1);
  sigaddset(&block, SIGRTMIN + 2);
  CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);
  usr2_count = 0;
  CHECK(raise(SIGUSR2) == 0 && raise(SIGUSR2) == 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = record;
  sa.sa_flags = SA_SIGINFO;
  CHECK(sigaction(SIGRTMIN + 1, &sa, NULL) == 0 && sigaction(SIGRTMIN + 2, &sa, NULL) == 0);
  for (int i = 1; i <= 3; ++i) {
    CHECK(sigqueue(getpid(), SIGRTMIN + 2, (union sigval){.sival_int = i}) == 0);
    CHECK(sigqueue(getpid(), SIGRTMIN + 1, (union sigval){.sival_int = i}) == 0);
  }
  sigset_t pending;
  CHECK(sigpending(&pending) == 0);
  printf("pending while blocked: USR2 %d RTMIN+1 %d RTMIN+2 %d USR1 %d\n",
         sigismember(&pending, SIGUSR2), sigismember(&pending, SIGRTMIN + 1),
         sigismember(&pending, SIGRTMIN + 2), sigismember(&pending, SIGUSR1));
  CHECK(sigprocmask(SIG_UNBLOCK, &block, NULL) == 0);
  printf("after unblocking: SIGUSR2 delivered %d time(s); real-time order:", (int)usr2_count);
  for (int i = 0; i < order_len; ++i) printf(" %d", order[i] - SIGRTMIN * 100);
  printf("\n");
  CHECK(usr2_count == 1 && order_len == 6);

  // sigsuspend.
  CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);
  usr2_count = 0;
  CHECK(raise(SIGUSR2) == 0);
  sigset_t wait_mask = current_mask();
  sigdelset(&wait_mask, SIGUSR2);
  int r = sigsuspend(&wait_mask);
  now = current_mask();
  printf("sigsuspend: returned %d errno %s, handler ran %d, mask restored %d\n", r,
         errno == EINTR ? "EINTR" : "other", (int)usr2_count, sigismember(&now, SIGUSR2));
  CHECK(r == -1 && errno == EINTR && usr2_count == 1 && sigismember(&now, SIGUSR2));

  // sigtimedwait and sigwaitinfo.
  CHECK(sigqueue(getpid(), SIGRTMIN + 1, (union sigval){.sival_int = 77}) == 0);
  siginfo_t info;
  sigset_t want;
  sigemptyset(&want);
  sigaddset(&want, SIGRTMIN + 1);
  r = sigwaitinfo(&want, &info);
  printf("sigwaitinfo: signal RTMIN+%d value %d code SI_QUEUE %d\n", r - SIGRTMIN,
         info.si_value.sival_int, info.si_code == SI_QUEUE);
  CHECK(r == SIGRTMIN + 1 && info.si_value.sival_int == 77 && info.si_code == SI_QUEUE);
  struct timespec timeout = {0, 4000000};
  int64_t start = now_ns(CLOCK_MONOTONIC);
  r = sigtimedwait(&want, &info, &timeout);
  int64_t waited = now_ns(CLOCK_MONOTONIC) - start;
  printf("sigtimedwait with nothing pending: %d %s, waited at least 4 ms: %d\n", r,
         errno == EAGAIN ? "EAGAIN" : "other", waited >= 4000000);
  CHECK(r == -1 && errno == EAGAIN && waited >= 4000000);
  struct timespec zero = {0, 0};
  r = sigtimedwait(&want, &info, &zero);
  printf("sigtimedwait polling: %d %s\n", r, errno == EAGAIN ? "EAGAIN" : "other");
  CHECK(raise(SIGUSR2) == 0);
  sigaddset(&want, SIGUSR2);
  r = sigtimedwait(&want, &info, &zero);
  // raise() sends with tgkill (SI_TKILL), which glibc's sigtimedwait reports as SI_USER.
  printf("sigtimedwait on a pending SIGUSR2: %s, code SI_USER %d, handler not run %d\n",
         r == SIGUSR2 ? "SIGUSR2" : "other", info.si_code == SI_USER, usr2_count == 1);
  CHECK(r == SIGUSR2 && info.si_code == SI_USER && usr2_count == 1);
  CHECK(sigprocmask(SIG_UNBLOCK, &block, NULL) == 0);

  // ppoll with a temporary mask: restored after a timeout, and after a handler (EINTR).
  CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);  // SIGUSR2 blocked
  sigset_t open_mask = current_mask();
  sigdelset(&open_mask, SIGUSR2);
  struct timespec short_wait = {0, 2000000};
  r = ppoll(NULL, 0, &short_wait, &open_mask);
  now = current_mask();
  printf("ppoll with a mask, timeout: %d, mask restored %d\n", r, sigismember(&now, SIGUSR2));
  CHECK(r == 0 && sigismember(&now, SIGUSR2));
  usr2_count = 0;
  CHECK(raise(SIGUSR2) == 0);  // pending, blocked
  r = ppoll(NULL, 0, NULL, &open_mask);
  now = current_mask();
  printf(
      "ppoll with a mask that lets a pending signal in: %d %s, handler ran %d, mask restored "
      "%d\n",
      r, errno == EINTR ? "EINTR" : "other", (int)usr2_count, sigismember(&now, SIGUSR2));
  CHECK(r == -1 && errno == EINTR && usr2_count == 1 && sigismember(&now, SIGUSR2));
  CHECK(sigprocmask(SIG_UNBLOCK, &block, NULL) == 0);

  // SA_NODEFER and SA_RESETHAND.
  set_action(SIGURG, reenter, SA_NODEFER, NULL);
  CHECK(raise(SIGURG) == 0);
  printf("SA_NODEFER: %d entries, nested %d deep\n", (int)entries, (int)max_depth);
  CHECK(entries == 3 && max_depth == 3);
  max_depth = entries = 0;
  set_action(SIGURG, reenter, 0, NULL);
  CHECK(raise(SIGURG) == 0);
  printf("without SA_NODEFER: %d entries, nested %d deep\n", (int)entries, (int)max_depth);
  CHECK(entries == 3 && max_depth == 1);
  max_depth = entries = 0;
  set_action(SIGURG, reenter, SA_RESETHAND, NULL);
  CHECK(raise(SIGURG) == 0);  // the raise inside finds SIG_DFL, which ignores SIGURG
  struct sigaction old;
  CHECK(sigaction(SIGURG, NULL, &old) == 0);
  printf("SA_RESETHAND: %d entry, action now SIG_DFL %d\n", (int)entries,
         old.sa_handler == SIG_DFL);
  CHECK(entries == 1 && old.sa_handler == SIG_DFL);

  // sigaltstack and SA_ONSTACK.
  stack_t ss = {.ss_sp = malloc(1024), .ss_size = 1024, .ss_flags = 0};
  r = sigaltstack(&ss, NULL);
  printf("sigaltstack with 1 KiB: %s\n", r == -1 && errno == ENOMEM ? "ENOMEM" : "other");
  free(ss.ss_sp);
  alt_stack = malloc(kAltSize);
  CHECK(alt_stack != NULL);
  ss = (stack_t){.ss_sp = alt_stack, .ss_size = kAltSize, .ss_flags = 0};
  CHECK(sigaltstack(&ss, NULL) == 0);
  stack_t query;
  CHECK(sigaltstack(NULL, &query) == 0);
  CHECK(query.ss_sp == alt_stack && query.ss_size == kAltSize && query.ss_flags == 0);
  set_action(SIGUSR1, on_alt_handler, SA_ONSTACK, NULL);
  set_action(SIGUSR2, on_alt_handler, SA_ONSTACK, NULL);
  CHECK(raise(SIGUSR1) == 0);
  printf(
      "SA_ONSTACK: on the alternate stack %d, SS_ONSTACK inside %d, change inside %s, "
      "nested handler on it %d\n",
      on_alt[0], alt_flags_onstack, alt_change_error == EPERM ? "EPERM" : "other", nested_on_alt);
  CHECK(on_alt[0] && alt_flags_onstack && alt_change_error == EPERM && nested_on_alt);
  set_action(SIGUSR2, on_alt_handler, 0, NULL);
  on_alt[1] = -1;
  CHECK(raise(SIGUSR2) == 0);
  printf("without SA_ONSTACK: on the alternate stack %d\n", on_alt[1]);
  CHECK(on_alt[1] == 0);
  ss.ss_flags = SS_DISABLE;
  CHECK(sigaltstack(&ss, NULL) == 0);
  CHECK(sigaltstack(NULL, &query) == 0);
  on_alt[0] = -1;
  CHECK(raise(SIGUSR1) == 0);
  printf("after SS_DISABLE: flags SS_DISABLE %d, SA_ONSTACK handler on the alternate stack %d\n",
         (query.ss_flags & SS_DISABLE) != 0, on_alt[0]);
  CHECK(on_alt[0] == 0);

  // SIG_IGN and default-ignored signals.
  usr2_count = 0;
  set_action(SIGUSR2, count_usr2, 0, NULL);
  CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);
  CHECK(raise(SIGUSR2) == 0);
  set_action(SIGUSR2, SIG_IGN, 0, NULL);
  CHECK(sigpending(&pending) == 0);
  int still_pending = sigismember(&pending, SIGUSR2);
  set_action(SIGUSR2, count_usr2, 0, NULL);
  CHECK(sigprocmask(SIG_UNBLOCK, &block, NULL) == 0);
  CHECK(raise(SIGCHLD) == 0 && raise(SIGWINCH) == 0);
  printf(
      "SIG_IGN discarded the pending SIGUSR2: %d, handler ran %d; SIGCHLD and SIGWINCH ignored\n",
      !still_pending, (int)usr2_count);
  CHECK(!still_pending && usr2_count == 0);
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = count_usr2;
  sa.sa_flags = SA_RESTART | SA_NODEFER;
  CHECK(sigaction(SIGUSR2, &sa, &old) == 0);
  CHECK(sigaction(SIGUSR2, NULL, &old) == 0);
  printf("sigaction reports the old action: handler %d, SA_RESTART %d, SA_NODEFER %d\n",
         old.sa_handler == count_usr2, (old.sa_flags & SA_RESTART) != 0,
         (old.sa_flags & SA_NODEFER) != 0);
  CHECK(old.sa_handler == count_usr2 && (old.sa_flags & SA_RESTART) && (old.sa_flags & SA_NODEFER));
  r = sigaction(SIGKILL, &sa, NULL);
  printf("sigaction on SIGKILL: %s\n", r == -1 && errno == EINVAL ? "EINVAL" : "other");
  return 0;
}
