// The devices and the /proc and /sys files the compute-node kernel provides (run under hpmsim;
// the harness checks the machine-dependent lines against the machine).
// - /dev/null: writes succeed in full, reads are at end of file; it is a character device.
// - /dev/zero: reads give zeros.
// - /dev/urandom and getrandom: deterministic under hpmsim (the same bytes on every run),
//   different from call to call; printed in hex.
// - /dev/tty: ENXIO when stdin is not a terminal (the harness gives a pipe), opened when it is.
// - /sys/devices/system/cpu/online and possible, /proc/cpuinfo (one "processor" entry per
//   hardware thread, with the ISA), /proc/meminfo; they are read-only.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common.h"

static void print_hex(const char* what, const unsigned char* p, size_t n) {
  printf("%s", what);
  for (size_t i = 0; i < n; ++i) printf("%02x", p[i]);
  printf("\n");
}

static size_t read_all(const char* path, char* buf, size_t size) {
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  size_t total = 0;
  for (;;) {
    ssize_t n = read(fd, buf + total, size - 1 - total);
    CHECK(n >= 0);
    if (n == 0) break;
    total += (size_t)n;
    CHECK(total < size - 1);
  }
  buf[total] = 0;
  CHECK(close(fd) == 0);
  return total;
}

int main(void) {
  int fd = open("/dev/null", O_RDWR);
  CHECK(fd >= 0);
  char buf[64];
  ssize_t w = write(fd, "discarded", 9);
  ssize_t r = read(fd, buf, sizeof buf);
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  printf("/dev/null: write %zd, read %zd, character device %d (%u:%u)\n", w, r, S_ISCHR(st.st_mode),
         major(st.st_rdev), minor(st.st_rdev));
  CHECK(w == 9 && r == 0 && S_ISCHR(st.st_mode));
  CHECK(close(fd) == 0);

  fd = open("/dev/zero", O_RDONLY);
  CHECK(fd >= 0);
  memset(buf, 0x5a, sizeof buf);
  r = read(fd, buf, sizeof buf);
  int zeros = 1;
  for (size_t i = 0; i < sizeof buf; ++i) zeros &= buf[i] == 0;
  printf("/dev/zero: read %zd, all zero %d\n", r, zeros);
  CHECK(r == (ssize_t)sizeof buf && zeros);
  CHECK(close(fd) == 0);

  unsigned char a[16], b[16], c[16];
  fd = open("/dev/urandom", O_RDONLY);
  CHECK(fd >= 0);
  CHECK(read(fd, a, sizeof a) == (ssize_t)sizeof a);
  CHECK(read(fd, b, sizeof b) == (ssize_t)sizeof b);
  CHECK(close(fd) == 0);
  CHECK(getrandom(c, sizeof c, 0) == (ssize_t)sizeof c);
  print_hex("/dev/urandom: ", a, sizeof a);
  print_hex("/dev/urandom again: ", b, sizeof b);
  print_hex("getrandom: ", c, sizeof c);
  CHECK(memcmp(a, b, sizeof a) != 0 && memcmp(b, c, sizeof b) != 0);
  fd = open("/dev/random", O_RDONLY);
  CHECK(fd >= 0 && read(fd, a, 8) == 8 && close(fd) == 0);
  CHECK(stat("/dev/urandom", &st) == 0 && S_ISCHR(st.st_mode));

  fd = open("/dev/tty", O_RDWR);
  const int tty_errno = errno;
  printf("/dev/tty with stdin %s: %s\n", isatty(0) ? "a terminal" : "not a terminal",
         fd < 0 && tty_errno == ENXIO ? "ENXIO" : (fd >= 0 ? "opened" : "other"));
  if (fd >= 0) close(fd);

  static char text[1 << 16];
  read_all("/sys/devices/system/cpu/online", text, sizeof text);
  printf("/sys/devices/system/cpu/online: %s", text);
  read_all("/sys/devices/system/cpu/possible", text, sizeof text);
  printf("/sys/devices/system/cpu/possible: %s", text);
  read_all("/proc/cpuinfo", text, sizeof text);
  int processors = 0, with_isa = 0;
  for (const char* p = text; (p = strstr(p, "processor")) != NULL; ++p) ++processors;
  for (const char* p = text; (p = strstr(p, "isa\t\t: rv64imafdc")) != NULL; ++p) ++with_isa;
  printf("/proc/cpuinfo: %d processors, %d with isa rv64imafdc\n", processors, with_isa);
  CHECK(processors > 0 && with_isa == processors);
  read_all("/proc/meminfo", text, sizeof text);
  printf("/proc/meminfo has MemTotal: %d\n", strncmp(text, "MemTotal:", 9) == 0);
  fd = open("/proc/cpuinfo", O_WRONLY);
  printf("/proc/cpuinfo opened for writing: %s\n", fd < 0 && errno == EACCES ? "EACCES" : "other");
  CHECK(fd < 0);
  fd = open("/sys/devices/system/cpu/online", O_RDWR);
  printf("/sys/devices/system/cpu/online opened for writing: %s\n",
         fd < 0 && errno == EACCES ? "EACCES" : "other");
  CHECK(fd < 0);
  return 0;
}
