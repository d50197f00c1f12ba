// Masks over the interconnect's transaction types (bit t: TransactionType t, every namespace's
// types in one mask) and snoop results (bit s: Snoop s): what filters, presets and counts take
// (imon::Filter, TransactionCounts::count).
#pragma once

#include "base/types.h"
#include "stats/transaction.h"

namespace hpm::probe {

constexpr u64 typeBit(TransactionType t) {
  return u64{1} << static_cast<u32>(t);
}
constexpr u64 snoopBit(Snoop s) {
  return u64{1} << static_cast<u32>(s);
}
// Every snoop result: a filter term that does not look at them.
inline constexpr u64 kAllSnoops = (u64{1} << kSnoopResults) - 1;

}  // namespace hpm::probe
