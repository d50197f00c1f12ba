#include "config/schema.h"

#include <gtest/gtest.h>

namespace hpm::config {
namespace {

enum class Policy { kLru, kFifo };

struct Inner {
  u32 ways = 4;
  Policy policy = Policy::kLru;
  void visit(Visitor& v) {
    v.param("ways", ways, "Associativity", powerOfTwo(1, 64));
    v.param("policy", policy, "Replacement", {{"lru", Policy::kLru}, {"fifo", Policy::kFifo}});
  }
};

struct Root {
  std::string name = "x";
  u64 cores = 16;
  double clock_mhz = 1600;
  bool smt = true;
  Inner cache;
  void visit(Visitor& v) {
    v.param("name", name, "Name");
    v.param("cores", cores, "Cores", Range{1, 64});
    v.param("clock_mhz", clock_mhz, "Clock", Range{1, 1e5});
    v.param("smt", smt, "SMT");
    v.section("cache", cache);
  }
};

TEST(Schema, TomlSetsNestedKeys) {
  Root r;
  Schema s(r);
  s.applyToml("cores = 4\n[cache]\nways = 8\npolicy = \"fifo\"\n", "test");
  EXPECT_EQ(r.cores, 4u);
  EXPECT_EQ(r.cache.ways, 8u);
  EXPECT_EQ(r.cache.policy, Policy::kFifo);
}

TEST(Schema, UnknownTomlKeyIsAnErrorNamingTheKey) {
  Root r;
  Schema s(r);
  try {
    s.applyToml("[cache]\nsize = 8\n", "file.toml");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cache.size"), std::string::npos) << e.what();
    EXPECT_EQ(e.code(), ExitCode::kConfig);
  }
}

TEST(Schema, OverridesParseByType) {
  Root r;
  Schema s(r);
  s.applyOverride("cores=0x20");
  s.applyOverride("smt=false");
  s.applyOverride("clock_mhz=850");
  s.applyOverride("name=bgp");
  EXPECT_EQ(r.cores, 32u);
  EXPECT_FALSE(r.smt);
  EXPECT_DOUBLE_EQ(r.clock_mhz, 850);
  EXPECT_EQ(r.name, "bgp");
}

TEST(Schema, OutOfRangeAndBadTypesAreRejected) {
  Root r;
  Schema s(r);
  EXPECT_THROW(s.applyOverride("cores=0"), Error);
  EXPECT_THROW(s.applyOverride("cores=65"), Error);
  EXPECT_THROW(s.applyOverride("cores=abc"), Error);
  EXPECT_THROW(s.applyOverride("cache.ways=3"), Error);  // not a power of two
  EXPECT_THROW(s.applyOverride("cache.policy=mru"), Error);
  EXPECT_THROW(s.applyOverride("nokey=1"), Error);
  EXPECT_THROW(s.applyOverride("cores"), Error);
  EXPECT_THROW(s.applyToml("cores = \"many\"", "t"), Error);
  EXPECT_THROW(s.applyToml("cores = [", "t"), Error);
  EXPECT_EQ(r.cores, 16u);
}

TEST(Schema, EffectiveConfigRoundTripsThroughToml) {
  Root r;
  Schema s(r);
  s.applyOverride("cache.policy=fifo");
  s.applyOverride("cores=3");
  const std::string text = s.toToml();
  Root copy;
  Schema s2(copy);
  s2.applyToml(text, "roundtrip");
  EXPECT_EQ(s2.toJson(), s.toJson());
  EXPECT_EQ(s.toJson()["cache"]["policy"], "fifo");
  EXPECT_EQ(s.toJson()["cores"], 3);
}

}  // namespace
}  // namespace hpm::config
