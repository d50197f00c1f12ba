// Each hpmsim command's page (docs/commands/hpmsim-COMMAND.md, in the shape of perf's man pages)
// against the command itself, so that the pages cannot drift from the code: every command that
// `hpmsim --help` lists has its page, with the sections of a man page; the page's OPTIONS
// section lists every option the command's `--help` lists, and no option the command does not
// have; the EXAMPLES use only the command's options. And the README's documentation index links
// every file in docs/. Needs no guest program.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using hpm::test::RunResult;

const std::string kHpmsim = HPM_TEST_HPMSIM;
const fs::path kSource = HPM_TEST_SOURCE_DIR;

// `hpmsim ARGS... --help`'s output.
std::string help(std::vector<std::string> args) {
  std::vector<std::string> argv = {kHpmsim};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--help");
  const RunResult r = hpm::test::runProcess(argv, {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "",
                                            fs::current_path(), std::chrono::seconds{60});
  EXPECT_EQ(r.status(), 0) << r.describe() << r.err;
  return r.out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The commands a `--help` lists, in its order: the lines under a heading that ends in
// "commands:" or is "Subcommands:" (CLI11: two spaces, the name, its description).
std::vector<std::string> listedCommands(const std::string& help_text) {
  std::vector<std::string> out;
  bool in_list = false;
  for (const std::string& line : lines(help_text)) {
    if (!line.empty() && line[0] != ' ') {
      in_list =
          line.ends_with("commands:") || line.ends_with("Commands:") || line == "Subcommands:";
      continue;
    }
    if (in_list && line.starts_with("  ") && line.size() > 2 && line[2] != ' ') {
      out.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return out;
}

// The option names a `--help` lists under "Options:" ("-e,--event TEXT ..." gives -e and
// --event).
std::set<std::string> listedOptions(const std::string& help_text) {
  std::set<std::string> out;
  bool in_options = false;
  for (const std::string& line : lines(help_text)) {
    if (!line.empty() && line[0] != ' ') {
      in_options = line == "Options:";
      continue;
    }
    if (!in_options || !line.starts_with("  -")) continue;
    const std::string names = line.substr(2, line.find(' ', 2) - 2);
    std::istringstream split(names);
    for (std::string name; std::getline(split, name, ',');) out.insert(name);
  }
  return out;
}

// Every option of `hpmsim COMMAND` and of its own subcommands (`upc explore`).
std::set<std::string> commandOptions(const std::string& command) {
  const std::string text = help({command});
  std::set<std::string> out = listedOptions(text);
  for (const std::string& sub : listedCommands(text)) {
    const std::set<std::string> more = listedOptions(help({command, sub}));
    out.insert(more.begin(), more.end());
  }
  return out;
}

fs::path pagePath(const std::string& command) {
  return kSource / "docs" / "commands" / ("hpmsim-" + command + ".md");
}

// The text of the section headed "## NAME" of a Markdown page, up to the next "## " heading.
std::string section(const std::string& page, const std::string& name) {
  const std::string heading = "\n## " + name + "\n";
  const std::size_t begin = page.find(heading);
  if (begin == std::string::npos) return {};
  const std::size_t body = begin + heading.size();
  const std::size_t end = page.find("\n## ", body);
  return page.substr(body, end == std::string::npos ? std::string::npos : end - body);
}

// The options an OPTIONS section lists: its entries are the lines that begin with a list item of
// backquoted names, "- `-e`, `--event EVENTS`: ..." (a name's value may follow it inside the
// quotes).
std::set<std::string> pageOptions(const std::string& options_section) {
  std::set<std::string> out;
  static const std::regex entry("^- `-");
  static const std::regex name("`(--?[A-Za-z0-9][-A-Za-z0-9]*)[^`]*`(, |:| )");
  for (const std::string& line : lines(options_section)) {
    if (!std::regex_search(line, entry)) continue;
    // The entry's head: its backquoted names, up to the first ": ".
    const std::string head = line.substr(0, line.find("`: ") + 3);
    for (auto it = std::sregex_iterator(head.begin(), head.end(), name);
         it != std::sregex_iterator(); ++it) {
      out.insert((*it)[1]);
    }
  }
  return out;
}

// The commands hpmsim has, from `hpmsim --help`.
std::vector<std::string> commands() {
  const std::vector<std::string> out = listedCommands(help({}));
  EXPECT_GE(out.size(), 11u) << "hpmsim --help lists too few commands: " << help({});
  return out;
}

TEST(CommandPages, EveryCommandHasItsPageWithTheSectionsOfAManPage) {
  for (const std::string& command : commands()) {
    const std::string page = hpm::test::readFile(pagePath(command));
    ASSERT_FALSE(page.empty()) << pagePath(command) << " is missing or empty";
    EXPECT_TRUE(page.starts_with("# hpmsim-" + command + "\n"))
        << pagePath(command) << ": its title is not `# hpmsim-" << command << "`";
    for (const char* name :
         {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES", "SEE ALSO"}) {
      EXPECT_FALSE(section(page, name).empty()) << pagePath(command) << " has no " << name;
    }
    EXPECT_NE(section(page, "NAME").find("hpmsim-" + command + " - "), std::string::npos)
        << pagePath(command) << ": NAME is not `hpmsim-" << command << " - what it does`";
    EXPECT_NE(section(page, "SYNOPSIS").find("hpmsim " + command), std::string::npos)
        << pagePath(command) << ": SYNOPSIS does not show `hpmsim " << command << "`";
  }
}

TEST(CommandPages, OptionsSectionListsEveryOptionOfTheCommandAndNoOther) {
  for (const std::string& command : commands()) {
    const std::set<std::string> options = commandOptions(command);
    const std::set<std::string> listed =
        pageOptions(section(hpm::test::readFile(pagePath(command)), "OPTIONS"));
    for (const std::string& option : options) {
      EXPECT_TRUE(listed.contains(option)) << pagePath(command) << "'s OPTIONS does not list "
                                           << option << " (hpmsim " << command << " --help has it)";
    }
    for (const std::string& option : listed) {
      EXPECT_TRUE(options.contains(option)) << pagePath(command) << "'s OPTIONS lists " << option
                                            << ", which hpmsim " << command << " does not have";
    }
  }
}

// The options an example passes to hpmsim: each line of the EXAMPLES section's code that runs
// `hpmsim COMMAND` (joined over trailing backslashes), its words from the command up to `--`,
// the end of the command (`|`, `&&`, `;`, `>`, `2>`) or a comment.
TEST(CommandPages, ExamplesUseOnlyOptionsTheCommandHas) {
  static const std::regex invocation(R"((^|[\s/])hpmsim\s+([a-z0-9]+)\b(.*))");
  for (const std::string& command : commands()) {
    const std::set<std::string> options = commandOptions(command);
    std::string examples = section(hpm::test::readFile(pagePath(command)), "EXAMPLES");
    examples = std::regex_replace(examples, std::regex("\\\\\n"), " ");
    int invocations = 0;
    for (const std::string& line : lines(examples)) {
      std::smatch m;
      if (!std::regex_search(line, m, invocation) || m[2] != command) continue;
      ++invocations;
      std::istringstream words(m[3].str());
      for (std::string word; words >> word;) {
        if (word == "--" || word == "|" || word == "&&" || word == ";" || word == "#" ||
            word.starts_with(">") || word.starts_with("2>")) {
          break;
        }
        const std::size_t letter = word.find_first_not_of('-');
        if (word[0] != '-' || letter == std::string::npos ||
            std::isalpha(static_cast<unsigned char>(word[letter])) == 0) {
          continue;  // not an option (a value, a negative number)
        }
        const std::string name =
            word.starts_with("--") ? word.substr(0, word.find('=')) : word.substr(0, 2);
        EXPECT_TRUE(options.contains(name)) << pagePath(command) << ": an example passes " << name
                                            << ", which hpmsim " << command << " does not have:\n"
                                            << line;
      }
    }
    EXPECT_GT(invocations, 0) << pagePath(command) << "'s EXAMPLES never run hpmsim " << command;
  }
}

TEST(CommandPages, EveryPageBelongsToACommand) {
  const std::vector<std::string> all = commands();
  for (const fs::directory_entry& e : fs::directory_iterator(kSource / "docs" / "commands")) {
    const std::string file = e.path().filename().string();
    ASSERT_TRUE(file.starts_with("hpmsim-") && file.ends_with(".md")) << e.path();
    const std::string command = file.substr(7, file.size() - 7 - 3);
    EXPECT_NE(std::find(all.begin(), all.end(), command), all.end())
        << e.path() << " is the page of `hpmsim " << command << "`, which hpmsim does not have";
  }
}

TEST(CommandPages, HelpListsTheCommonCommandsFirst) {
  const std::string text = help({});
  const std::size_t common = text.find("\nCommon commands:\n");
  const std::size_t other = text.find("\nOther commands:\n");
  ASSERT_NE(common, std::string::npos) << text;
  ASSERT_NE(other, std::string::npos) << text;
  EXPECT_LT(common, other) << text;
  const std::vector<std::string> listed = listedCommands(text);
  ASSERT_GE(listed.size(), 2u) << text;
  EXPECT_EQ(listed[0], "run") << text;
  EXPECT_EQ(listed[1], "stat") << text;
}

// README.md's "## Documentation" section (up to the next "## " heading) links every file in
// docs/ (every command's page included): `](docs/FILE)`.
TEST(DocumentationIndex, ReadmeLinksEveryFileInDocs) {
  const std::string readme = hpm::test::readFile(kSource / "README.md");
  const std::string index = section(readme, "Documentation");
  ASSERT_FALSE(index.empty()) << "README.md has no \"## Documentation\" section";
  int files = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(kSource / "docs")) {
    if (!e.is_regular_file()) continue;
    ++files;
    const std::string path = fs::relative(e.path(), kSource).generic_string();
    EXPECT_NE(index.find("](" + path + ")"), std::string::npos)
        << "README.md's documentation index does not link " << path;
  }
  EXPECT_GT(files, 0);
}

}  // namespace
