// Ctrl-C (SIGINT) and SIGTERM end a simulation early without losing its results: the handler
// only records the signal; the running command polls for it between scheduling rounds, stops the
// simulation there (Kernel::interrupt) and writes its statistics and counts as at any other end,
// exiting with 128 + the signal. A second signal within a second of the first is the same
// request (`timeout` or a shell may deliver one Ctrl-C twice); one after that ends hpmsim at
// once, by the signal, but never while a results file is being written (ResultsWriting).
#pragma once

namespace hpm::tools {

// Installs the handlers and unblocks both signals (once, at start-up: a signal that arrives
// earlier has its default effect, unless it was blocked: then it is taken here).
void installInterruptHandlers();

// The first signal received since start-up, or 0.
int pendingInterrupt();

// While one exists, a forced stop (a later SIGINT or SIGTERM) waits: it ends hpmsim when the
// last one is destroyed, so that no results file is left cut short.
class ResultsWriting {
 public:
  ResultsWriting();
  ~ResultsWriting();
  ResultsWriting(const ResultsWriting&) = delete;
  ResultsWriting& operator=(const ResultsWriting&) = delete;
};

}  // namespace hpm::tools
