// Guest MPI programs on many simulated nodes (`hpmsim run --nodes N`): their results against
// the sequential answers and against the same sources built for the host and run under Debian's
// Open MPI; determinism; and how a job ends when a node fails, deadlocks or aborts.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using hpm::test::RunResult;
using hpm::test::TempDir;
using nlohmann::json;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const std::string kGuestBin = HPM_TEST_GUEST_BIN_DIR;
const std::string kHostBin = HPM_TEST_HOST_MPI_DIR;
const std::string kMpirun = HPM_TEST_MPIRUN;
constexpr std::chrono::seconds kTimeout{300};

RunResult run(const std::vector<std::string>& argv, const fs::path& cwd,
              std::vector<std::string> env = {}) {
  env.insert(env.end(), {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"});
  return hpm::test::runProcess(argv, env, "", cwd, kTimeout);
}

RunResult hpmsim(const std::vector<std::string>& args, const fs::path& cwd) {
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, cwd);
}

using hpm::test::readFile;

// Each node's standard output of a run of `program` on `nodes` simulated nodes.
std::vector<std::string> simulatedOutputs(const std::string& program,
                                          const std::vector<std::string>& args, int nodes) {
  TempDir dir("hpm-mpi");
  std::vector<std::string> argv = {"run", "--nodes", std::to_string(nodes), "--node-output", "."};
  argv.push_back("--");
  argv.push_back(kGuestBin + "/" + program);
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = hpmsim(argv, dir.path());
  EXPECT_EQ(r.status(), 0) << r.describe();
  std::vector<std::string> out;
  for (int n = 0; n < nodes; ++n) {
    out.push_back(readFile(dir.path() / ("node-" + std::to_string(n) + ".stdout")));
  }
  return out;
}

// Each rank's standard output of the host build under Open MPI's mpirun with `ranks` processes.
std::vector<std::string> openMpiOutputs(const std::string& program,
                                        const std::vector<std::string>& args, int ranks) {
  TempDir dir("hpm-ompi");
  std::vector<std::string> argv = {
      kMpirun, "--oversubscribe",       "-np", std::to_string(ranks), "--output-filename",
      "out",   kHostBin + "/" + program};
  argv.insert(argv.end(), args.begin(), args.end());
  // (Open MPI refuses to run as root unless told; the CI machine runs the tests as root. Its
  // one-sided component "rdma" dies in MPI_Compare_and_swap over shared memory, in
  // mca_btl_vader_emu_acswap (Debian 12's Open MPI 4.1.4): "pt2pt", its other one, is used.)
  const RunResult r =
      run(argv, dir.path(),
          {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
           "OMPI_MCA_plm_rsh_agent=", "OMPI_MCA_osc=pt2pt", "TMPDIR=" + dir.path().string()});
  EXPECT_EQ(r.status(), 0) << r.describe();
  std::vector<std::string> out;
  for (int n = 0; n < ranks; ++n) {
    out.push_back(readFile(dir.path() / "out" / "1" / ("rank." + std::to_string(n)) / "stdout"));
  }
  return out;
}

TEST(MpiGuest, TheRingPassesTheTokenRoundEveryNodeCount) {
  for (int nodes : {1, 2, 3, 4, 8}) {
    const auto out = simulatedOutputs("mpi_ring", {"3"}, nodes);
    ASSERT_EQ(out.size(), static_cast<std::size_t>(nodes));
    const long token = 3L * nodes * (nodes - 1) / 2;
    EXPECT_NE(out[0].find("ring: " + std::to_string(nodes) + " ranks, 3 laps, token " +
                          std::to_string(token) + "\n"),
              std::string::npos)
        << out[0];
    for (int r = 0; r < nodes; ++r) {
      const int prev = (r + nodes - 1) % nodes;
      EXPECT_NE(out[r].find("rank " + std::to_string(r) + " got " + std::to_string(prev) +
                            " from " + std::to_string(prev) + " (tag 99, 1 int)"),
                std::string::npos)
          << nodes << " nodes, rank " << r << ": " << out[r];
    }
  }
}

TEST(MpiGuest, EveryCollectiveMatchesTheSequentialResultOnEveryNodeCount) {
  for (int nodes : {1, 2, 3, 5, 8}) {
    const auto out = simulatedOutputs("mpi_collectives", {}, nodes);
    EXPECT_NE(out[0].find("collectives: " + std::to_string(nodes) + " ranks, all passed"),
              std::string::npos)
        << out[0];
  }
}

TEST(MpiGuest, TheBlueGenePTorusRunsTheSameCollectives) {
  TempDir dir("hpm-mpi");
  const RunResult r =
      hpmsim({"run", "--machine", "bgp", "--nodes", "4", "--", kGuestBin + "/mpi_collectives"},
             dir.path());
  EXPECT_EQ(r.status(), 0) << r.describe();
  EXPECT_NE(r.out.find("[0] collectives: 4 ranks, all passed"), std::string::npos) << r.out;
}

// The same sources built for the host and run under Open MPI print the same bytes on every
// rank: the ring, messages on both sides of the rendezvous cutoff in the orders MPI's matching
// rules fix, the collectives' checks, the Cartesian topology's coordinates, neighbours and
// sub-grids (MPI_Dims_create's shapes included), groups and the communicators made from them,
// user-defined reductions (a non-commutative one in rank order) and complex types, collectives
// on sub-communicators (bgq's classes), non-blocking collectives (one of which completes only if
// it progresses while its rank waits in MPI_Recv), persistent requests, a cancelled receive and
// buffered sends, derived datatypes (every constructor's bounds as Open MPI computes them, and
// in point-to-point, collective and non-blocking calls, a darray's empty part included),
// one-sided communication (fence, post/start/complete/wait and passive-target epochs), error
// handlers (the error classes MPI_ERRORS_RETURN gives back, inherited and user handlers), the
// profiling interface (a program's own MPI_Send over PMPI_Send, linked statically), graph and
// distributed graph topologies with the neighbourhood collectives (on grids whose periodic
// dimensions of 2 or 1 make a process both neighbours, or its own), synchronous sends that are
// not complete before their receive is posted, complex products in reductions (each product
// rounded apart, as on the host: libmpi is built without fused multiply-adds), the
// stencil's sums and CG's residuals (both
// programs add partial sums in rank order and are built without fused multiply-adds, so the numbers
// are the same bits).
TEST(MpiGuest, EveryRankPrintsWhatTheHostBuildPrintsUnderOpenMpi) {
  struct Case {
    std::string program;
    std::vector<std::string> args;
    int ranks;
  };
  for (const Case& c : {Case{"mpi_ring", {"5"}, 4},
                        Case{"mpi_collectives", {}, 4},
                        Case{"mpi_collectives", {"40"}, 3},
                        Case{"mpi_stencil", {"64", "40"}, 4},
                        Case{"mpi_cg", {"48"}, 4},
                        Case{"mpi_cg", {"40"}, 3},
                        Case{"mpi_topology", {}, 6},
                        Case{"mpi_topology", {}, 4},
                        Case{"mpi_rendezvous", {}, 3},
                        Case{"mpi_rendezvous", {"2049"}, 2},
                        Case{"mpi_groups", {}, 4},
                        Case{"mpi_groups", {}, 5},
                        Case{"mpi_subcomm", {}, 8},
                        Case{"mpi_nbc", {}, 3},
                        Case{"mpi_nbc", {}, 5},
                        Case{"mpi_persist", {}, 3},
                        Case{"mpi_dtype", {}, 3},
                        Case{"mpi_dtype", {}, 5},
                        Case{"mpi_dtype", {}, 8},
                        Case{"mpi_rma", {}, 2},
                        Case{"mpi_rma", {}, 5},
                        Case{"mpi_rma", {}, 8},
                        Case{"mpi_errhandler", {}, 1},
                        Case{"mpi_errhandler", {}, 4},
                        Case{"mpi_profile", {}, 1},
                        Case{"mpi_profile", {}, 3},
                        Case{"mpi_graph", {}, 1},
                        Case{"mpi_graph", {}, 2},
                        Case{"mpi_graph", {}, 5},
                        Case{"mpi_graph", {}, 8},
                        Case{"mpi_cprod", {}, 2},
                        Case{"mpi_cprod", {}, 3},
                        Case{"mpi_cprod", {}, 5}}) {
    const auto sim = simulatedOutputs(c.program, c.args, c.ranks);
    const auto host = openMpiOutputs(c.program, c.args, c.ranks);
    ASSERT_EQ(sim.size(), host.size());
    for (int r = 0; r < c.ranks; ++r) {
      EXPECT_EQ(sim[r], host[r]) << c.program << " rank " << r << " of " << c.ranks;
    }
    EXPECT_FALSE(sim[0].empty()) << c.program;
  }
}

// MPI's Fortran bindings (mpif.h, the mpi module) print on every rank what Open MPI's print for
// the same Fortran sources, on 1, 2, 4 and 8 nodes: point-to-point calls with their status fields
// (MPI_SOURCE, MPI_TAG, MPI_Get_count), MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE, indices from 1
// (MPI_Waitany, MPI_Waitsome), persistent requests, a cancelled receive and buffered sends, and
// Fortran's types (CHARACTER, LOGICAL, INTEGER*8, REAL*4, the complex ones); every collective,
// blocking and not, with MPI_IN_PLACE, MAXLOC and MINLOC on Fortran's pairs, the logical
// operations on LOGICAL and user-defined operations written in Fortran (a non-commutative one in
// rank order); communicators, groups, Cartesian grids, info objects (CHARACTER keys and values)
// and error handling (MPI_ERRORS_RETURN, a handler written in Fortran) through mpif.h; derived
// datatypes (every constructor's bounds, a structure sent from MPI_BOTTOM by absolute addresses, a
// Fortran-order subarray, MPI_Pack and MPI_Unpack); one-sided calls (fences, locks,
// post-start-complete-wait, a window MPI_Win_allocate made); graph and distributed graph
// topologies (MPI_UNWEIGHTED among their weights) with neighbourhood collectives, and MPI_Issend.
TEST(MpiGuest, EveryRankOfAFortranProgramPrintsWhatOpenMpisFortranBindingsPrint) {
  for (const char* program :
       {"mpif_p2p", "mpif_coll", "mpif_comm", "mpif_dtype", "mpif_rma", "mpif_topo"}) {
    for (int ranks : {1, 2, 4, 8}) {
      const auto sim = simulatedOutputs(program, {}, ranks);
      const auto host = openMpiOutputs(program, {}, ranks);
      ASSERT_EQ(sim.size(), host.size());
      for (int r = 0; r < ranks; ++r) {
        EXPECT_EQ(sim[r], host[r]) << program << " rank " << r << " of " << ranks;
      }
      EXPECT_NE(sim[0].find("rank 0 of " + std::to_string(ranks)), std::string::npos)
          << program << ": " << sim[0];
    }
  }
}

// One process per node, and nodes share no memory: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
// leaves each process alone, a shared window over that communicator is the process's own memory,
// and one over more processes is refused (on one host Open MPI puts them together, so this is
// the simulator's alone).
TEST(MpiGuest, EachProcessIsAloneInItsSharedMemoryCommunicator) {
  // (4 ranks: on 3 the program translates a rank its group of odd ranks does not have, which
  // MPI's default error handler makes the end of the job, as under Open MPI.)
  const auto out = simulatedOutputs("mpi_groups", {"shared"}, 4);
  ASSERT_EQ(out.size(), 4u);
  for (const std::string& o : out) {
    EXPECT_NE(o.find("shared-memory comm: size 1\n"), std::string::npos) << o;
    EXPECT_NE(o.find("shared window: 16 bytes, unit 4, same memory yes, holds "), std::string::npos)
        << o;
    EXPECT_NE(o.find("shared window over the world: MPI_ERR_RMA_SHARED\n"), std::string::npos) << o;
    EXPECT_NE(o.find("groups freed: yes\n"), std::string::npos) << o;
  }
}

// A run's statistics with its standard output ("stdout"); `host`: with what depends on the
// host (seconds, speed, memory), else without.
json statsOf(const std::vector<std::string>& args, bool host = false) {
  TempDir dir("hpm-mpi");
  std::vector<std::string> argv = {"run", "--stats-json", "stats.json"};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = hpmsim(argv, dir.path());
  EXPECT_EQ(r.status(), 0) << r.describe();
  json j = json::parse(std::ifstream(dir.path() / "stats.json"));
  j["stdout"] = r.out;
  j.erase("command");
  if (host) return j;
  for (const char* key : {"host_seconds", "host_peak_rss_kib", "mips"}) j.erase(key);
  return j;
}

TEST(MpiGuest, TheSameJobGivesTheSameOutputCountsAndCyclesOnEveryRun) {
  for (const char* mode : {"timing", "functional"}) {
    const std::vector<std::string> args = {
        "--mode", mode, "--nodes", "4", "--", kGuestBin + "/mpi_cg", "32"};
    const json a = statsOf(args);
    const json b = statsOf(args);
    EXPECT_EQ(a, b) << mode;
    EXPECT_GT(a.at("network").at("packets_delivered").get<unsigned long>(), 0u) << mode;
  }
}

// The links' ground truth (what the NWUnit counts) is exactly what dimension-order routing
// says: every packet a message unit sent to a node crosses each link of the route there once,
// and nothing else crosses any link. Checked on a ring, a 2x2x2 and a 3x3 torus, the route
// walked here by the documented rule (first dimension first, the shorter way round, plus on a
// tie).
TEST(MpiGuest, EachLinkCarriesExactlyThePacketsAndChunksItsRoutesGiveIt) {
  for (const std::string shape : {"4x1x1x1x1", "2x2x2x1x1", "3x3x1x1x1"}) {
    const json s =
        statsOf({"--set", "network.shape=" + shape, "--", kGuestBin + "/mpi_collectives", "20"});
    std::vector<unsigned> dims;
    for (std::size_t at = 0; at < shape.size(); at += 2) dims.push_back(shape[at] - '0');
    const unsigned nd = static_cast<unsigned>(dims.size());
    std::map<std::tuple<unsigned, unsigned, std::string>, std::pair<unsigned long, unsigned long>>
        expected;  // (node, dimension, direction) -> (packets, chunks)
    const auto coord = [&](unsigned node, unsigned d) {
      unsigned stride = 1;
      for (unsigned k = d + 1; k < nd; ++k) stride *= dims[k];
      return node / stride % dims[d];
    };
    const auto step = [&](unsigned node, unsigned d, int delta) {
      unsigned stride = 1;
      for (unsigned k = d + 1; k < nd; ++k) stride *= dims[k];
      const unsigned c = coord(node, d);
      const unsigned to = (c + dims[d] + delta) % dims[d];
      return node - c * stride + to * stride;
    };
    const json& units = s.at("message_units");
    for (unsigned src = 0; src < units.size(); ++src) {
      for (const json& t : units[src].at("sent_to")) {
        const unsigned dst = t.at("node");
        unsigned at = src;
        for (unsigned d = 0; d < nd; ++d) {
          while (coord(at, d) != coord(dst, d)) {
            const unsigned plus = (coord(dst, d) + dims[d] - coord(at, d)) % dims[d];
            const bool up = plus <= dims[d] - plus;
            auto& e = expected[{at, d, up ? "+" : "-"}];
            e.first += t.at("packets").get<unsigned long>();
            e.second += t.at("chunks").get<unsigned long>();
            at = step(at, d, up ? 1 : -1);
          }
        }
      }
    }
    std::map<std::tuple<unsigned, unsigned, std::string>, std::pair<unsigned long, unsigned long>>
        actual;
    for (const json& l : s.at("network").at("links")) {
      // (Point-to-point packets: bgq's collectives go on the collective channels, by their
      // class routes' trees, not by these routes.)
      const unsigned long coll_packets = l.value("collective_packets", 0ul);
      const unsigned long coll_chunks = l.value("collective_chunks", 0ul);
      if (l.at("packets").get<unsigned long>() == coll_packets) continue;
      actual[{l.at("node"), l.at("dimension"), l.at("direction")}] = {
          l.at("packets").get<unsigned long>() - coll_packets,
          l.at("chunks").get<unsigned long>() - coll_chunks};
    }
    EXPECT_FALSE(actual.empty()) << shape;
    EXPECT_EQ(actual, expected) << shape;
  }
}

// The message unit's registers driven by a guest without libmpi (guest/mpi/mu_raw.c): identity,
// a refused descriptor, a write with no register, narrow stores (ignored), a message to oneself,
// and a reception FIFO too small for what arrives: the packets wait in the unit, then arrive in
// order and intact, after skip headers at the FIFO's end. In both run modes.
TEST(MpiGuest, TheMessageUnitsRegistersBehaveAsDocumented) {
  for (const char* mode : {"timing", "functional"}) {
    const json s = statsOf({"--mode", mode, "--nodes", "2", "--", kGuestBin + "/mu_raw", "20"});
    const std::string& out = s.at("stdout").get_ref<const std::string&>();
    for (int r : {0, 1}) {
      const std::string p = "[" + std::to_string(r) + "] rank " + std::to_string(r);
      EXPECT_NE(out.find(p + " of 2, 5 dimensions, shape 0x101010102, coords " +
                         (r == 0 ? "0" : "0x1") + ", max payload 512, header 32"),
                std::string::npos)
          << out;
      EXPECT_NE(out.find(p + ": refused 1, done 1, reserved reads 0"), std::string::npos) << out;
      EXPECT_NE(out.find(p + ": narrow stores changed nothing: yes"), std::string::npos) << out;
      EXPECT_NE(out.find(p + ": 10 bytes from " + std::to_string(r) + ", tag 7: to myself"),
                std::string::npos)
          << out;
      const json& unit = s.at("message_units").at(r);
      EXPECT_EQ(unit.at("descriptor_errors"), 1) << mode;
      EXPECT_EQ(unit.at("reserved_writes"), 1) << mode;
    }
    EXPECT_NE(out.find("[0] rank 0: received 20 messages in order and intact: yes, skip headers "
                       "seen: yes"),
              std::string::npos)
        << out;
    EXPECT_GT(s.at("message_units").at(0).at("fifo_full_waits").get<int>(), 0) << mode;
    EXPECT_EQ(s.at("message_units").at(0).at("packets_received"), 21) << mode;
  }
}

// A hostile guest (guest/mpi/mu_hostile.c) costs the host only what the unit's bounds allow
// (message_unit.h): a tail written far past any ring refuses what the ring cannot hold without
// reading it; a 4 GiB descriptor is checked before its payload is touched and sent a packet at
// a time; a reception FIFO never drained holds packets in the network (back-pressure up to the
// sender's port) instead of in the unit; a chain of remote gets that fans out eightfold at each
// hop waits in the unit's bounded queue. Each run ends by itself in bounded host memory.
TEST(MpiGuest, AHostileGuestOfTheMessageUnitCostsTheHostOnlyBoundedMemoryAndTime) {
  const auto hostile = [](const char* scenario) {
    return statsOf({"--nodes", "2", "--", kGuestBin + "/mu_hostile", scenario, "20"}, true);
  };
  constexpr unsigned long kHold = 4ul << 20;  // MessageUnit::kHoldBytes
  constexpr unsigned long kMostRssKib = 1ul << 20;
  const json tail = hostile("tail");
  const std::string& out = tail.at("stdout").get_ref<const std::string&>();
  for (int r : {0, 1}) {
    const std::string p = "[" + std::to_string(r) + "] rank " + std::to_string(r);
    EXPECT_NE(out.find(p + ": no ring: errors 1099511627776, done 1099511627776, tail "
                           "1099511627776"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find(p + ": 64-entry ring: errors 1099528404992, done 1099528404992, tail "
                           "1099528404992"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find(p + ": a ring of 2^40 entries reads back as 4096"), std::string::npos)
        << out;
    EXPECT_EQ(tail.at("message_units").at(r).at("ring_overflows"), 1099528404992 - 64);
  }
  const json huge = hostile("huge");
  EXPECT_NE(huge.at("stdout").get<std::string>().find(
                "[0] rank 0: refused 1 of 2 descriptors of 4 GiB\n[0] rank 0: done 1 of 2"),
            std::string::npos)
      << huge.at("stdout");
  for (const char* scenario : {"flood", "gets"}) {
    const json s = hostile(scenario);
    for (int r : {0, 1}) {
      EXPECT_LE(s.at("message_units").at(r).at("most_held_bytes").get<unsigned long>(), kHold)
          << scenario;
    }
    EXPECT_LT(s.at("host_peak_rss_kib").get<unsigned long>(), kMostRssKib) << scenario;
    // (The bounds, not the run's end, held the traffic back: ports waited.)
    EXPECT_GT(s.at("message_units").at(1).at("injection_stalls").get<unsigned long>(), 0u)
        << scenario;
    if (std::string(scenario) == "flood") {
      EXPECT_GT(s.at("network").at("reception_holds").get<unsigned long>(), 0u);
    }
  }
  EXPECT_LT(huge.at("host_peak_rss_kib").get<unsigned long>(), kMostRssKib);
}

// A guest reads the network's counters through BGPM: on a ring each rank sends one 1000-byte
// message (2 packets, 34 chunks) to the next over its A+ link and receives one over its A-
// link while it counts; every rank's NWUnit and IOUnit counts are exactly those.
TEST(MpiGuest, BgpmCountsEachRanksLinksAndMessageUnitExactly) {
  for (int nodes : {2, 4, 6}) {
    TempDir dir("hpm-mpi");
    const RunResult r =
        hpmsim({"run", "--set", "network.shape=" + std::to_string(nodes) + "x1x1x1x1", "--",
                kGuestBin + "/mpi_nw_counters"},
               dir.path());
    EXPECT_EQ(r.status(), 0) << r.describe();
    for (int k = 0; k < nodes; ++k) {
      // (Two nodes: both links of A reach the one neighbour; the plus one carries the send, the
      // minus one receives.)
      const std::string line =
          "[" + std::to_string(k) + "] rank " + std::to_string(k) +
          ": chunks sent 34 (A+ 34, A- 0), packets received 2 (A- 2, A+ 0), for it 2, dynamic 0; "
          "mu packets 2, messages 1, received 2; got " +
          std::to_string((k + nodes - 1) % nodes) + "\n";
      EXPECT_NE(r.out.find(line), std::string::npos) << nodes << " nodes:\n" << r.out;
    }
  }
}

// The windows do not change a node's run: a one-thread program on one node of a many-node run
// (paused at every window's end) retires the same instructions in the same cycles, with every
// statistic of the node the same, as a plain run (standard output to a file in both, which the
// guest's stdio sees).
// A node of a many-node run is paused at every window's end (Kernel::setPausePoint): it runs
// exactly as alone, slice for slice, one thread or many (a slice that a window's end cut goes
// on where it stopped: Kernel::CutSlice).
TEST(MpiGuest, APausedNodeRunsAsAnUnpausedOneWithOneThreadOrMany) {
  for (const char* name : {"strings", "omp_loops"}) {  // (omp_loops: 64 threads on bgq)
    SCOPED_TRACE(name);
    TempDir dir("hpm-mpi");
    const std::string program = kGuestBin + "/" + name;
    RunResult r = run({"/bin/sh", "-c",
                       "'" + kHpmsim + "' run --env-clear --stats-json plain.json -- '" + program +
                           "' > plain.out"},
                      dir.path());
    ASSERT_EQ(r.status(), 0) << r.describe();
    r = hpmsim({"run", "--env-clear", "--nodes", "1", "--node-output", ".", "--stats-json",
                "nodes.json", "--", program},
               dir.path());
    ASSERT_EQ(r.status(), 0) << r.describe();
    const json plain = json::parse(std::ifstream(dir.path() / "plain.json"));
    const json nodes = json::parse(std::ifstream(dir.path() / "nodes.json"));
    const json& node = nodes.at("nodes").at(0);
    EXPECT_GT(nodes.at("network").at("windows").get<unsigned long>(), 1000u);
    EXPECT_EQ(plain.at("kernel").at("threads_created"), name == std::string("strings") ? 0 : 63);
    EXPECT_EQ(node.at("instructions"), plain.at("instructions"));
    EXPECT_EQ(node.at("cycles"), plain.at("cycles"));
    EXPECT_EQ(node.at("timing"), plain.at("timing"));
    EXPECT_EQ(node.at("kernel"), plain.at("kernel"));  // (its scheduler's slices too)
    EXPECT_EQ(readFile(dir.path() / "node-0.stdout"), readFile(dir.path() / "plain.out"));
  }
}

// Ctrl-C (SIGINT to hpmsim's process group) ends every node: the node running then is
// interrupted (status 130) and ends the others as a failing node does; the statistics of the
// run so far are written, and every node says why it ended.
TEST(MpiGuest, CtrlCEndsEveryNodeAndStillWritesTheResults) {
  TempDir dir("hpm-mpi");
  std::vector<std::string> argv = {kHpmsim,        "run",    "--nodes", "4",
                                   "--stats-json", "s.json", "--",      kGuestBin + "/mpi_stencil",
                                   "256",          "1000000"};
  const RunResult r =
      hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", dir.path(),
                            kTimeout, 64u << 20, {std::chrono::seconds(1), SIGINT});
  EXPECT_EQ(r.status(), 128 + SIGINT) << r.describe();
  EXPECT_NE(r.err.find(": hpmsim: interrupted by SIGINT (interrupt) at cycle "), std::string::npos)
      << r.err;
  for (int n = 0; n < 4; ++n) {
    EXPECT_NE(r.err.find("node " + std::to_string(n) + ": hpmsim: "), std::string::npos) << r.err;
  }
  const json j = json::parse(std::ifstream(dir.path() / "s.json"));
  EXPECT_EQ(j.at("exit_status"), 128 + SIGINT);
  EXPECT_GT(j.at("instructions").get<unsigned long>(), 0u);
  EXPECT_EQ(j.at("nodes").size(), 4u);
}

TEST(MpiGuest, AFailingNodeEndsTheJobWithItsStatusAndTheOthersSayWhy) {
  TempDir dir("hpm-mpi");
  const RunResult r =
      hpmsim({"run", "--nodes", "4", "--", kGuestBin + "/mpi_fail", "exit", "2", "7"}, dir.path());
  EXPECT_EQ(r.status(), 7) << r.describe();
  EXPECT_NE(r.out.find("[2] rank 2 exits"), std::string::npos) << r.out;
  for (int n : {0, 1, 3}) {
    EXPECT_NE(r.err.find("node " + std::to_string(n) + ": hpmsim: node " + std::to_string(n) +
                         " ended at cycle"),
              std::string::npos)
        << r.err;
  }
  EXPECT_NE(r.err.find("node 2 failed (exit status 7)"), std::string::npos) << r.err;
}

TEST(MpiGuest, AJobWhoseRanksAllWaitForNothingIsADeadlock) {
  TempDir dir("hpm-mpi");
  const RunResult r = hpmsim({"run", "--nodes", "3", "--", kGuestBin + "/mpi_fail"}, dir.path());
  EXPECT_EQ(r.status(), 5) << r.describe();  // ExitCode::kGuestFault
  for (int n : {0, 1, 2}) {
    EXPECT_NE(r.err.find("node " + std::to_string(n) +
                         ": hpmsim: deadlock: every thread of every node is blocked"),
              std::string::npos)
        << r.err;
  }
}

// MPI's default error handler, MPI_ERRORS_ARE_FATAL, ends the job at a wrong call, naming the
// call and the error; the job's status is the error code, as under Open MPI.
TEST(MpiGuest, AWrongCallUnderTheDefaultHandlerEndsTheJobNamingTheCallAndTheError) {
  TempDir dir("hpm-mpi");
  const RunResult r =
      hpmsim({"run", "--nodes", "3", "--", kGuestBin + "/mpi_errhandler", "fatal"}, dir.path());
  EXPECT_EQ(r.status(), 6) << r.describe();  // MPI_ERR_RANK
  EXPECT_NE(r.err.find("[2] libmpi: rank 2: MPI_Send: MPI error 6: invalid rank "
                       "(MPI_ERRORS_ARE_FATAL ends the job)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("not reached"), std::string::npos) << r.out;
}

TEST(MpiGuest, MpiAbortEndsTheJobWithItsErrorCode) {
  TempDir dir("hpm-mpi");
  const RunResult r =
      hpmsim({"run", "--nodes", "3", "--", kGuestBin + "/mpi_fail", "abort", "1"}, dir.path());
  EXPECT_EQ(r.status(), 3) << r.describe();
  EXPECT_NE(r.err.find("[1] libmpi: MPI_Abort on rank 1 with error code 3"), std::string::npos)
      << r.err;
}

// A send from memory that is not mapped (4000 bytes: the rendezvous protocol): the message unit
// refuses the put that would read it when the receiver's remote get asks for it, and counts it
// in INJ_ERRORS; libmpi turns that into MPI_ERR_BUFFER, and MPI's default handler
// (MPI_ERRORS_ARE_FATAL) ends the job, naming the buffer: never a message lost in silence and a
// job that ends as a deadlock.
TEST(MpiGuest, ASendFromAnUnmappedBufferEndsTheJobWithAnErrorNamingTheBuffer) {
  TempDir dir("hpm-mpi");
  const RunResult r =
      hpmsim({"run", "--nodes", "2", "--", kGuestBin + "/mpi_fail", "unmapped", "1"}, dir.path());
  EXPECT_EQ(r.status(), 1) << r.describe();  // MPI_ERR_BUFFER
  EXPECT_NE(
      r.err.find("[1] libmpi: rank 1: a send of 4000 bytes at 0x5000000000 to rank 0: the send "
                 "buffer is not readable memory (MPI_ERR_BUFFER)"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("returned"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("deadlock"), std::string::npos) << r.err;
}

// A rendezvous message received into read-only memory: the message unit drops the put's packets
// it cannot write, and the receiver, finding its counter not down to zero, takes the guest fault
// an eager receive's copy would take, with the faulting store named; the job ends with it.
TEST(MpiGuest, ARendezvousReceiveIntoReadOnlyMemoryTakesTheGuestFault) {
  TempDir dir("hpm-mpi");
  const RunResult r =
      hpmsim({"run", "--nodes", "2", "--", kGuestBin + "/mpi_fail", "readonly", "1"}, dir.path());
  EXPECT_EQ(r.status(), 139) << r.describe();
  EXPECT_NE(r.err.find("node 0: hpmsim: guest killed by signal 11 SIGSEGV (segmentation fault): "
                       "store to protected memory"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("returned"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("deadlock"), std::string::npos) << r.err;
}

TEST(MpiGuest, AnMpiProgramOnOneNodeWithoutTheNetworkSaysHowToRunIt) {
  TempDir dir("hpm-mpi");
  const RunResult r = hpmsim({"run", "--", kGuestBin + "/mpi_ring"}, dir.path());
  EXPECT_EQ(r.status(), 70) << r.describe();
  EXPECT_NE(r.err.find("no message unit (/dev/hpm/mu): run with hpmsim run --nodes N"),
            std::string::npos)
      << r.err;
}

// `hpmsim stat --nodes N` programs every node's units alike and reports each node's counts and
// their sum: each node's equal that node's ground truth in a plain run of the same job (its
// instructions, its message unit's packets), and the sum of the NWUnit's chunks equals every
// chunk the network's links carried.
TEST(MpiGuest, StatCountsEveryNodeAndTheirSumExactly) {
  TempDir dir("hpm-mpi");
  const std::string ring = kGuestBin + "/mpi_ring";
  RunResult r =
      hpmsim({"run", "--nodes", "4", "--stats-json", "run.json", "--", ring, "2"}, dir.path());
  ASSERT_EQ(r.status(), 0) << r.describe();
  const std::string run_out = r.out;
  r = hpmsim(
      {"stat", "--nodes", "4", "--json", "-o", "stat.json", "-e",
       "instructions,PEVT_MU_PKT_INJ,PEVT_MU_FIFO_PKT_RCV,PEVT_NW_USER_PP_SENT", "--", ring, "2"},
      dir.path());
  ASSERT_EQ(r.status(), 0) << r.describe();
  EXPECT_EQ(r.out, run_out);  // the guests ran alike
  const json ran = json::parse(std::ifstream(dir.path() / "run.json"));
  const json stat = json::parse(std::ifstream(dir.path() / "stat.json"));
  ASSERT_EQ(stat.at("nodes"), 4);
  ASSERT_EQ(stat.at("per_node").size(), 4u);
  unsigned long instructions = 0, chunks = 0, nw = 0;
  for (unsigned n = 0; n < 4; ++n) {
    const json& counts = stat.at("per_node").at(n);
    const json& unit = ran.at("message_units").at(n);
    EXPECT_EQ(counts.at("instructions"), ran.at("nodes").at(n).at("instructions")) << n;
    EXPECT_EQ(counts.at("PEVT_MU_PKT_INJ"), unit.at("packets_injected")) << n;
    EXPECT_EQ(counts.at("PEVT_MU_FIFO_PKT_RCV"), unit.at("packets_received")) << n;
    instructions += counts.at("instructions").get<unsigned long>();
    nw += counts.at("PEVT_NW_USER_PP_SENT").get<unsigned long>();
  }
  for (const json& l : ran.at("network").at("links")) chunks += l.at("chunks").get<unsigned long>();
  EXPECT_GT(chunks, 0u);
  EXPECT_EQ(nw, chunks);
  EXPECT_EQ(stat.at("counts").at("instructions"), instructions);
  EXPECT_EQ(stat.at("counts").at("PEVT_NW_USER_PP_SENT"), nw);
  EXPECT_EQ(stat.at("instructions"), ran.at("instructions"));
  // The text report: the sum, then each node's lines.
  r = hpmsim({"stat", "--nodes", "2", "-e", "PEVT_MU_MSG_INJ", "--", ring, "1"}, dir.path());
  ASSERT_EQ(r.status(), 0) << r.describe();
  EXPECT_NE(r.err.find("2 nodes (2x1x1x1x1), summed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("N1 "), std::string::npos) << r.err;
  r = hpmsim({"stat", "--nodes", "2", "-I", "1", "--", ring}, dir.path());
  EXPECT_EQ(r.status(), 2) << r.describe();
  EXPECT_NE(r.err.find("-I is not available with many nodes yet"), std::string::npos) << r.err;
}

// Direct puts, remote gets and the routing flags (guest/mpi/mu_put.c): every node's puts from
// every other node land intact and count its reception counter down to zero, a remote get
// brings the next node's table, three bad descriptors are refused; the network carries the puts
// on the dynamic channel and the gets on the priority channel; runs repeat bit for bit. The
// IOUnit's PEVT_MU_PUT_PKT_RCV and PEVT_MU_RGET_PKT_RCV count what each unit took in.
TEST(MpiGuest, DirectPutsAndRemoteGetsLandIntactOnEveryNodeCount) {
  const std::string program = kGuestBin + "/mu_put";
  for (const int nodes : {2, 4, 8}) {
    for (const char* mode : {"timing", "functional"}) {
      const std::vector<std::string> args = {"--mode", mode,    "--nodes", std::to_string(nodes),
                                             "--",     program, "4096"};
      const json s = statsOf(args);
      const std::string out = s.at("stdout");
      for (int r = 0; r < nodes; ++r) {
        const std::string p = "[" + std::to_string(r) + "] rank " + std::to_string(r) + ": ";
        EXPECT_NE(out.find(p + std::to_string(nodes - 1) +
                           " direct puts of 4096 bytes landed intact, counter 0: yes"),
                  std::string::npos)
            << out;
        EXPECT_NE(out.find(p + "remote get of node " + std::to_string((r + 1) % nodes) +
                           "'s table: intact"),
                  std::string::npos)
            << out;
        EXPECT_NE(out.find(p + "refused 3 bad descriptors"), std::string::npos) << out;
        const json& unit = s.at("message_units").at(r);
        // 4096 bytes in 8 packets from each other node, and the table's 3000 in 6.
        EXPECT_EQ(unit.at("put_packets"), (nodes - 1) * 8 + 6) << r;
        EXPECT_EQ(unit.at("put_bytes"), (nodes - 1) * 4096 + 3000) << r;
        EXPECT_EQ(unit.at("remote_gets"), 1) << r;
        EXPECT_EQ(unit.at("descriptor_errors"), 3) << r;
      }
      unsigned long dynamic = 0, priority = 0, system = 0;
      for (const json& l : s.at("network").at("links")) {
        dynamic += l.at("dynamic_packets").get<unsigned long>();
        priority += l.at("priority_packets").get<unsigned long>();
        system += l.at("system_packets").get<unsigned long>();
      }
      EXPECT_GT(dynamic, 0u) << nodes << " " << mode;
      EXPECT_GE(priority, static_cast<unsigned long>(nodes)) << nodes << " " << mode;
      // (The last messages, every node to every other, on the system channel: a hop at least.)
      EXPECT_GE(system, static_cast<unsigned long>(nodes * (nodes - 1))) << nodes << " " << mode;
      if (nodes == 8) {
        EXPECT_EQ(statsOf(args), s) << mode;
      }
    }
  }
  TempDir dir("hpm-mpi");
  RunResult r = hpmsim({"run", "--nodes", "4", "--stats-json", "run.json", "--", program, "2048"},
                       dir.path());
  ASSERT_EQ(r.status(), 0) << r.describe();
  r = hpmsim({"stat", "--nodes", "4", "--json", "-o", "stat.json", "-e",
              "PEVT_MU_PUT_PKT_RCV,PEVT_MU_RGET_PKT_RCV", "--", program, "2048"},
             dir.path());
  ASSERT_EQ(r.status(), 0) << r.describe();
  const json ran = json::parse(std::ifstream(dir.path() / "run.json"));
  const json stat = json::parse(std::ifstream(dir.path() / "stat.json"));
  for (unsigned n = 0; n < 4; ++n) {
    EXPECT_EQ(stat.at("per_node").at(n).at("PEVT_MU_PUT_PKT_RCV"),
              ran.at("message_units").at(n).at("put_packets"))
        << n;
    EXPECT_EQ(stat.at("per_node").at(n).at("PEVT_MU_RGET_PKT_RCV"), 1) << n;
  }
}

TEST(MpiGuest, NodeOptionsThatContradictOrNameAFileAsTheFolderAreRefused) {
  TempDir dir("hpm-mpi");
  const std::string ring = kGuestBin + "/mpi_ring";
  RunResult r =
      hpmsim({"run", "--nodes", "4", "--set", "network.shape=2x1x1x1x1", "--", ring}, dir.path());
  EXPECT_EQ(r.status(), 2) << r.describe();
  EXPECT_NE(r.err.find("--nodes 4 and network.shape 2x1x1x1x1 (2 nodes) disagree"),
            std::string::npos)
      << r.err;
  // (A missing folder is made: Run.NodeOutputFilesAreCheckedAsEveryOutputAndTheirFolderIsMade.)
  std::ofstream(dir.path() / "a-file") << "kept\n";
  r = hpmsim({"run", "--nodes", "2", "--node-output", "a-file", "--", ring}, dir.path());
  EXPECT_EQ(r.status(), 2) << r.describe();
  EXPECT_NE(r.err.find("--node-output 'a-file' is not a directory"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(dir.path() / "a-file"), "kept\n");
  r = hpmsim({"run", "--set", "network.shape=2x0", "--", ring}, dir.path());
  EXPECT_EQ(r.status(), 3) << r.describe();
  EXPECT_NE(r.err.find("network.shape': '2x0' is not a torus shape"), std::string::npos) << r.err;
  r = hpmsim({"run", "--nodes", "2", "--mode", "profile", "--", ring}, dir.path());
  EXPECT_EQ(r.status(), 2) << r.describe();
  EXPECT_NE(r.err.find("--mode profile is not available with many nodes yet"), std::string::npos)
      << r.err;
}

TEST(MpiGuest, ShapesOverTheNodeLimitOrTheMessageUnitsSizesOrTheMachinesDimensionsAreRefused) {
  TempDir dir("hpm-mpi");
  const std::string ring = kGuestBin + "/mpi_ring";
  const auto refused = [&](const std::vector<std::string>& args, const std::string& why) {
    const RunResult r = hpmsim(args, dir.path());
    EXPECT_EQ(r.status(), 3) << r.describe();
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << r.describe();  // (nothing ran)
  };
  // 2^32 nodes (0 in 32 bits: one plain node ran), 2 x (2^31 + 1) (2 in 32 bits: a bogus torus).
  refused({"run", "--set", "network.shape=65536x65536x1x1x1", "--", ring},
          "'65536x65536x1x1x1': a dimension of size 65536 (at most 255");
  refused({"run", "--set", "network.shape=2x2147483649x1x1x1", "--", ring},
          "a dimension of size 2147483649 (at most 255");
  // More nodes than --nodes allows (4096).
  refused({"run", "--set", "network.shape=200x200x1x1x1", "--", ring},
          "'200x200x1x1x1' is 40000 nodes: at most 4096");
  // The machine's number of dimensions stays (bgq: 5).
  refused({"run", "--set", "network.shape=2x2", "--", ring},
          "network.shape '2x2' has 2 dimensions, machine bgq's torus has 5");
  // --nodes N with a prime N over 255 has no shape.
  refused({"run", "--nodes", "257", "--", ring},
          "--nodes 257: the most balanced torus of 5 dimensions for 257 nodes (257x1x1x1x1) has a "
          "size over 255");
  // Blue Gene/P's link protocol and Blue Gene/Q's collective classes on one torus: neither
  // machine, and the protocol keeps no tokens for the collective channels.
  refused({"run", "--nodes", "2", "--set", "network.link_protocol=true", "--", ring},
          "network.link_protocol (Blue Gene/P's link level) and network.collectives (Blue Gene/Q's "
          "collective classes) cannot both be on");
  // A machine file declares its own number of dimensions.
  const auto file = dir.path() / "ring2d.toml";
  std::ofstream(file) << "inherits = \"bgq\"\n[network]\nshape = \"2x2\"\n";
  const RunResult r = hpmsim({"run", "--machine", file.string(), "--", ring, "1"}, dir.path());
  EXPECT_EQ(r.status(), 0) << r.describe();
}

TEST(MpiGuest, EachNodesLinesArePrefixedWithItsRank) {
  TempDir dir("hpm-mpi");
  const RunResult r =
      hpmsim({"run", "--nodes", "3", "--", kGuestBin + "/mpi_ring", "1"}, dir.path());
  EXPECT_EQ(r.status(), 0) << r.describe();
  std::istringstream lines(r.out);
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    EXPECT_TRUE(line.starts_with("[0] ") || line.starts_with("[1] ") || line.starts_with("[2] "))
        << line;
  }
  EXPECT_EQ(count, 4);  // the ring's result and each rank's line
}

}  // namespace
