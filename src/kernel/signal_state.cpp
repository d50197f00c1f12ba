#include "kernel/signal_state.h"

#include <signal.h>

namespace hpm {

bool SignalState::defaultIgnores(int signal) {
  switch (signal) {
    case SIGCHLD:
    case SIGURG:
    case SIGWINCH:
    case SIGCONT:
    case SIGSTOP:  // no job control: stop signals are ignored
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU: return true;
    default: return false;
  }
}

bool SignalState::ignores(int signal) const {
  const SignalAction& a = actions_[signal];
  return a.handler == kSigIgn || (a.handler == kSigDfl && defaultIgnores(signal));
}

bool SignalState::queueForProcess(const SigInfo& info) {
  if (info.signo < 32) {
    for (const SigInfo& p : process_pending_) {
      if (p.signo == info.signo) return false;
    }
  }
  process_pending_.push_back(info);
  return true;
}

bool SignalState::pendingFor(const Thread& t) const {
  for (const SigInfo& info : t.pending) {
    if (!(t.blocked & bit(info.signo))) return true;
  }
  for (const SigInfo& info : process_pending_) {
    if (!(t.blocked & bit(info.signo))) return true;
  }
  return false;
}

u64 SignalState::blockedPending(const Thread& t) const {
  u64 set = 0;
  for (const SigInfo& info : t.pending) set |= bit(info.signo);
  for (const SigInfo& info : process_pending_) set |= bit(info.signo);
  return set & t.blocked;
}

bool SignalState::take(Thread& t, u64 set, SigInfo& out) {
  for (auto* queue : {&t.pending, &process_pending_}) {
    auto best = queue->end();
    for (auto it = queue->begin(); it != queue->end(); ++it) {
      if (!(set & bit(it->signo))) continue;
      if (best == queue->end() || it->signo < best->signo) best = it;
    }
    if (best != queue->end()) {
      out = *best;
      queue->erase(best);
      return true;
    }
  }
  return false;
}

}  // namespace hpm
