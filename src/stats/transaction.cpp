#include "stats/transaction.h"

#include <cctype>
#include <string>

#include "stats/stats.h"

namespace hpm::probe {

std::string_view interconnectName(Interconnect ic) {
  switch (ic) {
    case Interconnect::kCrossbar: return "crossbar";
    case Interconnect::kFireplane: return "fireplane";
  }
  return "?";
}

std::string snakeCase(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (i > 0 && std::isupper(c)) out += '_';
    out += static_cast<char>(std::tolower(c));
  }
  return out;
}

void TransactionCounts::visit(stats::Visitor& v) const {
  // Every combination, those that cannot occur included: a fixed set of keys is easier on tools
  // than one that depends on the run.
  // The node's namespace and snoop results only.
  const TransactionNamespace ns = transactionNamespace(interconnect);
  for (u32 t = ns.first; t < ns.first + ns.size; ++t) {
    for (u32 s = 0; s < kSnoopResults; ++s) {
      if (!snoopApplies(interconnect, static_cast<Snoop>(s))) continue;
      const std::string name =
          snakeCase(kTransactionTypeInfo[t].name) + "_" + snakeCase(kSnoopInfo[s].name);
      v.counter(name, n[t][s], kTransactionTypeInfo[t].description);
    }
  }
}

}  // namespace hpm::probe
