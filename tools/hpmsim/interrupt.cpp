#include "tools/hpmsim/interrupt.h"

#include <csignal>
#include <ctime>

namespace hpm::tools {
namespace {

// A signal handler can only reach static storage: this is the one piece of process-wide
// mutable state in hpmsim, written by the handler and read by the polling command (and by
// ResultsWriting, which the handler defers to).
volatile std::sig_atomic_t received = 0;  // the first signal: the request to stop
volatile long long received_ms = 0;       // when it came (monotonic ms; the handler's alone)
volatile std::sig_atomic_t forced = 0;    // a later one, waiting for a results file's end
volatile std::sig_atomic_t writing = 0;   // ResultsWriting objects alive

// A second signal closer than this to the first is the same request.
constexpr long long kSameRequestMs = 1000;

long long monotonicMs() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);  // (async-signal-safe)
  return static_cast<long long>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

// Ends hpmsim by `signo`, as its default action does (the status a shell expects).
void endBy(int signo) {
  std::signal(signo, SIG_DFL);
  std::raise(signo);  // (blocked in the handler: taken as it returns)
}

extern "C" void onInterrupt(int signo) {
  const long long now = monotonicMs();
  if (received == 0) {
    received_ms = now;
    received = signo;  // the first one names the interrupt
    return;
  }
  if (now - received_ms < kSameRequestMs) return;  // the same Ctrl-C, delivered twice
  if (writing != 0) {
    if (forced == 0) forced = signo;  // after the results file in progress
    return;
  }
  endBy(signo);
}

}  // namespace

void installInterruptHandlers() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  // Both blocked while the handler runs: it is never re-entered.
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  // No SA_RESTART: a host read the guest is blocked in returns, so the run reaches its next
  // poll.
  action.sa_flags = 0;
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

ResultsWriting::ResultsWriting() {
  writing = writing + 1;
}

ResultsWriting::~ResultsWriting() {
  writing = writing - 1;
  if (writing == 0 && forced != 0) endBy(forced);
}

}  // namespace hpm::tools
