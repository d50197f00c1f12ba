// Ctrl-C (SIGINT) and SIGTERM end a simulation early without losing its results: the handler
// only records the signal; the running command polls for it between scheduling rounds, stops the
// simulation there (Kernel::interrupt) and writes its statistics and counts as at any other end,
// exiting with 128 + the signal. A second signal ends hpmsim at once (the handler is reset).
#pragma once

namespace hpm::tools {

// Installs the handlers and unblocks both signals (once, at start-up: a signal that arrives
// earlier has its default effect, unless it was blocked: then it is taken here).
void installInterruptHandlers();

// The first signal received since start-up, or 0.
int pendingInterrupt();

}  // namespace hpm::tools
