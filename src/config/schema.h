// Typed, documented parameters. Every model keeps its parameters in one Params struct whose
// visit() names each field once, with its documentation and limits:
//
//   struct CacheParams {
//     u32 size_kib = 16;
//     void visit(config::Visitor& v) {
//       v.param("size_kib", size_kib, "Capacity in KiB", config::Range{1, 1 << 20});
//     }
//   };
//
// From that single description the Schema loads TOML (unknown keys are errors), applies
// `--set key=value` overrides, and writes the effective configuration as JSON or TOML.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/types.h"

namespace hpm::config {

// Inclusive bounds on a numeric parameter.
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool power_of_two = false;
};

inline Range powerOfTwo(double min, double max) {
  return Range{min, max, true};
}

// One parameter, reached through closures so the schema can hold any field type.
struct Param {
  std::string key;  // dotted path, e.g. "node.cores"
  std::string doc;
  std::string type;  // "integer", "number", "boolean", "string" or "one of a|b|c"
  nlohmann::json default_value;
  std::function<void(const nlohmann::json&)> assign;  // throws Error on a bad value
  std::function<nlohmann::json()> read;
};

class Visitor {
 public:
  explicit Visitor(std::vector<Param>& out) : out_(out) {}

  template <class P>
  void section(std::string_view name, P& params) {
    const std::size_t mark = prefix_.size();
    prefix_ += name;
    prefix_ += '.';
    params.visit(*this);
    prefix_.resize(mark);
  }

  void param(std::string_view name, bool& field, std::string_view doc);
  void param(std::string_view name, std::string& field, std::string_view doc);
  void param(std::string_view name, double& field, std::string_view doc, Range range = {});

  template <class T>
  requires std::is_integral_v<T>
  void param(std::string_view name, T& field, std::string_view doc, Range range = {}) {
    integer(
        name, doc, range, std::is_signed_v<T>, static_cast<double>(std::numeric_limits<T>::min()),
        static_cast<double>(std::numeric_limits<T>::max()),
        [&field](i128 v) { field = static_cast<T>(v); },
        [&field] { return static_cast<i128>(field); });
  }

  // A value written as a string and parsed into a typed one: `parse(text, field)` returns why a
  // text is refused ("" when accepted, having set the field); `field.text()` writes it back.
  template <class T>
  void param(std::string_view name, T& field, std::string_view doc,
             std::string (*parse)(std::string_view, T&)) {
    text(
        name, doc, field.text(), [&field, parse](std::string_view s) { return parse(s, field); },
        [&field] { return field.text(); });
  }

  // A string that must be one of `choices` (spelled as an enumeration is).
  void param(std::string_view name, std::string& field, std::string_view doc,
             const std::vector<std::string>& choices);

  // An enumeration spelled by name in configuration files.
  template <class E>
  requires std::is_enum_v<E>
  void param(std::string_view name, E& field, std::string_view doc,
             std::initializer_list<std::pair<std::string_view, E>> names) {
    std::vector<std::pair<std::string, int>> table;
    for (const auto& [text, value] : names) table.emplace_back(text, static_cast<int>(value));
    choice(
        name, doc, std::move(table), [&field](int v) { field = static_cast<E>(v); },
        [&field] { return static_cast<int>(field); });
  }

 private:
  void integer(std::string_view name, std::string_view doc, Range range, bool is_signed,
               double type_min, double type_max, std::function<void(i128)> set,
               std::function<i128()> get);
  void text(std::string_view name, std::string_view doc, std::string default_text,
            std::function<std::string(std::string_view)> set, std::function<std::string()> get);
  void choice(std::string_view name, std::string_view doc,
              std::vector<std::pair<std::string, int>> table, std::function<void(int)> set,
              std::function<int()> get);
  std::string key(std::string_view name) const { return prefix_ + std::string(name); }

  std::vector<Param>& out_;
  std::string prefix_;
};

// The parameters of one root Params object. The root must outlive the schema.
class Schema {
 public:
  template <class Root>
  explicit Schema(Root& root) {
    Visitor v(params_);
    root.visit(v);
  }

  const std::vector<Param>& params() const { return params_; }
  const Param* find(std::string_view key) const;

  // Applies every key of a TOML document. `origin` names the document in error messages.
  // Keys listed in `ignored` (top-level only) are skipped; any other unknown key is an error.
  void applyToml(std::string_view text, std::string_view origin,
                 std::initializer_list<std::string_view> ignored = {});
  // Applies one `key=value` override; the value is parsed as the parameter's type.
  void applyOverride(std::string_view assignment);
  // Keys that are no longer keys: `old_key` (a section when it ends with '.': every key under
  // it) is refused with `message`, which names what replaced it.
  void retire(std::string old_key, std::string message);
  // Every key applied so far (files and overrides), in order.
  const std::vector<std::string>& assigned() const { return assigned_; }

  // Leaves out of params(), toJson() and toToml() the keys `inapplicable` answers true for (the
  // section of a model the machine does not have): the effective configuration shows what
  // applies. Applying them (applyToml, applyOverride) is the caller's to refuse.
  void omit(const std::function<bool(std::string_view key)>& inapplicable);

  // The effective configuration as a nested JSON object, and as TOML text.
  nlohmann::json toJson() const;
  std::string toToml() const;

 private:
  friend class Applier;
  // The parameter of `key`, or an error naming `origin` (a retired key's message, or unknown).
  const Param& known(std::string_view key, std::string_view origin) const;

  std::vector<Param> params_;
  std::vector<std::pair<std::string, std::string>> retired_;
  std::vector<std::string> assigned_;
};

}  // namespace hpm::config
