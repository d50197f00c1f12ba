#include "base/json_text.h"

#include <gtest/gtest.h>

#include <string>

namespace hpm {
namespace {

using nlohmann::json;

const std::string kReplacement = "\xef\xbf\xbd";  // U+FFFD in UTF-8

// Paths, arguments, environment values and region names are bytes, not always UTF-8: each
// invalid sequence is written as U+FFFD (keys too), valid UTF-8 passes unchanged, and the text
// is JSON that parses back.
TEST(JsonText, EachInvalidUtf8SequenceIsWrittenAsTheReplacementCharacter) {
  json j;
  j["command"] = {std::string("./prog\xff"), std::string("a\xe2\x82z"), "caf\xc3\xa9"};
  j[std::string("region\xfe")] = 1;
  const json back = json::parse(jsonText(j));
  EXPECT_EQ(back["command"][0], "./prog" + kReplacement);
  EXPECT_EQ(back["command"][1], "a" + kReplacement + "z");  // a character cut short: one
  EXPECT_EQ(back["command"][2], "caf\xc3\xa9");
  EXPECT_EQ(back["region" + kReplacement], 1);
  EXPECT_EQ(json::parse(jsonText(j, 2)), back);
}

}  // namespace
}  // namespace hpm
