#include "kernel/files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/error.h"

namespace hpm {
namespace {

TEST(FileSystem, NormalizeFoldsDotsWithoutLeavingTheRoot) {
  EXPECT_EQ(FileSystem::normalize("/", "a/b/../c"), "/a/c");
  EXPECT_EQ(FileSystem::normalize("/x/y", "../../../../etc"), "/etc");
  EXPECT_EQ(FileSystem::normalize("/x", "/abs//./p/"), "/abs/p");
  EXPECT_EQ(FileSystem::normalize("/", ".."), "/");
}

class SandboxTest : public ::testing::Test {
 protected:
  SandboxTest() {
    char tmpl[] = "/tmp/hpmsim-sandbox-XXXXXX";
    base_ = ::mkdtemp(tmpl);
    std::filesystem::create_directories(base_ + "/root/sub");
    std::ofstream(base_ + "/secret") << "outside";
    std::ofstream(base_ + "/root/inside") << "inside";
  }
  ~SandboxTest() override { std::filesystem::remove_all(base_); }
  std::string readAll(int fd) {
    char buf[64] = {};
    const ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  }
  std::string base_;
};

TEST_F(SandboxTest, PathsResolveInsideTheRoot) {
  FileSystem fs(base_ + "/root");
  EXPECT_EQ(readAll(fs.open("/inside", O_RDONLY, 0)), "inside");
  EXPECT_EQ(readAll(fs.open("/sub/../inside", O_RDONLY, 0)), "inside");
}

TEST_F(SandboxTest, DotDotCannotEscape) {
  FileSystem fs(base_ + "/root");
  EXPECT_LT(fs.open("/../secret", O_RDONLY, 0), 0);
  EXPECT_LT(fs.open("/sub/../../secret", O_RDONLY, 0), 0);
}

TEST_F(SandboxTest, SymlinksCannotEscape) {
  FileSystem fs(base_ + "/root");
  ASSERT_EQ(::symlink((base_ + "/secret").c_str(), (base_ + "/root/abs_link").c_str()), 0);
  ASSERT_EQ(::symlink("../secret", (base_ + "/root/rel_link").c_str()), 0);
  ASSERT_EQ(::symlink("/inside", (base_ + "/root/good_link").c_str()), 0);
  EXPECT_LT(fs.open("/abs_link", O_RDONLY, 0), 0);
  EXPECT_LT(fs.open("/rel_link", O_RDONLY, 0), 0);
  // Absolute targets are taken relative to the sandbox root.
  EXPECT_EQ(readAll(fs.open("/good_link", O_RDONLY, 0)), "inside");
}

TEST_F(SandboxTest, ProcSelfRootCannotEscape) {
  FileSystem fs(base_ + "/root");
  EXPECT_LT(fs.open("/proc/self/root/etc/passwd", O_RDONLY, 0), 0);
}

TEST_F(SandboxTest, ChdirStaysInside) {
  FileSystem fs(base_ + "/root");
  EXPECT_EQ(fs.chdir("/sub"), 0);
  EXPECT_EQ(fs.cwd(), "/sub");
  EXPECT_EQ(fs.chdir("/../../.."), 0);
  EXPECT_EQ(fs.cwd(), "/");
  EXPECT_LT(fs.chdir("/missing"), 0);
}

TEST_F(SandboxTest, MissingRootIsAClearError) {
  EXPECT_THROW(FileSystem(base_ + "/nope"), Error);
}

}  // namespace
}  // namespace hpm
