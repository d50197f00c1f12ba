// The instruction table's groups (isa/ops.h): the instruction-mix events of UPC-P and UPC-Q are
// derived from them, so a group that missed an instruction would be an event that misses it.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string_view>
#include <vector>

#include "isa/ops.h"

namespace hpm::isa {
namespace {

std::vector<Op> allOps() {
  std::vector<Op> ops;
  for (std::size_t i = 0; i < kOpCount; ++i) ops.push_back(static_cast<Op>(i));
  return ops;
}

// (That the integer groups partition kIntAlu and the floating-point ones kFpMisc is a
// static_assert in isa/ops.h: the build fails without it.)

// The groups as the seeds' events name them, spelled out once here as the reference the table is
// checked against (a moved row would change an event's count).
TEST(OpGroups, GroupsHoldTheInstructionsTheirEventsName) {
  const std::map<OpGroup, std::set<std::string_view>> expected = {
      {OpGroup::kIntAddSub, {"add", "addi", "addw", "addiw", "sub", "subw", "lui", "auipc"}},
      {OpGroup::kIntLogical, {"and", "andi", "or", "ori", "xor", "xori"}},
      {OpGroup::kIntShift,
       {"sll", "slli", "srl", "srli", "sra", "srai", "sllw", "slliw", "srlw", "srliw", "sraw",
        "sraiw"}},
      {OpGroup::kIntCompare, {"slt", "slti", "sltu", "sltiu"}},
      {OpGroup::kFpCompare, {"feq.s", "flt.s", "fle.s", "feq.d", "flt.d", "fle.d"}},
      {OpGroup::kFpMove, {"fmv.x.w", "fmv.w.x", "fmv.x.d", "fmv.d.x"}},
      {OpGroup::kFpSignMinMaxClass,
       {"fsgnj.s", "fsgnjn.s", "fsgnjx.s", "fmin.s", "fmax.s", "fclass.s", "fsgnj.d", "fsgnjn.d",
        "fsgnjx.d", "fmin.d", "fmax.d", "fclass.d"}},
      {OpGroup::kTrap, {"ecall", "ebreak"}},
  };
  std::map<OpGroup, std::set<std::string_view>> got;
  for (Op op : allOps()) {
    if (opInfo(op).group != OpGroup::kNone) got[opInfo(op).group].insert(opInfo(op).mnemonic);
  }
  EXPECT_EQ(got, expected);
}

}  // namespace
}  // namespace hpm::isa
