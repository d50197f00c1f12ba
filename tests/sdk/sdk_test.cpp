// The guest SDK (guest/sdk, docs/sdk.md) used as a user uses it, from a folder outside the
// project: programs built with its wrappers, with its CMake toolchain file and with its
// pkg-config files run under hpmsim; the wrappers print their command for -show, find the SDK
// from their own place when it moves, and say when the Fortran cross compiler is missing.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/process.h"

namespace {

namespace fs = std::filesystem;
using hpm::test::RunResult;
using hpm::test::TempDir;

// (Its physical path: the wrappers give that.)
const fs::path kSdk = fs::weakly_canonical(HPM_TEST_SDK_DIR);
const std::string kHpmsim = HPM_TEST_HPMSIM;
constexpr std::chrono::seconds kTimeout{120};

// `command` run by /bin/sh in `cwd` with a plain environment.
RunResult sh(const std::string& command, const fs::path& cwd) {
  return hpm::test::runProcess({"/bin/sh", "-c", command},
                               {"PATH=/usr/bin:/bin", "HOME=/", "LANG=C"}, "", cwd, kTimeout);
}

// A run's status and output, for a failure's message.
std::string shown(const RunResult& r) {
  return r.describe() + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string bin(const std::string& wrapper) {
  return (kSdk / "bin" / wrapper).string();
}

// A PAPI program: PAPI_TOT_INS around a loop.
const char* const kPapiProgram = R"(#include <papi.h>
#include <stdio.h>
int main(void) {
  int set = PAPI_NULL;
  long long count = 0;
  volatile long sum = 0;
  if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) return 1;
  if (PAPI_create_eventset(&set) != PAPI_OK) return 2;
  if (PAPI_add_event(set, PAPI_TOT_INS) != PAPI_OK) return 3;
  PAPI_start(set);
  for (int i = 0; i < 10000; ++i) sum += i;
  PAPI_stop(set, &count);
  printf("PAPI_TOT_INS %s\n", count >= 10000 && count < 200000 ? "counted the loop" : "wrong");
  return 0;
}
)";

// An MPI program: a sum over every rank.
const char* const kMpiProgram = R"(#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv) {
  int rank, size, one, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  one = rank + 1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d: sum %d\n", rank, size, sum);
  MPI_Finalize();
  return 0;
}
)";

const char* const kFortranProgram = R"(program hello
  implicit none
  integer :: i, total
  total = 0
  do i = 1, 10
    total = total + i * i
  end do
  print '(a, i0)', 'sum of squares: ', total
end program hello
)";

// MPI from Fortran: the mpi module (free source form) and mpif.h (fixed source form, as older
// programs are written), each summing over every rank.
const char* const kFortranMpiModuleProgram = R"(program sum
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(a, i0, a, i0, a, i0)', 'use mpi: rank ', rank, ' of ', nprocs, ': sum ', total
  call MPI_Finalize(ierr)
end program sum
)";

const char* const kFortranMpifProgram = R"(      PROGRAM SUMF
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, ONE(1), TOTAL(1)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      ONE(1) = RANK + 1
      CALL MPI_ALLREDUCE(ONE, TOTAL, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      WRITE (*, '(A, I0, A, I0, A, I0)') 'mpif.h: rank ', RANK,
     &    ' of ', NPROCS, ': sum ', TOTAL(1)
      CALL MPI_FINALIZE(IERR)
      END
)";

TEST(SdkWrappers, BuildAPapiProgramFromOutsideTheProjectThatCountsUnderHpmsim) {
  TempDir dir("hpm-sdk");
  write(dir.path() / "count.c", kPapiProgram);
  const RunResult build = sh(bin("hpm-cc") + " -O2 -o count count.c -lpapi", dir.path());
  ASSERT_EQ(build.status(), 0) << shown(build);
  const RunResult run = sh(kHpmsim + " run --quiet -- ./count", dir.path());
  EXPECT_EQ(run.status(), 0) << shown(run);
  EXPECT_EQ(run.out, "PAPI_TOT_INS counted the loop\n");
}

