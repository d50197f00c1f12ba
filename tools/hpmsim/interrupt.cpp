#include "tools/hpmsim/interrupt.h"

#include <csignal>

namespace hpm::tools {
namespace {

// A signal handler can only reach static storage: this is the one piece of process-wide
// mutable state in hpmsim, written by the handler and read by the polling command.
volatile std::sig_atomic_t received = 0;

extern "C" void onInterrupt(int signo) {
  if (received == 0) received = signo;  // the first one names the interrupt
}

}  // namespace

void installInterruptHandlers() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: the second signal has the default effect. No SA_RESTART: a host read the
  // guest is blocked in returns, so the run reaches its next poll.
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A parent may have blocked them (the mask is inherited): unblocked, a signal already pending
  // is taken now, and the run that follows stops before it starts.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

int pendingInterrupt() {
  return received;
}

}  // namespace hpm::tools
