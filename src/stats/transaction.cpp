#include "stats/transaction.h"

#include <cctype>
#include <string>

#include "stats/stats.h"

namespace hpm::probe {

namespace {

// "MemRead" -> "mem_read".
std::string snake(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (i > 0 && std::isupper(c)) out += '_';
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

}  // namespace

void TransactionCounts::visit(stats::Visitor& v) const {
  // Every combination, those that cannot occur included: a fixed set of keys is easier on tools
  // than one that depends on the run.
  for (u32 t = 0; t < kTransactionTypes; ++t) {
    for (u32 s = 0; s < kSnoopResults; ++s) {
      const std::string name =
          snake(kTransactionTypeInfo[t].name) + "_" + snake(kSnoopInfo[s].name);
      v.counter(name, n[t][s], kTransactionTypeInfo[t].description);
    }
  }
}

}  // namespace hpm::probe
