// Ground-truth statistics. A model keeps its statistics as plain integer fields that the hot path
// increments directly, and names them once in a visit() function:
//
//   struct CacheStats {
//     u64 hits = 0, misses = 0;
//     void visit(stats::Visitor& v) const {
//       v.counter("hits", hits, "Accesses served by this cache");
//       v.counter("misses", misses, "Accesses passed to the next level");
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

namespace hpm::stats {

class Visitor {
 public:
  virtual ~Visitor() = default;
  virtual void counter(std::string_view name, u64 value, std::string_view doc) = 0;
  virtual void real(std::string_view name, double value, std::string_view doc) = 0;
  virtual void text(std::string_view name, std::string_view value, std::string_view doc) = 0;
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

// Builds a JSON object from visited statistics.
class JsonWriter final : public Visitor {
 public:
  JsonWriter();
  void counter(std::string_view name, u64 value, std::string_view doc) override;
  void real(std::string_view name, double value, std::string_view doc) override;
  void text(std::string_view name, std::string_view value, std::string_view doc) override;
  void beginGroup(std::string_view name) override;
  void endGroup() override;
  void beginList(std::string_view name) override;
  void endList() override;

  nlohmann::json& result() { return root_; }

 private:
  void put(std::string_view name, nlohmann::json value);
  nlohmann::json root_;
  std::vector<nlohmann::json*> stack_;
};

// Renders visited statistics as aligned "path value  # doc" lines.
class TextWriter final : public Visitor {
 public:
  void counter(std::string_view name, u64 value, std::string_view doc) override;
  void real(std::string_view name, double value, std::string_view doc) override;
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
