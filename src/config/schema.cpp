#include "config/schema.h"

#include <toml++/toml.h>

#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include "base/json_text.h"

namespace hpm::config {
namespace {

[[noreturn]] void badValue(const std::string& key, std::string_view why) {
  fail(ExitCode::kConfig, "configuration key '{}': {}", key, why);
}

std::string describeJson(const nlohmann::json& j) {
  return jsonText(j);
}

nlohmann::json tomlToJson(const toml::node& node, const std::string& key) {
  if (auto v = node.as_integer()) return v->get();
  if (auto v = node.as_floating_point()) return v->get();
  if (auto v = node.as_boolean()) return v->get();
  if (auto v = node.as_string()) return v->get();
  badValue(key, "only integers, numbers, booleans and strings are accepted here");
}

}  // namespace

// Applies TOML tables to a schema (a friend: it records the keys it assigns).
class Applier {
 public:
  static void walk(const toml::table& table, const std::string& prefix, Schema& schema,
                   std::string_view origin, std::initializer_list<std::string_view> ignored);
};

void Applier::walk(const toml::table& table, const std::string& prefix, Schema& schema,
                   std::string_view origin, std::initializer_list<std::string_view> ignored) {
  for (const auto& [name, node] : table) {
    const std::string key = prefix + std::string(name.str());
    if (prefix.empty()) {
      bool skip = false;
      for (auto i : ignored) skip = skip || i == name.str();
      if (skip) continue;
    }
    if (const toml::table* sub = node.as_table()) {
      walk(*sub, key + ".", schema, origin, ignored);
      continue;
    }
    schema.known(key, fmt::format("{}: ", origin)).assign(tomlToJson(node, key));
    schema.assigned_.push_back(key);
  }
}

namespace {

// Parses the text of a `--set` value as the JSON value the parameter expects.
// An integer as the user wrote it (values come from a u64 or an i64: a large unsigned value must
// not print as a negative one).
std::string integerText(i128 v) {
  return v < 0 ? std::to_string(static_cast<i64>(v)) : std::to_string(static_cast<u64>(v));
}

nlohmann::json parseOverrideValue(const Param& param, std::string_view text) {
  const std::string s(text);
  if (param.type == "boolean") {
    if (s == "true" || s == "1" || s == "on" || s == "yes") return true;
    if (s == "false" || s == "0" || s == "off" || s == "no") return false;
    badValue(param.key, fmt::format("'{}' is not a boolean (true or false)", s));
  }
  if (param.type == "integer") {
    i64 value = 0;
    const char* first = s.data();
    const char* last = s.data() + s.size();
    int base = 10;
    bool negative = false;
    if (first != last && *first == '-') {
      negative = true;
      ++first;
    }
    if (last - first > 2 && first[0] == '0' && (first[1] == 'x' || first[1] == 'X')) {
      first += 2;
      base = 16;
    }
    u64 magnitude = 0;
    auto [end, ec] = std::from_chars(first, last, magnitude, base);
    if (ec != std::errc() || end != last || first == last) {
      badValue(param.key, fmt::format("'{}' is not an integer", s));
    }
    if (negative) {
      value = -static_cast<i64>(magnitude);
      return value;
    }
    return magnitude;
  }
  if (param.type == "number") {
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty()) {
      badValue(param.key, fmt::format("'{}' is not a number", s));
    }
    return value;
  }
  return s;  // strings and named choices
}

}  // namespace

void Visitor::param(std::string_view name, bool& field, std::string_view doc) {
  out_.push_back(Param{key(name), std::string(doc), "boolean", field,
                       [&field, k = key(name)](const nlohmann::json& j) {
                         if (!j.is_boolean()) badValue(k, "expects true or false");
                         field = j.get<bool>();
                       },
                       [&field] { return nlohmann::json(field); }});
}

void Visitor::param(std::string_view name, std::string& field, std::string_view doc) {
  out_.push_back(Param{key(name), std::string(doc), "string", field,
                       [&field, k = key(name)](const nlohmann::json& j) {
                         if (!j.is_string()) badValue(k, "expects a string");
                         field = j.get<std::string>();
                       },
                       [&field] { return nlohmann::json(field); }});
}

void Visitor::text(std::string_view name, std::string_view doc, std::string default_text,
                   std::function<std::string(std::string_view)> set,
                   std::function<std::string()> get) {
  out_.push_back(Param{key(name), std::string(doc), "string", std::move(default_text),
                       [set = std::move(set), k = key(name)](const nlohmann::json& j) {
                         if (!j.is_string()) badValue(k, "expects a string");
                         const std::string why = set(j.get<std::string>());
                         if (!why.empty()) badValue(k, why);
                       },
                       [get = std::move(get)] { return nlohmann::json(get()); }});
}

void Visitor::param(std::string_view name, std::string& field, std::string_view doc,
                    const std::vector<std::string>& choices) {
  std::vector<std::pair<std::string, int>> table;
  for (std::size_t i = 0; i < choices.size(); ++i) table.emplace_back(choices[i], i);
  choice(
      name, doc, std::move(table), [&field, choices](int v) { field = choices[v]; },
      [&field, choices] {
        for (std::size_t i = 0; i < choices.size(); ++i) {
          if (choices[i] == field) return static_cast<int>(i);
        }
        return -1;
      });
}

void Visitor::param(std::string_view name, double& field, std::string_view doc, Range range) {
  out_.push_back(Param{key(name), std::string(doc), "number", field,
                       [&field, range, k = key(name)](const nlohmann::json& j) {
                         if (!j.is_number()) badValue(k, "expects a number");
                         const double v = j.get<double>();
                         if (!(v >= range.min && v <= range.max)) {
                           badValue(k,
                                    fmt::format("{} is outside [{}, {}]", v, range.min, range.max));
                         }
                         field = v;
                       },
                       [&field] { return nlohmann::json(field); }});
}

