// docs/papi.md's table of PAPI's own tests (issue 40) against the script that writes it,
// bench/papi_ctests.sh: the table is generated from a run that takes hours and needs PAPI's
// sources, so no test regenerates it; these checks keep it from drifting from the script silently
// (a test added to the script's lists without a row, a row hand-edited, a summary that does not
// add up).
//
// (The lines are parsed by hand, not with std::regex: g++ 12 at -O2 with the sanitizers warns
// inside <regex>'s automaton, -Wmaybe-uninitialized, and warnings are errors.)
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::string read(const std::string& relative) {
  std::ifstream in(std::string(HPM_TEST_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The words of the script's bash array `NAME=(...)` (it may span lines), each as DIR/word: the
// lists the script runs when given no test.
std::vector<std::string> script_list(const std::string& script, const std::string& name) {
  std::vector<std::string> words;
  const std::string opening = "\n" + name + "=(";
  const auto start = script.find(opening);
  if (start == std::string::npos) {
    return words;
  }
  const auto first = start + opening.size();
  const auto end = script.find(')', first);
  std::istringstream body(script.substr(first, end - first));
  for (std::string word; body >> word;) {
    words.push_back(name + "/" + word);
  }
  return words;
}

std::vector<std::string> script_tests() {
  const std::string script = read("bench/papi_ctests.sh");
  auto tests = script_list(script, "validation_tests");
  const auto ctests = script_list(script, "ctests");
  tests.insert(tests.end(), ctests.begin(), ctests.end());
  return tests;
}

// The generated part of docs/papi.md, between its marker lines, as lines.
std::vector<std::string> generated_lines() {
  std::istringstream doc(read("docs/papi.md"));
  std::vector<std::string> lines;
  bool inside = false;
  for (std::string line; std::getline(doc, line);) {
    if (line == "<!-- papi-ctests:begin -->") {
      inside = true;
    } else if (line == "<!-- papi-ctests:end -->") {
      break;
    } else if (inside) {
      lines.push_back(line);
    }
  }
  return lines;
}

struct Row {
  std::string test, result, seconds, note;
};

bool all_of_class(const std::string& text, int (*is_class)(int), const std::string& also = "") {
  if (text.empty()) {
    return false;
  }
  for (const char c : text) {
    if (is_class(static_cast<unsigned char>(c)) == 0 && also.find(c) == std::string::npos) {
      return false;
    }
  }
  return true;
}

// A line `| test | result | seconds | note |`: the test has no space or bar, the result is lower
// case letters, the seconds digits and points. A note may hold an escaped bar (\|); it is the last
// cell, so it takes the rest.
std::optional<Row> parse_row(const std::string& line) {
  if (!line.starts_with("| ") || !line.ends_with(" |") || line.size() < 4) {
    return std::nullopt;
  }
  const std::string body = line.substr(2, line.size() - 4);
  Row row;
  std::size_t at = 0;
  for (std::string* cell : {&row.test, &row.result, &row.seconds}) {
    const auto bar = body.find(" | ", at);
    if (bar == std::string::npos) {
      return std::nullopt;
    }
    *cell = body.substr(at, bar - at);
    at = bar + 3;
  }
  row.note = body.substr(at);
  const bool test_ok = !row.test.empty() && row.test.find_first_of(" |") == std::string::npos;
  if (!test_ok || !all_of_class(row.result, islower) || !all_of_class(row.seconds, isdigit, ".")) {
    return std::nullopt;
  }
  return row;
}

std::vector<Row> table_rows() {
  std::vector<Row> rows;
  for (const auto& line : generated_lines()) {
    if (line == "| test | result | host s | note |") {
      continue;
    }
    if (auto row = parse_row(line)) {
      rows.push_back(*row);
    }
  }
  return rows;
}

// Consumes `literal` from the front of `text`.
bool eat(std::string_view& text, std::string_view literal) {
  if (!text.starts_with(literal)) {
    return false;
  }
  text.remove_prefix(literal.size());
  return true;
}

// Consumes a run of digits from the front of `text` into `value`.
bool eat_number(std::string_view& text, int& value) {
  std::size_t n = 0;
  while (n < text.size() && std::isdigit(static_cast<unsigned char>(text[n])) != 0) {
    ++n;
  }
  if (n == 0) {
    return false;
  }
  value = std::stoi(std::string(text.substr(0, n)));
  text.remove_prefix(n);
  return true;
}

// `Summary: N tests: P passed, S skipped, F failed, T ran out of the budget of B s.`
std::optional<std::vector<int>> parse_summary(std::string_view text) {
  std::vector<int> v(6);
  if (eat(text, "Summary: ") && eat_number(text, v[0]) && eat(text, " tests: ") &&
      eat_number(text, v[1]) && eat(text, " passed, ") && eat_number(text, v[2]) &&
      eat(text, " skipped, ") && eat_number(text, v[3]) && eat(text, " failed, ") &&
      eat_number(text, v[4]) && eat(text, " ran out of the budget of ") && eat_number(text, v[5]) &&
      eat(text, " s.") && text.empty()) {
    return v;
  }
  return std::nullopt;
}

struct Command {
  std::string arguments, budget;
};

// `Generated by \`bench/papi_ctests.sh ARGUMENTS BUDGET\` on YYYY-MM-DD, PAPI papi-7-TAG`
std::optional<Command> parse_command(std::string_view text) {
  if (!eat(text, "Generated by `bench/papi_ctests.sh ")) {
    return std::nullopt;
  }
  const auto tick = text.find('`');
  if (tick == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string quoted(text.substr(0, tick));
  text.remove_prefix(tick + 1);
  const auto space = quoted.rfind(' ');
  if (space == std::string::npos || !all_of_class(quoted.substr(space + 1), isdigit)) {
    return std::nullopt;
  }
  int year = 0;
  int month = 0;
  int day = 0;
  const auto date_start = text;
  if (!(eat(text, " on ") && eat_number(text, year) && eat(text, "-") && eat_number(text, month) &&
        eat(text, "-") && eat_number(text, day) && date_start.size() - text.size() == 14 &&
        eat(text, ", PAPI papi-7-") && !text.empty() && text.find(' ') == std::string_view::npos)) {
    return std::nullopt;
  }
  return Command{quoted.substr(0, space), quoted.substr(space + 1)};
}

TEST(PapiCtestsDoc, TheTableHasMarkersAHeaderAndEveryLineOfItIsAWellFormedRow) {
  const auto lines = generated_lines();
  ASSERT_FALSE(lines.empty()) << "docs/papi.md has no <!-- papi-ctests:begin/end --> section";
  std::size_t table_lines = 0;
  bool header = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == "| test | result | host s | note |") {
      header = true;
      ASSERT_LT(i + 1, lines.size());
      EXPECT_EQ(lines[i + 1], "|---|---|---|---|");
    } else if (lines[i].starts_with("|") && lines[i] != "|---|---|---|---|") {
      ++table_lines;
    }
  }
  EXPECT_TRUE(header);
  EXPECT_EQ(table_rows().size(), table_lines) << "a line of the table is not a row of 4 cells";
}

TEST(PapiCtestsDoc, EveryTestTheScriptRunsHasOneRowInTheScriptsOrder) {
  const auto tests = script_tests();
  ASSERT_GT(tests.size(), 100U) << "bench/papi_ctests.sh's validation_tests=( and ctests=( lists";
  std::vector<std::string> names;
  for (const auto& r : table_rows()) {
    names.push_back(r.test);
  }
  EXPECT_EQ(names, tests);
}

TEST(PapiCtestsDoc, EveryResultIsTheScriptsAndEveryTestThatDidNotPassSaysWhy) {
  static const std::set<std::string> results = {"passed", "skipped", "failed", "timeout"};
  for (const auto& r : table_rows()) {
    EXPECT_TRUE(results.contains(r.result)) << r.test << ": " << r.result;
    if (r.result != "passed") {
      EXPECT_FALSE(r.note.empty()) << r.test << " " << r.result << " without a reason";
    }
  }
}

TEST(PapiCtestsDoc, TheSummaryCountsAddUpToTheRowsAndTheBudgetIsTheCommands) {
  const auto lines = generated_lines();
  std::map<std::string, int> counted;
  for (const auto& r : table_rows()) {
    ++counted[r.result];
  }
  bool found_summary = false;
  bool found_command = false;
  std::string budget;
  for (const auto& line : lines) {
    if (const auto command = parse_command(line)) {
      found_command = true;
      budget = command->budget;
      EXPECT_NE(command->arguments.find("--markdown docs/papi.md"), std::string::npos) << line;
    }
  }
  EXPECT_TRUE(found_command) << "no line naming the command, the date and the PAPI tag";
  for (const auto& line : lines) {
    const auto m = parse_summary(line);
    if (!m) {
      continue;
    }
    found_summary = true;
    const auto& v = *m;
    EXPECT_EQ(static_cast<std::size_t>(v[0]), table_rows().size());
    EXPECT_EQ(v[1], counted["passed"]);
    EXPECT_EQ(v[2], counted["skipped"]);
    EXPECT_EQ(v[3], counted["failed"]);
    EXPECT_EQ(v[4], counted["timeout"]);
    EXPECT_EQ(v[1] + v[2] + v[3] + v[4], v[0]);
    EXPECT_EQ(std::to_string(v[5]), budget) << "the summary's budget is not the command's";
  }
  EXPECT_TRUE(found_summary) << "no summary line";
  for (const auto& r : table_rows()) {
    if (r.result == "timeout") {
      EXPECT_NE(r.note.find("ran out of the budget of " + budget + " s"), std::string::npos)
          << r.test;
    }
  }
}

}  // namespace
