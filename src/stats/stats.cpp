#include "stats/stats.h"

#include <fmt/core.h>

#include <algorithm>

#include "base/error.h"

namespace hpm::stats {

JsonWriter::JsonWriter() : root_(nlohmann::json::object()), units_(nlohmann::json::object()) {
  stack_.push_back(&root_);
}

void JsonWriter::put(std::string_view name, nlohmann::json value, Measure m) {
  nlohmann::json& top = *stack_.back();
  const bool element = top.is_array();
  if (element) {
    top.push_back(std::move(value));
  } else {
    top[std::string(name)] = std::move(value);
  }
  std::string path;
  for (const std::string& part : pattern_) path += part + '.';
  path += element ? std::string_view("*") : name;
  const nlohmann::json entry = {{"kind", kindName(m.kind)}, {"unit", unitName(m.unit)}};
  nlohmann::json& known = units_[path];
  if (!known.is_null() && known != entry) {
    fail(ExitCode::kInternal, "statistic '{}' is declared as {} and as {}", path, known.dump(),
         entry.dump());
  }
  known = entry;
}

void JsonWriter::counter(std::string_view name, u64 value, Measure m, std::string_view) {
  put(name, value, m);
}
void JsonWriter::real(std::string_view name, double value, Measure m, std::string_view) {
  put(name, value, m);
}
void JsonWriter::text(std::string_view name, std::string_view value, std::string_view) {
  put(name, std::string(value), kText);
}

void JsonWriter::beginGroup(std::string_view name) {
  nlohmann::json& top = *stack_.back();
  if (top.is_array()) {
    top.push_back(nlohmann::json::object());
    stack_.push_back(&top.back());
    pattern_.emplace_back("*");
  } else {
    nlohmann::json& child = top[std::string(name)];
    if (!child.is_object()) child = nlohmann::json::object();
    stack_.push_back(&child);
    pattern_.emplace_back(name);
  }
}

void JsonWriter::endGroup() {
  stack_.pop_back();
  pattern_.pop_back();
}

void JsonWriter::beginList(std::string_view name) {
  nlohmann::json& top = *stack_.back();
  nlohmann::json& child = top[std::string(name)];
  child = nlohmann::json::array();
  stack_.push_back(&child);
  pattern_.emplace_back(name);
}

void JsonWriter::endList() {
  stack_.pop_back();
  pattern_.pop_back();
}

std::string TextWriter::path(std::string_view name) const {
  std::string p;
  for (const auto& part : prefix_) {
    p += part;
    p += '.';
  }
  p += name;
  return p;
}

void TextWriter::put(std::string_view name, std::string value, std::string_view doc) {
  lines_.push_back(Line{path(name), std::move(value), std::string(doc)});
}

// (The text keeps its format: "path value  # doc"; the measures are the JSON's.)
void TextWriter::counter(std::string_view name, u64 value, Measure, std::string_view doc) {
  put(name, std::to_string(value), doc);
}
void TextWriter::real(std::string_view name, double value, Measure, std::string_view doc) {
  put(name, fmt::format("{:.6g}", value), doc);
}
void TextWriter::text(std::string_view name, std::string_view value, std::string_view doc) {
  put(name, std::string(value), doc);
}

void TextWriter::beginGroup(std::string_view name) {
  if (!list_index_.empty() && list_index_.back() >= 0) {
    prefix_.push_back(fmt::format("{}", list_index_.back()++));
  } else {
    prefix_.emplace_back(name);
  }
  list_index_.push_back(-1);
}

void TextWriter::endGroup() {
  prefix_.pop_back();
  list_index_.pop_back();
}

void TextWriter::beginList(std::string_view name) {
  prefix_.emplace_back(name);
  list_index_.push_back(0);
}

void TextWriter::endList() {
  prefix_.pop_back();
  list_index_.pop_back();
}

std::string TextWriter::str() const {
  std::size_t path_width = 0;
  std::size_t value_width = 0;
  for (const Line& l : lines_) {
    path_width = std::max(path_width, l.path.size());
    value_width = std::max(value_width, l.value.size());
  }
  std::string out;
  for (const Line& l : lines_) {
    out += fmt::format("{:<{}}  {:>{}}", l.path, path_width, l.value, value_width);
    if (!l.doc.empty()) out += fmt::format("  # {}", l.doc);
    out += '\n';
  }
  return out;
}

}  // namespace hpm::stats
