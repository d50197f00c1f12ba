// Ground-truth statistics. A model keeps its statistics as plain integer fields that the hot path
// increments directly, and names them once in a visit() function, each with its measure (kind
// and unit, measure.h):
//
//   struct CacheStats {
//     u64 hits = 0, misses = 0, busy_cycles = 0, most_pending = 0;
//     void visit(stats::Visitor& v) const {
//       v.counter("hits", hits, "Accesses served by this cache");    // a total count (by name)
//       v.counter("busy_cycles", busy_cycles, "Cycles it was busy");  // a total of cycles
//       v.counter(kMisses, misses);  // a Stat constant other code reads too
//       v.counter("most_pending", most_pending, stats::level(stats::Unit::kCount),
//                 "The most requests pending at once");
//     }
//   };
//
// Writers (JSON, text) are visitors, so nothing is looked up by name while simulating.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"
#include "stats/measure.h"

namespace hpm::stats {

class Visitor {
 public:
  virtual ~Visitor() = default;
  virtual void counter(std::string_view name, u64 value, Measure m, std::string_view doc) = 0;
  virtual void real(std::string_view name, double value, Measure m, std::string_view doc) = 0;
  virtual void text(std::string_view name, std::string_view value, std::string_view doc) = 0;
  // A total whose unit its name tells (unitByName's rule, measure.h).
  void counter(std::string_view name, u64 value, std::string_view doc) {
    counter(name, value, total(unitByName(name)), doc);
  }
  // A statistic declared as a constant (measure.h).
  void counter(const Stat& s, u64 value) { counter(s.name, value, s.measure, s.doc); }
  // ... whose documentation depends on where it is written (each cache's event describes its
  // accesses; a run of many nodes says what its totals add up).
  void counter(const Stat& s, u64 value, std::string_view doc) {
    counter(s.name, value, s.measure, doc);
  }
  void real(const Stat& s, double value) { real(s.name, value, s.measure, s.doc); }
  void text(const Stat& s, std::string_view value) { text(s.name, value, s.doc); }
  // A named group of statistics; inside a list, groups are the list's elements (name ignored).
  virtual void beginGroup(std::string_view name) = 0;
  virtual void endGroup() = 0;
  virtual void beginList(std::string_view name) = 0;
  virtual void endList() = 0;

  template <class S>
  void group(std::string_view name, const S& s) {
    beginGroup(name);
    s.visit(*this);
    endGroup();
  }
  template <class Range>
  void list(std::string_view name, const Range& items) {
    beginList(name);
    for (const auto& item : items) group("", item);
    endList();
  }
};

// Builds a JSON object from visited statistics, and beside it the measure of each statistic:
// units() is {path: {"kind": kindName, "unit": unitName}}, the path the statistic's names joined
// with '.', a list's elements as '*' ("timing.cores.*.l1d.misses"), in key order. One path has
// one measure: a statistic visited again at the same path with another is the model's error
// (hpm::Error, ExitCode::kInternal).
class JsonWriter final : public Visitor {
 public:
  JsonWriter();
  using Visitor::counter;
  using Visitor::real;
  using Visitor::text;
  void counter(std::string_view name, u64 value, Measure m, std::string_view doc) override;
  void real(std::string_view name, double value, Measure m, std::string_view doc) override;
  void text(std::string_view name, std::string_view value, std::string_view doc) override;
  void beginGroup(std::string_view name) override;
  void endGroup() override;
  void beginList(std::string_view name) override;
  void endList() override;

  nlohmann::json& result() { return root_; }
  const nlohmann::json& units() const { return units_; }

 private:
  void put(std::string_view name, nlohmann::json value, Measure m);
  nlohmann::json root_;
  std::vector<nlohmann::json*> stack_;
  nlohmann::json units_;
  std::vector<std::string> pattern_;  // the open groups' and lists' names ('*': a list element)
};

// Renders visited statistics as aligned "path value  # doc" lines.
class TextWriter final : public Visitor {
 public:
  using Visitor::counter;
  using Visitor::real;
  using Visitor::text;
  void counter(std::string_view name, u64 value, Measure m, std::string_view doc) override;
  void real(std::string_view name, double value, Measure m, std::string_view doc) override;
  void text(std::string_view name, std::string_view value, std::string_view doc) override;
  void beginGroup(std::string_view name) override;
  void endGroup() override;
  void beginList(std::string_view name) override;
  void endList() override;

  std::string str() const;

 private:
  struct Line {
    std::string path, value, doc;
  };
  void put(std::string_view name, std::string value, std::string_view doc);
  std::string path(std::string_view name) const;
  std::vector<std::string> prefix_;
  std::vector<int> list_index_;  // next element index of each open list, -1 for groups
  std::vector<Line> lines_;
};

}  // namespace hpm::stats
