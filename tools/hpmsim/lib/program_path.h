// The program a command runs (run, stat): as a shell finds a command. A name with a '/', or one
// that names a file here, is used as given; any other name is looked up in the directories of
// HPMSIM_GUEST_PATH (':'-separated), then in this build's guest programs (PAPI's utilities such
// as papi_avail, the workloads), so `hpmsim run -- papi_avail` works from anywhere.
#pragma once

#include <string>

namespace hpm::tools {

// The path to run for `program`: the first match, or `program` itself (whose run then fails
// with the loader's message naming it).
std::string resolveProgram(const std::string& program);

}  // namespace hpm::tools
