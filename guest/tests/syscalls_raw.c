// System calls that glibc's usual paths do not reach, made directly with syscall(2) so that the
// simulator's implementation of each is compared with qemu-riscv64's: readv and writev (a
// scatter-gather round trip through a file), fstat (glibc uses newfstatat), gettimeofday and
// nanosleep (glibc uses clock_gettime and clock_nanosleep), a private file mapping whose
// writes never reach the file, chdir (through relative paths), ioctl(TCGETS) on a regular file
// (ENOTTY), and a system call no kernel has (ENOSYS). Only results that do not depend on time or on
// the host are printed.
//
// With the argument "random" it prints 32 bytes of getrandom instead, for the simulator's
// determinism check (its getrandom is seeded; qemu's is the host's).
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static void scatterGather(void) {
  int fd = open("sg.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  char a[] = "scatter ";
  char b[] = "gather ";
  char c[] = "round trip\n";
  struct iovec out[3] = {{a, strlen(a)}, {b, strlen(b)}, {c, strlen(c)}};
  long written = syscall(SYS_writev, fd, out, 3);
  printf("writev %ld\n", written);
  CHECK(written == (long)(strlen(a) + strlen(b) + strlen(c)));
  CHECK(lseek(fd, 0, SEEK_SET) == 0);
  char x[5] = {0};
  char y[64] = {0};
  struct iovec in[2] = {{x, 4}, {y, sizeof y - 1}};
  long got = syscall(SYS_readv, fd, in, 2);
  printf("readv %ld: [%s] [%s", got, x, y);
  CHECK(got == written);

  struct stat st;
  memset(&st, 0, sizeof st);
  CHECK(syscall(SYS_fstat, fd, &st) == 0);
  printf("fstat size %lld regular %d\n", (long long)st.st_size, S_ISREG(st.st_mode) ? 1 : 0);
  CHECK(st.st_size == written);

  struct termios tio;
  errno = 0;
  long r = syscall(SYS_ioctl, fd, TCGETS, &tio);
  printf("ioctl TCGETS on a file: %ld %s\n", r, r < 0 && errno == ENOTTY ? "ENOTTY" : "?");
  CHECK(r < 0 && errno == ENOTTY);
  CHECK(close(fd) == 0);
}

static void privateFileMapping(void) {
  int fd = open("map.txt", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  char page[4096];
  for (size_t i = 0; i < sizeof page; ++i) page[i] = (char)('a' + i % 26);
  CHECK(write(fd, page, sizeof page) == (ssize_t)sizeof page);
  char* m = mmap(NULL, sizeof page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  CHECK(m != MAP_FAILED);
  printf("mapped %c%c%c\n", m[0], m[1], m[4095]);
  CHECK(memcmp(m, page, sizeof page) == 0);
  memcpy(m, "PRIVATE", 7);  // copy-on-write: the file keeps its bytes
  CHECK(munmap(m, sizeof page) == 0);
  char back[8] = {0};
  CHECK(pread(fd, back, 7, 0) == 7);
  printf("file after a private write: %s\n", back);
  CHECK(memcmp(back, "abcdefg", 7) == 0);
  CHECK(close(fd) == 0);
}

// chdir, checked through relative paths (getcwd's absolute path differs between hosts, and so
// would the instructions spent on it).
static void directories(void) {
  CHECK(mkdir("sub", 0755) == 0);
  int fd = open("sub/marker", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0 && close(fd) == 0);
  CHECK(syscall(SYS_chdir, "sub") == 0);
  CHECK(access("marker", F_OK) == 0);
  CHECK(access("sub", F_OK) == -1);
  CHECK(syscall(SYS_chdir, "..") == 0);
  CHECK(access("sub/marker", F_OK) == 0);
  errno = 0;
  CHECK(syscall(SYS_chdir, "missing") == -1 && errno == ENOENT);
  errno = 0;
  CHECK(syscall(SYS_chdir, "sub/marker") == -1 && errno == ENOTDIR);
  CHECK(unlink("sub/marker") == 0 && rmdir("sub") == 0);
  printf("chdir: ok\n");
}

static void timeOfDay(void) {
  struct timeval tv = {0, 0};
  CHECK(syscall(SYS_gettimeofday, &tv, NULL) == 0);
  CHECK(tv.tv_sec > 0 && tv.tv_usec >= 0 && tv.tv_usec < 1000000);
  struct timespec nap = {0, 1000000};
  struct timespec rem = {7, 7};
  CHECK(syscall(SYS_nanosleep, &nap, &rem) == 0);
  struct timeval later = {0, 0};
  CHECK(syscall(SYS_gettimeofday, &later, NULL) == 0);
  const long long us = (later.tv_sec - tv.tv_sec) * 1000000LL + (later.tv_usec - tv.tv_usec);
  CHECK(us >= 1000);
  errno = 0;
  struct timespec bad = {0, 1000000000};
  CHECK(syscall(SYS_nanosleep, &bad, NULL) == -1 && errno == EINVAL);
  printf("gettimeofday and nanosleep: ok\n");
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "random") == 0) {
    unsigned char buf[32];
    CHECK(syscall(SYS_getrandom, buf, sizeof buf, 0) == (long)sizeof buf);
    for (size_t i = 0; i < sizeof buf; ++i) printf("%02x", buf[i]);
    printf("\n");
    return 0;
  }
  scatterGather();
  privateFileMapping();
  directories();
  timeOfDay();
  errno = 0;
  long r = syscall(400);  // beyond every riscv64 system call
  printf("system call 400: %ld %s\n", r, r == -1 && errno == ENOSYS ? "ENOSYS" : "?");
  CHECK(r == -1 && errno == ENOSYS);
  return 0;
}
