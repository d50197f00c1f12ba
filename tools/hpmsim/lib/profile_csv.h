// The profile mode's results as files and text (`hpmsim run --mode profile`): the samples and
// the flat profile by function as CSV (docs/whatif.md names their columns), and the top
// functions as run prints them. Functions of the records alone (node/simulation.h's), so the
// tests make them up.
#pragma once

#include <string>
#include <vector>

#include "base/types.h"
#include "node/simulation.h"

namespace hpm::tools {

// `core,cycle,xu0_ipc,...,axu0_ipc,...,lmq_full_share,sq_full_share`: one row per sample, a
// column per pipe of the widest sample (the first `integer_pipes` the XU's), shares to 4 places.
std::string profileSamplesCsv(const std::vector<ProfileSample>& samples, u32 integer_pipes);
// `function,instructions,cycles,stall_<cause>...`: one row per function, in the given order.
std::string profileFunctionsCsv(const std::vector<FunctionProfile>& functions);
// The header and the first `top` functions: each one's share of all functions' cycles, cycles,
// instructions, CPI and name.
std::string profileTopText(const std::vector<FunctionProfile>& functions, u32 top);

}  // namespace hpm::tools
