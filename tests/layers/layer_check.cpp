#include "tests/layers/layer_check.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>

namespace hpm::layers {

namespace fs = std::filesystem;

std::string Graph::read(std::istream& in) {
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::string kind, name, other, extra;
    if (!(words >> kind >> name >> other) || (words >> extra)) {
      return "line " + std::to_string(n) + " is not three words: '" + line + "'";
    }
    if (kind == "library") {
      folder[name] = other;
    } else if (kind == "link") {
      links[name].push_back(other);
    } else if (kind == "source") {
      library_of_source[other] = name;
    } else {
      return "line " + std::to_string(n) + " is neither library, link nor source: '" + line + "'";
    }
  }
  return "";
}

std::set<std::string> Graph::allowedFolders(const std::string& library) const {
  std::set<std::string> folders;
  std::set<std::string> seen = {library};
  std::vector<std::string> todo = {library};
  while (!todo.empty()) {
    const std::string lib = todo.back();
    todo.pop_back();
    if (const auto f = folder.find(lib); f != folder.end()) folders.insert(f->second);
    if (const auto l = links.find(lib); l != links.end()) {
      for (const std::string& next : l->second) {
        if (seen.insert(next).second) todo.push_back(next);
      }
    }
  }
  return folders;
}

std::string Graph::folderOf(const std::string& path) const {
  std::string best;
  for (const auto& [lib, f] : folder) {
    const bool inside =
        path == f || (path.size() > f.size() && path.starts_with(f) && path[f.size()] == '/');
    if (inside && f.size() > best.size()) best = f;
  }
  return best;
}

namespace {

// The path of a `#include "path"` line (spaces allowed around '#' and "include"), or "" for any
// other line. (By hand rather than std::regex, whose code g++ 12 warns about under the
// sanitizers' -O2: -Wmaybe-uninitialized inside <regex>.)
std::string quotedInclude(std::string_view line) {
  std::size_t i = 0;
  const auto spaces = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  spaces();
  if (i >= line.size() || line[i] != '#') return "";
  ++i;
  spaces();
  if (line.substr(i, 7) != "include") return "";
  i += 7;
  spaces();
  if (i >= line.size() || line[i] != '"') return "";
  const std::size_t end = line.find('"', i + 1);
  if (end == std::string_view::npos || end == i + 1) return "";
  return std::string(line.substr(i + 1, end - i - 1));
}

// The libraries whose folder is `f`, for messages ("hpm_upc, hpm_upc_component").
std::string librariesIn(const Graph& graph, const std::string& f) {
  std::string names;
  for (const auto& [lib, lf] : graph.folder) {
    if (lf == f) names += (names.empty() ? "" : ", ") + lib;
  }
  return names;
}

}  // namespace

std::vector<Violation> check(const Graph& graph, const fs::path& src) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    const fs::path& p = entry.path();
    if (entry.is_regular_file() && (p.extension() == ".h" || p.extension() == ".cpp")) {
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());

  std::vector<Violation> violations;
  for (const fs::path& path : files) {
    const std::string rel = fs::relative(path, src).generic_string();
    const std::string own = graph.folderOf(rel);
    if (own.empty()) {
      violations.push_back({rel, 0, "", "the file is in no library's folder (src/CMakeLists.txt)"});
      continue;
    }
    // A listed source answers to its own library's links; a header to any library of its folder.
    std::set<std::string> allowed;
    std::string refusal;  // who does not link what the include names
    if (const auto s = graph.library_of_source.find(rel); s != graph.library_of_source.end()) {
      allowed = graph.allowedFolders(s->second);
      refusal = s->second + " does not link it";
    } else {
      for (const auto& [lib, f] : graph.folder) {
        if (f != own) continue;
        allowed.merge(graph.allowedFolders(lib));
      }
      refusal = "no library of src/" + own + " (" + librariesIn(graph, own) + ") links it";
    }

    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const std::string include = quotedInclude(line);
      if (include.empty()) continue;
      // The path the include names under src/: beside the includer first, as the compiler
      // looks, then from src/ (every library's include root).
      std::string named =
          (fs::path(rel).parent_path() / include).lexically_normal().generic_string();
      if (!fs::exists(src / named)) {
        const std::string first = include.substr(0, include.find('/'));
        if (include.find('/') == std::string::npos || !fs::is_directory(src / first)) continue;
        named = include;
      }
      const std::string target = graph.folderOf(named);
      if (target.empty()) {
        violations.push_back({rel, n, include, "it names a folder of src/ that is no library's"});
      } else if (!allowed.contains(target)) {
        violations.push_back(
            {rel, n, include,
             "src/" + target + " is " + librariesIn(graph, target) + "'s, and " + refusal});
      }
    }
  }
  return violations;
}

std::string describe(const Violation& v) {
  return v.file + ":" + std::to_string(v.line) + ": #include \"" + v.include + "\": " + v.reason;
}

}  // namespace hpm::layers
