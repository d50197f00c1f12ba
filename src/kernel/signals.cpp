// Signals: actions, masks, delivery with the Linux riscv64 signal frame, and sigreturn.
#include <signal.h>

#include <fmt/core.h>
#include <unistd.h>

#include <cstring>

#include "kernel/kernel.h"

namespace hpm {
namespace {

constexpr u64 kSaSiginfo = 0x00000004;
constexpr u64 kSaOnstack = 0x08000000;
constexpr u64 kSaRestart = 0x10000000;
constexpr u64 kSaNodefer = 0x40000000;
constexpr u64 kSaResethand = 0x80000000;
constexpr u64 kSaRestorer = 0x04000000;  // accepted and ignored, as on riscv64
constexpr u64 kSigDfl = SignalState::kSigDfl;
constexpr u64 kSigIgn = SignalState::kSigIgn;
constexpr int kSsOnstack = 1;
constexpr int kSsDisable = 2;
constexpr u64 kMinSigstksz = 2048;

constexpr u64 bit(int signal) {
  return SignalState::bit(signal);
}
constexpr u64 kUnblockable = (u64{1} << (SIGKILL - 1)) | (u64{1} << (SIGSTOP - 1));

// The riscv64 rt_sigframe: siginfo (128 bytes), then the ucontext: uc_flags, uc_link,
// uc_stack (24), uc_sigmask (8, padded to 128), then at offset 176 the machine context:
// pc and x1..x31 (256 bytes), then f0..f31 (256), fcsr (4), padding to the Q-extension size
// (528 bytes in all).
constexpr u64 kUcontextOffset = 128;
constexpr u64 kUcStack = 16;
constexpr u64 kUcSigmask = 40;
constexpr u64 kUcMcontext = 176;
constexpr u64 kMcontextFp = 256;
constexpr u64 kMcontextFcsr = kMcontextFp + 256;
constexpr u64 kFrameSize = kUcontextOffset + kUcMcontext + 256 + 528;  // 1088

std::string_view signalDescription(int signal) {
  switch (signal) {
    case SIGHUP: return "hangup";
    case SIGINT: return "interrupt";
    case SIGQUIT: return "quit";
    case SIGILL: return "illegal instruction";
    case SIGTRAP: return "trace/breakpoint trap";
    case SIGABRT: return "aborted";
    case SIGBUS: return "bus error";
    case SIGFPE: return "floating-point exception";
    case SIGKILL: return "killed";
    case SIGUSR1: return "user signal 1";
    case SIGSEGV: return "segmentation fault";
    case SIGUSR2: return "user signal 2";
    case SIGPIPE: return "broken pipe";
    case SIGALRM: return "alarm clock";
    case SIGTERM: return "terminated";
    case SIGXCPU: return "CPU time limit exceeded";
    case SIGVTALRM: return "virtual timer expired";
    case SIGPROF: return "profiling timer expired";
    case SIGSYS: return "bad system call";
    default: return signal >= 32 ? "real-time signal" : "signal";
  }
}

}  // namespace

bool Kernel::signalPendingFor(const Thread& t) const {
  return signals_.pendingFor(t);
}

bool Kernel::takeSignal(Thread& t, u64 set, SigInfo& out) {
  if (!signals_.take(t, set, out)) return false;
  timerSignalTaken(out);
  return true;
}

void Kernel::sendToThread(Thread& target, const SigInfo& info, u64 when, const Thread* sender) {
  if (target.exited) return;
  // CNK delivers a signal on the target's hardware thread: from another, by an interrupt.
  if (sender != nullptr) interProcessorInterrupt(sender->slot, target.slot);
  ++stats_.signals_sent;
  HPM_PROBE(bus_, kSignalsSent, 0, 1);
  const bool ignored = signals_.ignores(info.signo);
  // An ignored signal is discarded unless a sigwait-style call is waiting for it.
  if (ignored && !(target.wait == WaitKind::kSigwait && (target.sigwait_set & bit(info.signo)))) {
    if (!(target.blocked & bit(info.signo))) return;
  }
  // Standard signals do not queue: one pending instance at most.
  if (info.signo < 32) {
    for (const SigInfo& p : target.pending) {
      if (p.signo == info.signo) return;
    }
  }
  target.pending.push_back(info);
  if (target.wait == WaitKind::kSigwait && (target.sigwait_set & bit(info.signo))) {
    SigInfo taken;
    takeSignal(target, target.sigwait_set, taken);
    if (target.sigwait_info_addr != 0) {
      memory_.write(target.sigwait_info_addr, &taken, sizeof taken);
    }
    wake(target, taken.signo, when);
    return;
  }
  if (target.wait != WaitKind::kNone && !(target.blocked & bit(info.signo))) {
    interruptWait(target, when);
  }
}

void Kernel::sendToProcess(const SigInfo& info, u64 when, const Thread* sender) {
  // The first thread that does not block the signal takes it (a waiter in sigwait first);
  // if every thread blocks it, it stays pending for the process.
  for (const auto& t : threads_) {
    if (!t->exited && t->wait == WaitKind::kSigwait && (t->sigwait_set & bit(info.signo))) {
      return sendToThread(*t, info, when, sender);
    }
  }
  for (const auto& t : threads_) {
    if (!t->exited && !(t->blocked & bit(info.signo))) {
      return sendToThread(*t, info, when, sender);
    }
  }
  if (!signals_.queueForProcess(info)) return;  // a standard signal already queued
  ++stats_.signals_sent;
  HPM_PROBE(bus_, kSignalsSent, 0, 1);
}

void Kernel::interruptWait(Thread& t, u64 when) {
  // A parked polling thread is in no system call: it just runs again (to its handler).
  if (t.wait == WaitKind::kPoll) {
    ++stats_.poll_wakes_signal;
    return wake(t, kBlocked, when);
  }
  // The interrupted call returns EINTR, or restarts when the handler asked for SA_RESTART and
  // the call is one Linux restarts (-ERESTARTSYS): reads and writes on pipes and terminals, and
  // futex waits without a timeout (with one, Linux returns EINTR). ppoll, sleeps, sigsuspend
  // and sigtimedwait always return EINTR.
  i64 result = -abi::kEINTR;
  bool restart = false;
  const bool restartable = ((t.wait == WaitKind::kFdReadable || t.wait == WaitKind::kFdWritable) &&
                            t.syscall_number != abi::kPpoll) ||
                           (t.wait == WaitKind::kFutex && !t.wait_has_deadline);
  if (restartable) {
    for (const SigInfo& info : t.pending) {
      if (!(t.blocked & bit(info.signo)) && (signals_.action(info.signo).flags & kSaRestart)) {
        restart = true;
      }
    }
  }
  if (t.wait == WaitKind::kSleep && t.sleep_remaining_addr != 0) {
    const u64 deadline = t.wait_deadline;
    const u64 left = deadline > when ? deadline - when : 0;
    writeTimespec(t.sleep_remaining_addr, nanosAt(left));
  }
  if (restart) {
    HartState& s = t.hart().state();
    s.pc -= 4;
    s.x[10] = t.syscall_args[0];
    result = kBlocked;
  }
  wake(t, result, when);
}

void Kernel::raiseFault(Thread& t, int signal, i32 code, u64 addr, std::string_view cause) {
  SignalAction& action = signals_.action(signal);
  // A fault that cannot be handled (blocked or ignored) takes the default action, as Linux's
  // force_sig does.
  if ((t.blocked & bit(signal)) || action.handler == kSigIgn || action.handler == kSigDfl) {
    killProcess(t, signal, addr, cause);
    return;
  }
  SigInfo info;
  info.signo = signal;
  info.code = code;
  info.setAddr(addr);
  ++stats_.signals_delivered;
  HPM_PROBE(bus_, kSignalsDelivered, 0, 1);
  setupFrame(t, info, action);
  if (action.flags & kSaResethand) action = SignalAction{};
}

bool Kernel::deliverSignals(Thread& t) {
  bool handled = false;
  SigInfo info;
  while (!finished() && takeSignal(t, ~t.blocked | kUnblockable, info)) {
    SignalAction& action = signals_.action(info.signo);
    if (action.handler == kSigIgn) continue;
    if (action.handler == kSigDfl) {
      if (SignalState::defaultIgnores(info.signo)) continue;
      killProcess(t, info.signo, 0,
                  info.code == 0                               ? "sent by kill()"
                  : info.code == -6                            ? "sent by tgkill()"
                  : info.code == -1                            ? "sent by sigqueue()"
                  : info.code == 0x80 && info.signo == SIGPIPE ? "write to a pipe with no reader"
                                                               : "sent by a timer");
      return false;
    }
    ++stats_.signals_delivered;
    HPM_PROBE(bus_, kSignalsDelivered, 0, 1);
    setupFrame(t, info, action);
    if (info.code == kHpmSiCounter && devices_ != nullptr && !finished()) {
      i32 device = 0;
      std::memcpy(&device, info.fields, sizeof device);
      devices_->interruptDelivered(device, t.clock());
    }
    if (action.flags & kSaResethand) action = SignalAction{};
    handled = true;
  }
  if (!handled && t.saved_mask && t.wait == WaitKind::kNone) {
    t.blocked = *t.saved_mask;  // sigsuspend ended without a handler: restore its mask
    t.saved_mask.reset();
  }
  return handled;
}

void Kernel::setupFrame(Thread& t, const SigInfo& info, const SignalAction& action) {
  HartState& s = t.hart().state();
  const u64 sp = s.x[2];
  const bool on_altstack =
      !t.altstack_disabled && sp > t.altstack_sp && sp <= t.altstack_sp + t.altstack_size;
  u64 top = sp;
  if ((action.flags & kSaOnstack) && !t.altstack_disabled && !on_altstack) {
    top = t.altstack_sp + t.altstack_size;
  }
  const u64 frame = (top - kFrameSize) & ~u64{15};
  u8 bytes[kFrameSize] = {};
  std::memcpy(bytes, &info, sizeof info);
  u8* uc = bytes + kUcontextOffset;
  const u64 ss_sp = t.altstack_sp;
  const i32 ss_flags = t.altstack_disabled ? kSsDisable : (on_altstack ? kSsOnstack : 0);
  const u64 ss_size = t.altstack_size;
  std::memcpy(uc + kUcStack, &ss_sp, 8);
  std::memcpy(uc + kUcStack + 8, &ss_flags, 4);
  std::memcpy(uc + kUcStack + 16, &ss_size, 8);
  const u64 mask = t.saved_mask.value_or(t.blocked);
  std::memcpy(uc + kUcSigmask, &mask, 8);
  u8* mc = uc + kUcMcontext;
  std::memcpy(mc, &s.pc, 8);
  std::memcpy(mc + 8, &s.x[1], 31 * 8);
  std::memcpy(mc + kMcontextFp, s.f.data(), 32 * 8);
  const u32 fcsr = (u32{s.frm} << 5) | s.fflags;
  std::memcpy(mc + kMcontextFcsr, &fcsr, 4);
  if (!memory_.write(frame, bytes, sizeof bytes)) {
    // No room for the frame (a bad stack): Linux forces SIGSEGV, which kills.
    killProcess(t, SIGSEGV, frame, "signal frame could not be written (bad stack)");
    return;
  }
  s.pc = action.handler;
  s.x[1] = sigreturn_trampoline_;
  s.x[2] = frame;
  s.x[10] = static_cast<u64>(info.signo);
  s.x[11] = frame;
  s.x[12] = frame + kUcontextOffset;
  s.reserved = false;  // a trap ends any LR reservation
  t.blocked |= action.mask | ((action.flags & kSaNodefer) ? 0 : bit(info.signo));
  t.blocked &= ~kUnblockable;
  t.saved_mask.reset();
}

i64 Kernel::sysSigreturn(Thread& t, u64 /*number*/, const SyscallArgs& /*a*/) {
  HartState& s = t.hart().state();
  const u64 frame = s.x[2];
  u8 bytes[kFrameSize];
  if (!memory_.read(frame, bytes, sizeof bytes)) {
    killProcess(t, SIGSEGV, frame, "rt_sigreturn with an unreadable frame");
    return kBlocked;
  }
  const u8* uc = bytes + kUcontextOffset;
  const u8* mc = uc + kUcMcontext;
  std::memcpy(&s.pc, mc, 8);
  std::memcpy(&s.x[1], mc + 8, 31 * 8);
  std::memcpy(s.f.data(), mc + kMcontextFp, 32 * 8);
  u32 fcsr = 0;
  std::memcpy(&fcsr, mc + kMcontextFcsr, 4);
  s.fflags = fcsr & 0x1f;
  s.frm = (fcsr >> 5) & 0x7;
  u64 mask = 0;
  std::memcpy(&mask, uc + kUcSigmask, 8);
  t.blocked = mask & ~kUnblockable;
  s.reserved = false;
  // uc_stack restores the alternate stack settings, as restore_altstack() does.
  u64 ss_sp = 0, ss_size = 0;
  i32 ss_flags = 0;
  std::memcpy(&ss_sp, uc + kUcStack, 8);
  std::memcpy(&ss_flags, uc + kUcStack + 8, 4);
  std::memcpy(&ss_size, uc + kUcStack + 16, 8);
  const bool on_altstack =
      !t.altstack_disabled && s.x[2] > t.altstack_sp && s.x[2] <= t.altstack_sp + t.altstack_size;
  if (!on_altstack) {
    t.altstack_disabled = (ss_flags & kSsDisable) != 0;
    t.altstack_sp = t.altstack_disabled ? 0 : ss_sp;
    t.altstack_size = t.altstack_disabled ? 0 : ss_size;
  }
  return static_cast<i64>(s.x[10]);  // the interrupted context's a0, unchanged
}

i64 Kernel::sysSigaction(Thread& /*t*/, u64 /*number*/, const SyscallArgs& a) {
  const u64 signal = a[0];
  if (signal < 1 || signal > 64 || a[3] != 8) return -abi::kEINVAL;
  if (a[2] != 0) {
    const SignalAction& old = signals_.action(signal);
    const u64 words[3] = {old.handler, old.flags, old.mask};
    if (!memory_.write(a[2], words, sizeof words)) return -abi::kEFAULT;
  }
  if (a[1] != 0) {
    if (signal == SIGKILL || signal == SIGSTOP) return -abi::kEINVAL;
    u64 words[3];
    if (!memory_.read(a[1], words, sizeof words)) return -abi::kEFAULT;
    signals_.action(signal) =
        SignalAction{words[0], words[1] & ~kSaRestorer, words[2] & ~kUnblockable};
    // Setting SIG_IGN discards pending instances (POSIX).
    if (words[0] == kSigIgn) {
      for (auto& t : threads_) {
        std::erase_if(t->pending,
                      [&](const SigInfo& p) { return p.signo == static_cast<i32>(signal); });
      }
      std::erase_if(signals_.processPending(),
                    [&](const SigInfo& p) { return p.signo == static_cast<i32>(signal); });
    }
  }
  (void)kSaSiginfo;  // riscv64 always passes siginfo and ucontext to the handler
  return 0;
}

i64 Kernel::sysSigprocmask(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  if (a[3] != 8) return -abi::kEINVAL;
  const u64 old = t.blocked;
  if (a[1] != 0) {
    u64 set = 0;
    if (!memory_.read(a[1], &set, 8)) return -abi::kEFAULT;
    switch (a[0]) {
      case SIG_BLOCK: t.blocked |= set; break;
      case SIG_UNBLOCK: t.blocked &= ~set; break;
      case SIG_SETMASK: t.blocked = set; break;
      default: return -abi::kEINVAL;
    }
    t.blocked &= ~kUnblockable;
  }
  if (a[2] != 0 && !memory_.write(a[2], &old, 8)) return -abi::kEFAULT;
  return 0;
}

i64 Kernel::sysSigaltstack(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  const u64 sp = t.hart().state().x[2];
  const bool on_altstack =
      !t.altstack_disabled && sp > t.altstack_sp && sp <= t.altstack_sp + t.altstack_size;
  if (a[1] != 0) {
    u8 old[24] = {};
    const i32 flags = t.altstack_disabled ? kSsDisable : (on_altstack ? kSsOnstack : 0);
    std::memcpy(old, &t.altstack_sp, 8);
    std::memcpy(old + 8, &flags, 4);
    std::memcpy(old + 16, &t.altstack_size, 8);
    if (!memory_.write(a[1], old, sizeof old)) return -abi::kEFAULT;
  }
  if (a[0] != 0) {
    u8 next[24];
    if (!memory_.read(a[0], next, sizeof next)) return -abi::kEFAULT;
    if (on_altstack) return -abi::kEPERM;
    u64 ss_sp = 0, ss_size = 0;
    i32 flags = 0;
    std::memcpy(&ss_sp, next, 8);
    std::memcpy(&flags, next + 8, 4);
    std::memcpy(&ss_size, next + 16, 8);
    if (flags & ~(kSsDisable | 0x80000000 /*SS_AUTODISARM*/)) return -abi::kEINVAL;
    if (flags & kSsDisable) {
      t.altstack_disabled = true;
      t.altstack_sp = t.altstack_size = 0;
    } else {
      if (ss_size < kMinSigstksz) return -abi::kENOMEM;
      t.altstack_disabled = false;
      t.altstack_sp = ss_sp;
      t.altstack_size = ss_size;
    }
  }
  return 0;
}

i64 Kernel::sysSigsuspend(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  if (a[1] != 8) return -abi::kEINVAL;
  u64 mask = 0;
  if (!memory_.read(a[0], &mask, 8)) return -abi::kEFAULT;
  t.saved_mask = t.blocked;
  t.blocked = mask & ~kUnblockable;
  if (signalPendingFor(t)) return -abi::kEINTR;  // delivered right away, with the saved mask
  block(t, WaitKind::kSigsuspend, std::nullopt);
  return kBlocked;
}

i64 Kernel::sysSigtimedwait(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  if (a[3] != 8) return -abi::kEINVAL;
  u64 set = 0;
  if (!memory_.read(a[0], &set, 8)) return -abi::kEFAULT;
  set &= ~kUnblockable;
  SigInfo info;
  if (takeSignal(t, set, info)) {
    if (a[1] != 0 && !memory_.write(a[1], &info, sizeof info)) return -abi::kEFAULT;
    return info.signo;
  }
  std::optional<u64> deadline;
  if (a[2] != 0) {
    abi::Timespec ts{};
    if (!memory_.read(a[2], &ts, sizeof ts)) return -abi::kEFAULT;
    if (ts.sec < 0 || ts.nsec < 0 || ts.nsec >= 1'000'000'000) return -abi::kEINVAL;
    deadline = cyclesAfter(t.clock(), cyclesFor(spanNanos(ts.sec, ts.nsec)));
  }
  t.sigwait_set = set;
  t.sigwait_info_addr = a[1];
  block(t, WaitKind::kSigwait, deadline);
  return kBlocked;
}

i64 Kernel::sysKill(Thread& t, u64 number, const SyscallArgs& a) {
  // kill(pid, sig), tkill(tid, sig), tgkill(tgid, tid, sig), rt_sigqueueinfo(pid, sig, info),
  // rt_tgsigqueueinfo(tgid, tid, sig, info).
  const bool to_thread = number != abi::kKill && number != abi::kRtSigqueueinfo;
  const bool has_tgid = number == abi::kTgkill || number == abi::kRtTgsigqueueinfo;
  const bool queued = number == abi::kRtSigqueueinfo || number == abi::kRtTgsigqueueinfo;
  const int sig_arg = has_tgid ? 2 : 1;
  const i64 signal = static_cast<i64>(a[sig_arg]);
  if (signal < 0 || signal > 64) return -abi::kEINVAL;
  SigInfo info;
  if (queued) {
    // The sender's siginfo, as given (sigqueue sets SI_QUEUE and the value); the process
    // sends to itself, so Linux's refusal of forged codes for other processes never applies.
    if (!memory_.read(a[sig_arg + 1], &info, sizeof info)) return -abi::kEFAULT;
  } else {
    info.code = number == abi::kKill ? 0 /*SI_USER*/ : -6 /*SI_TKILL*/;
    info.setPidUid(1, static_cast<u32>(::getuid()));
  }
  info.signo = static_cast<i32>(signal);
  if (!to_thread) {
    const i64 pid = static_cast<i32>(a[0]);
    if (queued ? pid != 1 : (pid != 1 && pid != 0 && pid != -1)) return -abi::kESRCH;
    if (signal == 0) return 0;
    // The sender itself takes it when it can, as Linux prefers the current thread.
    if (!(t.blocked & bit(info.signo))) {
      sendToThread(t, info, t.clock(), &t);
    } else {
      sendToProcess(info, t.clock(), &t);
    }
    return 0;
  }
  if (has_tgid && static_cast<i32>(a[0]) != 1) return -abi::kESRCH;
  const i32 tid = static_cast<i32>(a[has_tgid ? 1 : 0]);
  for (const auto& target : threads_) {
    if (target->tid() == tid && !target->exited) {
      if (signal != 0) sendToThread(*target, info, t.clock(), &t);
      return 0;
    }
  }
  return -abi::kESRCH;
}

std::string Kernel::signalReportName(int signal) {
  return fmt::format("{} ({})",
                     ::sigabbrev_np(signal) ? fmt::format("SIG{}", ::sigabbrev_np(signal))
                                            : fmt::format("signal {}", signal),
                     signalDescription(signal));
}

i64 Kernel::sysSigpending(Thread& t, u64 /*number*/, const SyscallArgs& a) {
  if (a[1] != 8) return -abi::kEINVAL;
  const u64 set = signals_.blockedPending(t);
  return memory_.write(a[0], &set, 8) ? 0 : -abi::kEFAULT;
}

}  // namespace hpm