void Visitor::integer(std::string_view name, std::string_view doc, Range range, bool is_signed,
                      double type_min, double type_max, std::function<void(i128)> set,
                      std::function<i128()> get) {
  const std::string k = key(name);
  const double lo = std::max(range.min, type_min);
  const double hi = std::min(range.max, type_max);
  const i128 current = get();
  nlohmann::json def = is_signed ? nlohmann::json(static_cast<i64>(current))
                                 : nlohmann::json(static_cast<u64>(current));
  out_.push_back(Param{k, std::string(doc), "integer", def,
                       [set, lo, hi, k, pow2 = range.power_of_two](const nlohmann::json& j) {
                         i128 v = 0;
                         if (j.is_number_unsigned()) {
                           v = j.get<u64>();
                         } else if (j.is_number_integer()) {
                           v = j.get<i64>();
                         } else {
                           badValue(k, fmt::format("expects an integer, got {}", describeJson(j)));
                         }
                         const double dv = static_cast<double>(v);
                         if (dv < lo || dv > hi) {
                           badValue(k, fmt::format("{} is outside [{}, {}]", integerText(v),
                                                   static_cast<i64>(lo),
                                                   hi >= 9.2e18 ? u64(-1) : u64(hi)));
                         }
                         if (pow2 && (v <= 0 || (v & (v - 1)) != 0)) {
                           badValue(k, fmt::format("{} is not a power of two", integerText(v)));
                         }
                         set(v);
                       },
                       [get, is_signed] {
                         const i128 v = get();
                         return is_signed ? nlohmann::json(static_cast<i64>(v))
                                          : nlohmann::json(static_cast<u64>(v));
                       }});
}

void Visitor::choice(std::string_view name, std::string_view doc,
                     std::vector<std::pair<std::string, int>> table, std::function<void(int)> set,
                     std::function<int()> get) {
  std::string names;
  std::string current;
  for (const auto& [text, value] : table) {
    names += names.empty() ? "" : "|";
    names += text;
    if (value == get()) current = text;
  }
  const std::string k = key(name);
  out_.push_back(Param{k, std::string(doc), "one of " + names, current,
                       [table, set, names, k](const nlohmann::json& j) {
                         if (j.is_string()) {
                           for (const auto& [text, value] : table) {
                             if (text == j.get<std::string>()) return set(value);
                           }
                         }
                         badValue(k, fmt::format("{} is not one of {}", describeJson(j), names));
                       },
                       [table, get]() -> nlohmann::json {
                         for (const auto& [text, value] : table) {
                           if (value == get()) return text;
                         }
                         return nullptr;
                       }});
}

const Param* Schema::find(std::string_view key) const {
  for (const Param& p : params_) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

void Schema::applyToml(std::string_view text, std::string_view origin,
                       std::initializer_list<std::string_view> ignored) {
  toml::table table;
  try {
    table = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    fail(ExitCode::kConfig, "{}:{}:{}: {}", origin, e.source().begin.line, e.source().begin.column,
         e.description());
  }
  Applier::walk(table, "", *this, origin, ignored);
}

void Schema::applyOverride(std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    fail(ExitCode::kConfig, "--set expects KEY=VALUE, got '{}'", assignment);
  }
  const std::string_view key = assignment.substr(0, eq);
  const Param& param = known(key, "");
  param.assign(parseOverrideValue(param, assignment.substr(eq + 1)));
  assigned_.emplace_back(key);
}

void Schema::retire(std::string old_key, std::string message) {
  retired_.emplace_back(std::move(old_key), std::move(message));
}

const Param& Schema::known(std::string_view key, std::string_view origin) const {
  if (const Param* param = find(key)) return *param;
  for (const auto& [old_key, message] : retired_) {
    if (key == old_key || (old_key.ends_with('.') && key.starts_with(old_key))) {
      fail(ExitCode::kConfig, "{}'{}' is no longer a configuration key: {}", origin, key, message);
    }
  }
  fail(ExitCode::kConfig, "{}unknown configuration key '{}' (see `hpmsim config --list`)", origin,
       key);
}

void Schema::omit(const std::function<bool(std::string_view key)>& inapplicable) {
  std::erase_if(params_, [&](const Param& p) { return inapplicable(p.key); });
}

nlohmann::json Schema::toJson() const {
  nlohmann::json root = nlohmann::json::object();
  for (const Param& p : params_) {
    nlohmann::json* node = &root;
    std::string_view rest = p.key;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      node = &(*node)[std::string(rest.substr(0, dot))];
      rest.remove_prefix(dot + 1);
    }
    (*node)[std::string(rest)] = p.read();
  }
  return root;
}

std::string Schema::toToml() const {
  // Group keys by their section, keeping the order in which sections first appear.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Param*>> sections;
  for (const Param& p : params_) {
    const auto dot = p.key.rfind('.');
    const std::string section = dot == std::string::npos ? "" : p.key.substr(0, dot);
    if (!sections.contains(section)) order.push_back(section);
    sections[section].push_back(&p);
  }
  std::ostringstream out;
  for (const std::string& section : order) {
    if (!section.empty()) out << "\n[" << section << "]\n";
    for (const Param* p : sections[section]) {
      const auto dot = p->key.rfind('.');
      out << (dot == std::string::npos ? p->key : p->key.substr(dot + 1)) << " = "
          << jsonText(p->read()) << "  # " << p->doc << "\n";
    }
  }
  return out.str();
}

}  // namespace hpm::config
