// The layers of src/ (docs/architecture.md) checked against the build's link graph: a file of a
// library may include only its own folder's files and those of the libraries it links, directly
// or through them. The graph is the one declaration of the layers; cmake/Layers.cmake writes it
// at configure time from the targets' links, so no second table of allowed includes exists.
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace hpm::layers {

// The libraries under src/, as cmake/Layers.cmake writes them.
struct Graph {
  std::map<std::string, std::string> folder;              // library -> its folder under src/
  std::map<std::string, std::vector<std::string>> links;  // library -> what it links directly
  std::map<std::string, std::string> library_of_source;   // a listed source -> its library

  // Reads the file's lines ("library NAME FOLDER", "link NAME OTHER", "source NAME FILE").
  // Returns why it is refused (a line of another shape), or "".
  std::string read(std::istream& in);
  // The folders a file of `library` may include from: its own and those of every library it
  // links, transitively (links to targets outside src/, such as fmt::fmt, name no folder).
  std::set<std::string> allowedFolders(const std::string& library) const;
  // The library folder holding `path` (a path under src/, or an include's path): the longest
  // folder that is a prefix of it, or "" when none is.
  std::string folderOf(const std::string& path) const;
};

// An include that runs against the graph.
struct Violation {
  std::string file;     // under src/
  int line = 0;         // 1-based
  std::string include;  // the quoted path as written
  std::string reason;
};

// Every violation among the .h and .cpp files under `src`: a file is held to the links of the
// library whose sources list it, or (headers) of every library of its folder. A quoted include
// that names a file beside the includer is its own folder's; one whose first part is a folder of
// src/ must name a library folder the file may include from. Others (the standard library,
// fmt/, nlohmann/) are not layers and are not checked. A file in a folder of no library is a
// violation too: its layer is undeclared.
std::vector<Violation> check(const Graph& graph, const std::filesystem::path& src);

// "FILE:LINE: #include "PATH": REASON".
std::string describe(const Violation& v);

}  // namespace hpm::layers
