// `hpmsim run`: runs a guest program on the modelled node.
#include <fmt/core.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <optional>

#include "base/error.h"
#include "base/json_text.h"
#include "node/machine.h"
#include "node/monitor.h"
#include "node/simulation.h"
#include "pmu/upc/component.h"
#include "tools/hpmsim/commands.h"
#include "tools/hpmsim/lib/nodes_run.h"
#include "tools/hpmsim/lib/output.h"
#include "tools/hpmsim/lib/profile_csv.h"
#include "tools/hpmsim/lib/run_result.h"
#include "tools/hpmsim/lib/session.h"
#include "tools/hpmsim/lib/sram_fault.h"
#include "tools/hpmsim/lib/upc_config.h"
#include "tools/hpmsim/report.h"

namespace hpm::tools {
namespace {

struct RunCliOptions {
  SessionOptions session;  // --machine, --set, --mode, --root, the environment, the nodes, ...
  std::string stats_json;
  std::string stats_text;
  bool stats_json_given = false;  // the option was given (an empty path is then an error)
  bool stats_text_given = false;
  std::string report;  // --report: an HTML report of the results (report.h)
  std::string trace;   // --trace: the profile's timelines and the regions as a Chrome trace
  // --profile-prefix: where the profile's CSVs go ("": nowhere, but DIR/hpmsim-profile with
  // --output-dir DIR: they no longer land in the current folder unasked).
  std::string profile_prefix;
  u64 profile_interval = 100000;
  u32 profile_top = 20;
  bool strict_syscalls = false;
  bool host_time = false;
  bool summary = false;
  std::string upc_config;                // --upc-config FILE
  std::vector<std::string> sram_faults;  // --sram-fault SPEC
};

// run takes every mode, and runs many nodes.
constexpr SessionSpec kRunSession{.modes = "functional, warmup, timing or profile",
                                  .runs = kModesWithUnits,
                                  .modes_why = "",
                                  .overrides = true,
                                  .host_memory = true,
                                  .nodes = true,
                                  .nodes_what = "",
                                  .output_dir = true};

// The profile mode's results: the top functions printed on stderr, the samples and the flat
// profile as CSV written to PREFIX-samples.csv and PREFIX-functions.csv when a prefix is set.
// Returns the CSVs (the report draws them).
struct ProfileCsv {
  std::string samples, functions;
};
ProfileCsv writeProfile(const Simulation& sim, const RunCliOptions& opt) {
  const auto functions = sim.functionProfile();
  ProfileCsv csv{profileSamplesCsv(sim.samples(), sim.machine().timing.core.integer_pipes),
                 profileFunctionsCsv(functions)};
  if (!opt.profile_prefix.empty()) {
    writeTextFile(opt.profile_prefix + "-samples.csv", csv.samples);
    writeTextFile(opt.profile_prefix + "-functions.csv", csv.functions);
    fmt::print(stderr,
               "hpmsim: profile ({} samples in {}-samples.csv, all functions in "
               "{}-functions.csv)\n",
               sim.samples().size(), opt.profile_prefix, opt.profile_prefix);
  } else {
    fmt::print(stderr,
               "hpmsim: profile ({} samples; --profile-prefix or --output-dir writes them and all "
               "functions as CSV)\n",
               sim.samples().size());
  }
  fmt::print(stderr, "{}", profileTopText(functions, opt.profile_top));
  return csv;
}

int run(const RunCliOptions& opt) {
  Session session = openSession(opt.session, "run", kRunSession);
  MachineConfig& machine = session.machine;
  RunFiles& files = session.files;
  files.input(opt.upc_config, "the counter configuration");
  files.output(opt.stats_json, "--stats-json", opt.stats_json_given);
  files.output(opt.stats_text, "--stats-text", opt.stats_text_given);
  files.output(opt.report, "--report", !opt.report.empty());
  files.output(opt.trace, "--trace", !opt.trace.empty());
  if (session.mode == RunMode::kProfile && !opt.profile_prefix.empty()) {
    files.output(opt.profile_prefix + "-samples.csv", "--profile-prefix (samples)");
    files.output(opt.profile_prefix + "-functions.csv", "--profile-prefix (functions)");
  }
  files.check();
  RunOptions ro;
  ro.mode = session.mode;
  ro.root = opt.session.root;
  ro.strict_syscalls = opt.strict_syscalls;
  ro.host_time = opt.host_time;
  ro.profile_interval = opt.profile_interval;

  // A guest writing to a closed pipe gets SIGPIPE from our kernel; hpmsim itself must not die.
  std::signal(SIGPIPE, SIG_IGN);

  refuseWithManyNodes(session, {{session.mode == RunMode::kProfile, "--mode profile"},
                                {!opt.report.empty(), "--report"},
                                {!opt.trace.empty(), "--trace"},
                                {!opt.upc_config.empty(), "--upc-config"},
                                {!opt.sram_faults.empty(), "--sram-fault"}});
  if (session.many_nodes) {
    return runNodes({machine, ro, opt.session.mode, session.command, session.envp,
                     opt.session.node_output, opt.stats_json, opt.stats_text, opt.summary,
                     opt.session.host_memory});
  }

  Simulation sim(machine, ro);
  Monitor* upc = nullptr;
  if (!opt.upc_config.empty()) {
    upc = sim.monitor();
    if (upc == nullptr) {
      fail(ExitCode::kUsage,
           "--upc-config: machine {} has no counter unit (monitor.unit must be upc)", machine.name);
    }
    const auto& units = upc->units();
    if (std::none_of(units.begin(), units.end(),
                     [](const auto& u) { return &u->kind() == &upc::kUnitKind; })) {
      fail(ExitCode::kUsage,
           "--upc-config programs a UPC-P unit, and machine {} has UPC-Q (use --machine bgp, or "
           "hpmsim stat for UPC-Q)",
           machine.name);
    }
    upc->programHost(parseUpcConfig(opt.upc_config, upc->catalogue(), machine.upc.counters));
  }
  // (Asked for only when given: the functional mode builds its units when first needed.)
  if (!opt.sram_faults.empty()) scheduleSramFaults(opt.sram_faults, sim.monitor(), machine.name);
  const RunResult result = runResult(sim, session, runSessionProgram(sim, session));

  const bool report = !opt.report.empty() || !opt.trace.empty();
  nlohmann::json stats_json;
  if (!opt.stats_json.empty() || report) stats_json = runStatsJson(sim, result, session);
  if (!opt.stats_json.empty()) writeTextFile(opt.stats_json, jsonText(stats_json, 2) + "\n");
  if (!opt.stats_text.empty()) writeTextFile(opt.stats_text, runStatsText(sim, result));
  std::fflush(stdout);
  const Termination& end = sim.kernel().termination();
  if (!end.report.empty()) fmt::print(stderr, "{}", end.report);
  std::optional<ProfileCsv> profile;
  if (session.mode == RunMode::kProfile) profile = writeProfile(sim, opt);
  if (report) {
    Report r;
    r.addRun(stats_json, fmt::format("hpmsim run of {}", opt.session.command[0]));
    if (profile) {
      // The profile's CSVs, as written (or as they would be): the report draws what they hold.
      const std::string name = opt.profile_prefix.empty() ? "profile" : opt.profile_prefix;
      r.addProfileSamples(profile->samples, name + "-samples.csv");
      r.addProfileFunctions(profile->functions, name + "-functions.csv");
    }
    if (!opt.report.empty()) writeTextFile(opt.report, r.html("hpmsim run"));
    if (!opt.trace.empty()) writeTextFile(opt.trace, jsonText(r.chromeTrace()) + "\n");
  }
  if (!opt.sram_faults.empty()) reportSramFaults(*sim.monitor(), result.cycles);
  if (upc != nullptr) {
    // Each counter with the event its configuration byte selects at the end (the guest may have
    // reprogrammed some: they are marked).
    fmt::print(stderr, "{}",
               upcCountersText(opt.upc_config, result.cycles,
                               upcCounterRows(*upc, machine.upc.counters, result.cycles)));
  }
  if (opt.summary) fmt::print(stderr, "{}", runSummaryText(result));
  return end.status;
}

}  // namespace

void addRunCommand(CLI::App& root, Action& selected) {
  auto opt = std::make_shared<RunCliOptions>();
  CLI::App* cmd =
      root.add_subcommand("run", "Run a static RV64 Linux program on the modelled node");
  addSessionOptions(*cmd, opt->session, kRunSession);
  CLI::Option* stats_json =
      cmd->add_option("--stats-json", opt->stats_json, "Write statistics as JSON to FILE");
  CLI::Option* stats_text =
      cmd->add_option("--stats-text", opt->stats_text, "Write statistics as text to FILE");
  cmd->add_option("--report", opt->report,
                  "Also write an HTML report with charts of the run (and its profile)");
  cmd->add_option("--trace", opt->trace,
                  "Also write the profile's timelines and the regions as a Chrome trace");
  cmd->add_option("--profile-interval", opt->profile_interval,
                  "Profile mode: cycles between samples")
      ->check(CLI::Range(u64{1}, u64{1} << 40))
      ->capture_default_str();
  cmd->add_option("--profile-prefix", opt->profile_prefix,
                  "Profile mode: write PREFIX-samples.csv and PREFIX-functions.csv (default: "
                  "none; with --output-dir DIR, DIR/hpmsim-profile)");
  cmd->add_option("--profile-top", opt->profile_top, "Profile mode: functions printed")
      ->capture_default_str();
  cmd->add_flag("--strict-syscalls", opt->strict_syscalls,
                "Stop with an error at the first unsupported system call");
  cmd->add_flag("--host-time", opt->host_time,
                "Wall-clock time from the host instead of simulated time");
  cmd->add_flag("--summary", opt->summary,
                "Print instructions, simulated time, MIPS and regions on stderr at the end");
  cmd->add_option("--upc-config", opt->upc_config,
                  "Program the UPC-P unit (bgp) from FILE at cycle 0 and print every counter at "
                  "the end: lines `select S` (all counters) or native event names");
  cmd->add_option("--sram-fault", opt->sram_faults,
                  "Flip a bit of a counter's SRAM entry (UPC-P) at a cycle: "
                  "counter=C,cycle=T[,bit=B][,unit=PATH]; repeatable; reported at the end");
  addSessionProgram(*cmd, opt->session, kRunSession);
  cmd->callback([opt, &selected, stats_json, stats_text] {
    opt->stats_json_given = stats_json->count() > 0;
    opt->stats_text_given = stats_text->count() > 0;
    // --output-dir: every relative output path in it; the profile's CSVs there by default.
    if (opt->profile_prefix.empty() && !opt->session.output_dir.empty()) {
      opt->profile_prefix = "hpmsim-profile";
    }
    placeOutputs(opt->session, {&opt->stats_json, &opt->stats_text, &opt->report, &opt->trace,
                                &opt->profile_prefix, &opt->session.node_output});
    selected = [opt] { return run(*opt); };
  });
}

}  // namespace hpm::tools