TEST(SdkWrappers, BuildAnMpiProgramFromOutsideTheProjectThatRunsOnTwoNodes) {
  TempDir dir("hpm-sdk");
  write(dir.path() / "sum.c", kMpiProgram);
  // Compiled and linked apart, as makefiles do.
  const RunResult build =
      sh(bin("mpicc") + " -O2 -c sum.c && " + bin("mpicc") + " -o sum sum.o", dir.path());
  ASSERT_EQ(build.status(), 0) << shown(build);
  const RunResult run = sh(kHpmsim + " run --quiet --nodes 2 -- ./sum", dir.path());
  EXPECT_EQ(run.status(), 0) << shown(run);
  EXPECT_NE(run.out.find("[0] rank 0 of 2: sum 3\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("[1] rank 1 of 2: sum 3\n"), std::string::npos) << run.out;
}

TEST(SdkWrappers, ShowPrintsTheCommandAndRunsNothing) {
  TempDir dir("hpm-sdk");
  const std::string inc = "-I" + (kSdk / "include").string();
  const std::string lib = "-L" + (kSdk / "lib").string();
  // MPICH's spelling and Open MPI's; a word with a space is quoted for sh.
  for (const char* show : {"-show", "-showme"}) {
    const RunResult r = sh(bin("mpicc") + " " + show + " -O2 -o 'a b' x.c -lm", dir.path());
    ASSERT_EQ(r.status(), 0) << shown(r);
    EXPECT_EQ(r.out, std::string(HPM_TEST_RISCV_CC) + " -static -O2 -o 'a b' x.c -lm " + inc + " " +
                         lib + " -lmpi -lbgpm -lhpmctr\n");
  }
  // Compiling only: no library flags. Linking: the libraries under libpapi's, at the end.
  EXPECT_EQ(sh(bin("mpicxx") + " -show -c x.cpp", dir.path()).out,
            std::string(HPM_TEST_RISCV_CXX) + " -static -c x.cpp " + inc + "\n");
  EXPECT_EQ(sh(bin("hpm-cc") + " -show x.c -lpapi", dir.path()).out,
            std::string(HPM_TEST_RISCV_CC) + " -static x.c -lpapi " + inc + " " + lib +
                " -lbgpm -lhpmctr\n");
  EXPECT_EQ(sh(bin("hpm-f90") + " -showme -static-pie x.f90", dir.path()).out,
            std::string(HPM_TEST_RISCV_FC) + " -static-pie x.f90 " + inc + " " + lib +
                " -lbgpm -lhpmctr\n");
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(SdkWrappers, FindTheSdkFromTheirOwnPlaceWhenItMoves) {
  TempDir dir("hpm-sdk");
  const fs::path moved = dir.path() / "moved sdk";
  fs::copy(kSdk, moved, fs::copy_options::recursive);
  fs::create_directory_symlink(moved / "bin", dir.path() / "links");
  write(dir.path() / "sum.c", kMpiProgram);
  // Through a symbolic link to the folder too.
  const RunResult show = sh("links/mpicc -show sum.c", dir.path());
  EXPECT_NE(show.out.find("'-I" + (moved / "include").string() + "'"), std::string::npos)
      << show.out;
  const RunResult build = sh("'" + (moved / "bin/mpicc").string() + "' -o sum sum.c", dir.path());
  EXPECT_EQ(build.status(), 0) << shown(build);
}

TEST(SdkWrappers, BuildFortranProgramsThatRunUnderHpmsim) {
  TempDir dir("hpm-sdk");
  write(dir.path() / "hello.f90", kFortranProgram);
  // A program without MPI builds with mpif90 too.
  for (const char* wrapper : {"hpm-f90", "mpif90"}) {
    const RunResult build = sh(bin(wrapper) + " -O2 -o hello hello.f90", dir.path());
    ASSERT_EQ(build.status(), 0) << wrapper << ": " << shown(build);
    const RunResult run = sh(kHpmsim + " run --quiet --mode functional -- ./hello", dir.path());
    EXPECT_EQ(run.status(), 0) << shown(run);
    EXPECT_EQ(run.out, "sum of squares: 385\n") << wrapper;
  }
}

TEST(SdkWrappers, Mpif90FindsTheMpiModuleAndMpifHAndLinksTheirCallsWithNoFlags) {
  TempDir dir("hpm-sdk");
  write(dir.path() / "sum.f90", kFortranMpiModuleProgram);
  write(dir.path() / "sumf.f", kFortranMpifProgram);
  // Compiled and linked apart, as makefiles do.
  const RunResult build = sh(bin("mpif90") + " -O2 -c sum.f90 && " + bin("mpif90") +
                                 " -o sum sum.o && " + bin("mpif90") + " -O2 -o sumf sumf.f",
                             dir.path());
  ASSERT_EQ(build.status(), 0) << shown(build);
  const RunResult run = sh(kHpmsim + " run --quiet --nodes 2 -- ./sum", dir.path());
  EXPECT_EQ(run.status(), 0) << shown(run);
  EXPECT_NE(run.out.find("[0] use mpi: rank 0 of 2: sum 3\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("[1] use mpi: rank 1 of 2: sum 3\n"), std::string::npos) << run.out;
  const RunResult runf = sh(kHpmsim + " run --quiet --nodes 2 -- ./sumf", dir.path());
  EXPECT_EQ(runf.status(), 0) << shown(runf);
  EXPECT_NE(runf.out.find("[0] mpif.h: rank 0 of 2: sum 3\n"), std::string::npos) << runf.out;
  EXPECT_NE(runf.out.find("[1] mpif.h: rank 1 of 2: sum 3\n"), std::string::npos) << runf.out;
}

TEST(SdkWrappers, SayWhichCrossCompilerIsMissing) {
  TempDir dir("hpm-sdk");
  for (const char* wrapper : {"hpm-f90", "mpif90"}) {
    const RunResult r =
        sh("HPM_SDK_FC=/nonexistent/riscv64-linux-gnu-gfortran " + bin(wrapper) + " x.f90",
           dir.path());
    EXPECT_EQ(r.status(), 127);
    EXPECT_EQ(r.err, std::string(wrapper) +
                         ": the Fortran cross compiler /nonexistent/riscv64-linux-gnu-gfortran is "
                         "missing (Debian: apt-get install gfortran-riscv64-linux-gnu)\n");
  }
}

TEST(SdkToolchain, ACMakeProjectBuildsForTheGuestAndRunsUnderHpmsim) {
  TempDir dir("hpm-sdk");
  write(dir.path() / "count.c", kPapiProgram);
  write(dir.path() / "sum.c", kMpiProgram);
  write(dir.path() / "CMakeLists.txt", R"(cmake_minimum_required(VERSION 3.25)
project(tiny C)
find_library(PAPI papi REQUIRED)
add_executable(count count.c)
target_link_libraries(count PRIVATE ${PAPI})
find_package(MPI REQUIRED C)
add_executable(sum sum.c)
target_link_libraries(sum PRIVATE MPI::MPI_C)
)");
  const std::string configure =
      std::string(HPM_TEST_CMAKE) + " -S . -B b -G '" + HPM_TEST_GENERATOR +
      "' -DCMAKE_MAKE_PROGRAM=" + HPM_TEST_MAKE_PROGRAM +
      " -DCMAKE_TOOLCHAIN_FILE=" + (kSdk / "share/cmake/hpmsim-guest.cmake").string();
  const RunResult build = sh(configure + " && " + HPM_TEST_CMAKE + " --build b", dir.path());
  ASSERT_EQ(build.status(), 0) << shown(build);
  const RunResult count = sh(kHpmsim + " run --quiet -- b/count", dir.path());
  EXPECT_EQ(count.out, "PAPI_TOT_INS counted the loop\n") << shown(count);
  const RunResult sum = sh(kHpmsim + " run --quiet --nodes 2 -- b/sum", dir.path());
  EXPECT_NE(sum.out.find("[1] rank 1 of 2: sum 3\n"), std::string::npos) << shown(sum);
}

TEST(SdkPkgConfig, GivesTheFlagsThatBuildPapiAndMpiPrograms) {
  TempDir dir("hpm-sdk");
  write(dir.path() / "count.c", kPapiProgram);
  const std::string pc =
      "PKG_CONFIG_PATH=" + (kSdk / "lib/pkgconfig").string() + " " + HPM_TEST_PKG_CONFIG;
  const RunResult papi = sh(pc + " --cflags --libs papi", dir.path());
  ASSERT_EQ(papi.status(), 0) << shown(papi);
  const fs::path inc = kSdk / "lib/pkgconfig/../../include";
  const fs::path lib = kSdk / "lib/pkgconfig/../../lib";
  EXPECT_EQ(papi.out, "-I" + inc.string() + " -L" + lib.string() + " -lpapi -lbgpm -lhpmctr \n");
  const RunResult mpi = sh(pc + " --cflags --libs mpi", dir.path());
  EXPECT_EQ(mpi.out, "-I" + inc.string() + " -L" + lib.string() + " -lmpi \n");
  // Debian's compiler itself, with the flags and -static, builds the program.
  const RunResult build = sh(std::string(HPM_TEST_RISCV_CC) + " -static -o count count.c $(" + pc +
                                 " --cflags --libs papi)",
                             dir.path());
  ASSERT_EQ(build.status(), 0) << shown(build);
  const RunResult run = sh(kHpmsim + " run --quiet -- ./count", dir.path());
  EXPECT_EQ(run.out, "PAPI_TOT_INS counted the loop\n") << shown(run);
}

}  // namespace
