// Drives the link between host processes (tools/hpmsim/mpi_hosts.h) alone, under mpirun, to put
// a host's death at an exact point of an exchange, which a whole simulation cannot:
//
//   host_link_driver sender-dies   (2 processes) host 1 sends its message and dies (SIGALRM,
//                                  0.2 s) while waiting for host 0's; host 0 starts the exchange
//                                  1 s in, with a message too large to be sent without host 1
//                                  taking part: it must name host 1 and exit, not wait forever.
//   host_link_driver exchange N    every host exchanges N bytes with every other, 100 times,
//                                  and checks what it received.
//
// Exits 0 when the scenario ran as it should, with hpmsim's message and status on a failure.
#include <sys/time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "tools/hpmsim/interrupt.h"
#include "tools/hpmsim/mpi_hosts.h"

namespace {

using hpm::u32;

constexpr u32 kNodes = 4;  // (only named in messages: host 1 of 2 holds nodes 2 to 3)

// What host `from` sends host `to` in exchange `round`: `size` bytes that say who and when.
std::string message(u32 from, u32 to, int round, std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = static_cast<char>(from * 7 + to * 3 + round + i);
  return s;
}

int senderDies(hpm::net::HostLink& link) {
  std::vector<std::string> to(2);
  if (link.host() == 1) {
    to[0] = "small";  // (sent at once: Open MPI's eager protocol)
    // (SIGALRM's default action ends the process in the middle of the exchange.)
    const itimerval in_200_ms{{0, 0}, {0, 200'000}};
    ::setitimer(ITIMER_REAL, &in_200_ms, nullptr);
    link.exchange(std::move(to));
    std::fprintf(stderr, "host 1 was not ended by its alarm\n");
    return 1;
  }
  // Past host 1's death (mpirun's SIGTERM interrupts no sleep: the handler only records it).
  std::this_thread::sleep_until(std::chrono::steady_clock::now() + std::chrono::seconds(1));
  to[1] = std::string(std::size_t{4} << 20, 'x');  // (needs the receiver: rendezvous)
  link.exchange(std::move(to));
  std::fprintf(stderr, "host 0's exchange returned although host 1 had died\n");
  return 1;
}

int exchanges(hpm::net::HostLink& link, std::size_t size) {
  const u32 hosts = link.hosts(), me = link.host();
  for (int round = 0; round < 100; ++round) {
    std::vector<std::string> to(hosts);
    for (u32 h = 0; h < hosts; ++h) {
      if (h != me) to[h] = message(me, h, round, size);
    }
    const std::vector<std::string> from = link.exchange(std::move(to));
    for (u32 h = 0; h < hosts; ++h) {
      if (from[h] != (h == me ? std::string() : message(h, me, round, size))) {
        std::fprintf(stderr, "host %u, round %d: wrong message from host %u\n", me, round, h);
        return 1;
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  hpm::tools::installInterruptHandlers();
  const std::string scenario = argc > 1 ? argv[1] : "";
  try {
    const auto link = hpm::tools::joinHosts(kNodes, hpm::tools::pendingInterrupt);
    if (link == nullptr) {
      std::fprintf(stderr, "host_link_driver: start it under mpirun\n");
      return 2;
    }
    if (scenario == "sender-dies" && link->hosts() == 2) return senderDies(*link);
    if (scenario == "exchange" && argc == 3) {
      return exchanges(*link, std::strtoull(argv[2], nullptr, 10));
    }
    std::fprintf(stderr, "host_link_driver: unknown scenario\n");
    return 2;
  } catch (const hpm::Error& e) {
    std::fprintf(stderr, "hpmsim: error: %s\n", e.what());
    return static_cast<int>(e.code());
  }
}
