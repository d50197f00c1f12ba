// The layers of docs/architecture.md, enforced: no file of a library under src/ includes a
// library that it does not link (the link graph, written by cmake/Layers.cmake, is their one
// declaration). The checker's own rules are shown on small made-up trees.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/layers/layer_check.h"
#include "tests/support/process.h"

namespace hpm::layers {
namespace {

namespace fs = std::filesystem;

Graph graphOf(const std::string& text) {
  Graph graph;
  std::istringstream in(text);
  EXPECT_EQ(graph.read(in), "");
  return graph;
}

// A made-up src/ tree: FILES are (path under src/, text) pairs.
class Tree {
 public:
  Tree(std::initializer_list<std::pair<std::string, std::string>> files) {
    for (const auto& [path, text] : files) {
      const fs::path p = src() / path;
      fs::create_directories(p.parent_path());
      std::ofstream(p) << text;
    }
  }
  fs::path src() const { return dir_.path() / "src"; }

 private:
  test::TempDir dir_{"hpm-layers"};
};

std::vector<std::string> described(const std::vector<Violation>& violations) {
  std::vector<std::string> lines;
  for (const Violation& v : violations) lines.push_back(describe(v));
  return lines;
}

// Three layers: top links mid, mid links low.
const char* const kThreeLayers =
    "library hpm_low low\n"
    "library hpm_mid mid\n"
    "link hpm_mid hpm_low\n"
    "link hpm_mid fmt::fmt\n"
    "library hpm_top top\n"
    "link hpm_top hpm_mid\n"
    "source hpm_top top/top.cpp\n";

TEST(LayerCheck, AnIncludeOfALibraryLinkedDirectlyOrThroughAnotherIsAccepted) {
  const Tree tree({{"low/low.h", "#pragma once\n"},
                   {"mid/mid.h", "#include \"low/low.h\"\n"},
                   {"top/top.cpp", "#include \"mid/mid.h\"\n#include \"low/low.h\"\n"}});
  EXPECT_EQ(described(check(graphOf(kThreeLayers), tree.src())), std::vector<std::string>{});
}

TEST(LayerCheck, AnIncludeUpTheLayersIsRefusedWithItsFileAndLine) {
  const Tree tree({{"low/low.h", "#pragma once\n\n#include \"mid/mid.h\"\n"},
                   {"mid/mid.h", "#include \"top/top.h\"\n"},
                   {"top/top.h", "#pragma once\n"}});
  EXPECT_EQ(described(check(graphOf(kThreeLayers), tree.src())),
            (std::vector<std::string>{
                "low/low.h:3: #include \"mid/mid.h\": src/mid is hpm_mid's, and no library of "
                "src/low (hpm_low) links it",
                "mid/mid.h:1: #include \"top/top.h\": src/top is hpm_top's, and no library of "
                "src/mid (hpm_mid) links it"}));
}

TEST(LayerCheck, ASourceAnswersToItsOwnLibrarysLinksAndAHeaderToItsFolders) {
  // Two libraries in one folder (as pmu/upc: the unit, and the unit as a component): the unit's
  // source may not include what only the component links; the folder's headers may.
  const std::string graph = std::string(kThreeLayers) +
                            "library hpm_unit unit\n"
                            "source hpm_unit unit/unit.cpp\n"
                            "library hpm_unit_component unit\n"
                            "link hpm_unit_component hpm_unit\n"
                            "link hpm_unit_component hpm_top\n"
                            "source hpm_unit_component unit/component.cpp\n";
  const Tree tree({{"top/top.h", "#pragma once\n"},
                   {"unit/unit.cpp", "#include \"unit/component.h\"\n#include \"top/top.h\"\n"},
                   {"unit/component.h", "#include \"top/top.h\"\n"},
                   {"unit/component.cpp", "#include \"top/top.h\"\n"}});
  EXPECT_EQ(described(check(graphOf(graph), tree.src())),
            std::vector<std::string>{"unit/unit.cpp:2: #include \"top/top.h\": src/top is "
                                     "hpm_top's, and hpm_unit does not link it"});
}

TEST(LayerCheck, TheLongestLibraryFolderNamesASubfolder) {
  // pmu/imon is hpm_imon's even though pmu is hpm_pmu's: linking hpm_pmu is not enough.
  const Tree tree({{"pmu/unit.h", "#include \"pmu/imon/imon.h\"\n"},
                   {"pmu/imon/imon.h", "#include \"pmu/unit.h\"\n"}});
  EXPECT_EQ(described(check(graphOf("library hpm_pmu pmu\n"
                                    "library hpm_imon pmu/imon\n"
                                    "link hpm_imon hpm_pmu\n"),
                            tree.src())),
            std::vector<std::string>{"pmu/unit.h:1: #include \"pmu/imon/imon.h\": src/pmu/imon is "
                                     "hpm_imon's, and no library of src/pmu (hpm_pmu) links it"});
}

TEST(LayerCheck, IncludesBesideTheIncluderAndOutsideSrcAreNoLayers) {
  const Tree tree({{"low/a.h", "#include \"b.h\"\n#include \"fmt/core.h\"\n"},
                   {"low/b.h", "#include <vector>\n"}});
  EXPECT_EQ(described(check(graphOf("library hpm_low low\n"), tree.src())),
            std::vector<std::string>{});
}

TEST(LayerCheck, AFileOrAnIncludeInAFolderOfNoLibraryIsRefused) {
  const Tree tree({{"low/a.h", "#include \"stray/s.h\"\n"}, {"stray/s.h", "\n"}});
  EXPECT_EQ(described(check(graphOf("library hpm_low low\n"), tree.src())),
            (std::vector<std::string>{
                "low/a.h:1: #include \"stray/s.h\": it names a folder of src/ that is no "
                "library's",
                "stray/s.h:0: #include \"\": the file is in no library's folder "
                "(src/CMakeLists.txt)"}));
}

TEST(LayerCheck, AGraphLineOfAnotherShapeIsRefused) {
  Graph graph;
  std::istringstream in("library hpm_low low\nlinks hpm_low hpm_base\n");
  EXPECT_EQ(graph.read(in), "line 2 is neither library, link nor source: 'links hpm_low hpm_base'");
}

// The rule itself, on this tree and this build's link graph.
TEST(Layers, NoLibraryIncludesALibraryItDoesNotDependOn) {
  Graph graph;
  std::ifstream in(HPM_LAYERS_FILE);
  ASSERT_TRUE(in) << HPM_LAYERS_FILE;
  ASSERT_EQ(graph.read(in), "");
  ASSERT_TRUE(graph.folder.contains("hpm_base") && graph.folder.contains("hpm_cluster"))
      << "the graph names the libraries under src/";
  EXPECT_EQ(described(check(graph, fs::path(HPM_SOURCE_DIR) / "src")), std::vector<std::string>{});
}

}  // namespace
}  // namespace hpm::layers
