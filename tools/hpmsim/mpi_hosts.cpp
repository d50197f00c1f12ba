#include "tools/hpmsim/mpi_hosts.h"

#include <cstdlib>
#include <string>

#include "base/error.h"

#ifdef HPMSIM_MPI
#define OMPI_SKIP_MPICXX 1  // (the C interface only)
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <optional>
#include <string_view>
#include <vector>
#endif

namespace hpm::tools {

u32 hostProcesses() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (size == nullptr) return 1;
  const unsigned long n = std::strtoul(size, nullptr, 10);
  return n == 0 ? 1 : static_cast<u32>(n);
}

#ifdef HPMSIM_MPI
namespace {

using Clock = std::chrono::steady_clock;

// Each exchange is one message from every host to every other (tag kTag): a host's messages to
// another arrive in the order it sent them (MPI's non-overtaking rule), so a host that is one
// exchange ahead cannot be mistaken for this one's.
class MpiHosts final : public net::HostLink {
 public:
  MpiHosts(u32 nodes, int (*interrupted)()) : nodes_(nodes), interrupted_(interrupted) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    host_ = static_cast<u32>(rank);
    hosts_ = static_cast<u32>(size);
    // Who is where: a host on this machine that has ended is seen at once (its process is gone).
    Identity me{static_cast<i64>(::getpid()), {}};
    ::gethostname(me.name, sizeof me.name - 1);
    peers_.resize(hosts_);
    MPI_Allgather(&me, sizeof me, MPI_BYTE, peers_.data(), sizeof me, MPI_BYTE, MPI_COMM_WORLD);
    for (const Identity& p : peers_) {
      here_.push_back(std::string_view(p.name, ::strnlen(p.name, sizeof p.name)) ==
                      std::string_view(me.name));
    }
  }

  ~MpiHosts() override {
    // (After a failure the others may never reach MPI_Finalize's synchronisation: leave without
    // it, and mpirun ends the job.)
    if (!failed_ && std::uncaught_exceptions() == 0) MPI_Finalize();
  }

  u32 hosts() const override { return hosts_; }
  u32 host() const override { return host_; }
  u64 bytesSent() const override { return bytes_sent_; }
  double waitSeconds() const override { return wait_seconds_; }

  // Every message is received with MPI_Improbe and MPI_Imrecv and every request completed with
  // MPI_Test, never a blocking call: a host that dies in the middle of an exchange (after
  // sending its message but before receiving this one's, or halfway through a large message)
  // leaves a request that never completes, and the loop must keep checking on it.
  std::vector<std::string> exchange(std::vector<std::string> to) override {
    const Clock::time_point start = Clock::now();
    std::vector<std::string> from(hosts_);
    // By host: its send, its receive (both MPI_REQUEST_NULL once done), whether its message
    // has been matched.
    std::vector<MPI_Request> sends(hosts_, MPI_REQUEST_NULL), receives(hosts_, MPI_REQUEST_NULL);
    std::vector<u8> matched(hosts_, 0);
    for (u32 h = 0; h < hosts_; ++h) {
      if (h == host_) continue;
      MPI_Isend(to[h].data(), static_cast<int>(to[h].size()), MPI_BYTE, static_cast<int>(h), kTag,
                MPI_COMM_WORLD, &sends[h]);
      bytes_sent_ += to[h].size();
    }
    matched[host_] = 1;
    // By host: whether this exchange still waits on it (its message, or ours to it).
    std::vector<u8> owed(hosts_, 0);
    Clock::time_point checked = start;
    for (;;) {
      bool progress = false, done = true;
      for (u32 h = 0; h < hosts_; ++h) {
        if (matched[h] == 0) {
          int flag = 0;
          MPI_Message message;
          MPI_Status status;
          MPI_Improbe(static_cast<int>(h), kTag, MPI_COMM_WORLD, &flag, &message, &status);
          if (flag != 0) {
            int count = 0;
            MPI_Get_count(&status, MPI_BYTE, &count);
            from[h].resize(static_cast<std::size_t>(count));
            MPI_Imrecv(from[h].data(), count, MPI_BYTE, &message, &receives[h]);
            matched[h] = 1;
            progress = true;
          }
        }
        for (MPI_Request* r : {&sends[h], &receives[h]}) {
          if (*r == MPI_REQUEST_NULL) continue;
          int flag = 0;
          MPI_Test(r, &flag, MPI_STATUS_IGNORE);  // (sets *r to MPI_REQUEST_NULL when done)
          progress = progress || flag != 0;
        }
        owed[h] =
            matched[h] == 0 || sends[h] != MPI_REQUEST_NULL || receives[h] != MPI_REQUEST_NULL;
        done = done && owed[h] == 0;
      }
      if (done) break;
      if (progress) continue;
      ::sched_yield();  // (more host processes than cores: let the others run)
      const Clock::time_point now = Clock::now();
      if (now - checked > std::chrono::milliseconds(10)) {
        checked = now;
        checkPeers(owed, now);
      }
    }
    wait_seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
    return from;
  }

 private:
  static constexpr int kTag = 24;
  struct Identity {
    i64 pid;
    char name[256];
  };

  // A host the exchange still waits on (`owed`): gone if it was on this machine and its process
  // has ended, or if it has not answered half a second after Ctrl-C reached this process (mpirun
  // sends every process SIGTERM when one ends, and SIGKILL a second later).
  void checkPeers(const std::vector<u8>& owed, Clock::time_point now) {
    if (interrupted_ != nullptr && interrupted_() != 0 && !interrupted_at_) {
      interrupted_at_ = now;
    }
    for (u32 h = 0; h < hosts_; ++h) {
      if (owed[h] == 0) continue;
      if (here_[h] && ::kill(static_cast<pid_t>(peers_[h].pid), 0) != 0 && errno == ESRCH) {
        gone(h, "its process ended");
      }
      if (interrupted_at_ && now - *interrupted_at_ > std::chrono::milliseconds(500)) {
        gone(h, "it did not answer within 0.5 s of the interrupt");
      }
    }
  }

  [[noreturn]] void gone(u32 h, const char* why) {
    failed_ = true;
    const net::NodeBlock b = net::nodeBlock(nodes_, hosts_, h);
    fail(ExitCode::kHost,
         "host rank {} (pid {} on {}), which simulated nodes {} to {}, stopped before the run "
         "ended ({}); the run stops without results",
         h, peers_[h].pid,
         std::string_view(peers_[h].name, ::strnlen(peers_[h].name, sizeof peers_[h].name)),
         b.first, b.last - 1, why);
  }

  u32 nodes_;
  int (*interrupted_)();
  u32 host_ = 0;
  u32 hosts_ = 1;
  std::vector<Identity> peers_;
  std::vector<bool> here_;  // by host: on this machine (its pid can be checked)
  u64 bytes_sent_ = 0;
  double wait_seconds_ = 0;
  bool failed_ = false;
  std::optional<Clock::time_point> interrupted_at_;
};

}  // namespace

std::unique_ptr<net::HostLink> joinHosts(u32 nodes, int (*interrupted)()) {
  if (hostProcesses() <= 1) return nullptr;
  return std::make_unique<MpiHosts>(nodes, interrupted);
}

#else

std::unique_ptr<net::HostLink> joinHosts(u32, int (*)()) {
  if (hostProcesses() <= 1) return nullptr;
  fail(ExitCode::kUsage,
       "started by mpirun with {} processes, but this hpmsim was built without Open MPI "
       "(install libopenmpi-dev and build again: scripts/deps.sh test)",
       hostProcesses());
}

#endif

}  // namespace hpm::tools
