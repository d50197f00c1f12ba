// File descriptor operations within one thread: dup (lowest free number), dup2, dup3 with
// O_CLOEXEC and its EINVAL on equal descriptors, shared offsets between duplicates, pipe2 with
// and without O_NONBLOCK (EAGAIN on an empty pipe, EOF after the write end closes, the pipe's
// capacity is never assumed, EPIPE with SIGPIPE ignored), fcntl
// F_GETFD/F_SETFD/F_GETFL/F_SETFL/F_DUPFD/F_DUPFD_CLOEXEC, and EBADF on closed descriptors.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

int main(void) {
  int fd = open("data", O_CREAT | O_RDWR | O_TRUNC, 0600);
  CHECK(fd == 3);  // 0, 1 and 2 are taken: open returns the lowest free descriptor
  CHECK(write(fd, "abcdefgh", 8) == 8);

  // dup shares the file offset and status flags.
  int d = dup(fd);
  printf("dup -> %d\n", d);
  CHECK(lseek(fd, 2, SEEK_SET) == 2);
  char c = 0;
  CHECK(read(d, &c, 1) == 1);
  printf("read via dup after seek via original: %c, offset now %lld\n", c,
         (long long)lseek(fd, 0, SEEK_CUR));

  // dup2 onto a chosen number, onto itself (a no-op), and dup3's flags.
  CHECK(dup2(fd, 10) == 10);
  CHECK(dup2(fd, fd) == fd);
  printf("fd 10 cloexec=%d\n", fcntl(10, F_GETFD) & FD_CLOEXEC);
  CHECK(dup3(fd, 11, O_CLOEXEC) == 11);
  printf("fd 11 cloexec=%d\n", fcntl(11, F_GETFD) & FD_CLOEXEC);
  errno = 0;
  CHECK(dup3(fd, fd, 0) == -1);
  printf("dup3 same fd: %s\n", strerror(errno));
  errno = 0;
  CHECK(dup3(fd, 12, 0x12345678) == -1);
  printf("dup3 bad flags: %s\n", strerror(errno));

  // fcntl: descriptor flags, status flags, duplication at or above a minimum.
  CHECK(fcntl(fd, F_SETFD, FD_CLOEXEC) == 0);
  printf("F_GETFD after set: %d\n", fcntl(fd, F_GETFD));
  CHECK(fcntl(fd, F_SETFD, 0) == 0);
  printf("F_GETFD after clear: %d\n", fcntl(fd, F_GETFD));
  int fl = fcntl(fd, F_GETFL);
  printf("F_GETFL accmode=%d append=%d nonblock=%d\n", fl & O_ACCMODE, (fl & O_APPEND) != 0,
         (fl & O_NONBLOCK) != 0);
  CHECK(fcntl(fd, F_SETFL, fl | O_APPEND) == 0);
  fl = fcntl(d, F_GETFL);  // status flags are shared with the duplicate
  printf("dup sees append=%d\n", (fl & O_APPEND) != 0);
  int hi = fcntl(fd, F_DUPFD, 20);
  printf("F_DUPFD(20) -> %d\n", hi);
  int hi2 = fcntl(fd, F_DUPFD_CLOEXEC, 20);
  printf("F_DUPFD_CLOEXEC(20) -> %d cloexec=%d\n", hi2, fcntl(hi2, F_GETFD) & FD_CLOEXEC);
  CHECK(write(hi, "Z", 1) == 1);  // O_APPEND: lands at the end
  char all[16] = {0};
  CHECK(pread(fd, all, sizeof all - 1, 0) == 9);
  printf("contents: %s\n", all);

  // The lowest free number is reused after close.
  CHECK(close(d) == 0);
  int again = dup(fd);
  printf("dup after close(%d) -> %d\n", d, again);
  CHECK(close(again) == 0 && close(10) == 0 && close(11) == 0);
  CHECK(close(hi) == 0 && close(hi2) == 0 && close(fd) == 0);
  errno = 0;
  CHECK(fcntl(fd, F_GETFD) == -1);
  printf("fcntl on closed: %s\n", strerror(errno));
  errno = 0;
  CHECK(dup(99) == -1);
  printf("dup of closed: %s\n", strerror(errno));

  // A pipe within one thread: data in order, partial reads, EOF once the writer closes.
  int p[2];
  CHECK(pipe2(p, O_CLOEXEC) == 0);
  printf("pipe cloexec=%d/%d\n", fcntl(p[0], F_GETFD) & FD_CLOEXEC,
         fcntl(p[1], F_GETFD) & FD_CLOEXEC);
  CHECK(write(p[1], "through the pipe", 16) == 16);
  char buf[32] = {0};
  CHECK(read(p[0], buf, 7) == 7);
  printf("first read: %s\n", buf);
  memset(buf, 0, sizeof buf);
  CHECK(read(p[0], buf, sizeof buf) == 9);
  printf("second read: %s\n", buf);
  CHECK(close(p[1]) == 0);
  printf("read at EOF: %zd\n", read(p[0], buf, sizeof buf));
  CHECK(close(p[0]) == 0);

  // A non-blocking pipe: EAGAIN when empty; the flag is visible through F_GETFL.
  CHECK(pipe2(p, O_NONBLOCK) == 0);
  printf("nonblock flag=%d\n", (fcntl(p[0], F_GETFL) & O_NONBLOCK) != 0);
  errno = 0;
  CHECK(read(p[0], buf, 1) == -1);
  printf("empty nonblocking read: %s\n", errno == EAGAIN ? "EAGAIN" : strerror(errno));
  CHECK(write(p[1], "x", 1) == 1);
  CHECK(read(p[0], buf, 1) == 1);
  // Writing to a pipe whose read end is closed raises SIGPIPE; ignore it to see EPIPE.
  CHECK(close(p[0]) == 0);
  CHECK(fcntl(p[1], F_GETFL) & O_WRONLY);
  CHECK(signal(SIGPIPE, SIG_IGN) != SIG_ERR);
  errno = 0;
  CHECK(write(p[1], "y", 1) == -1);
  printf("write to a pipe without reader: %s\n", strerror(errno));
  CHECK(close(p[1]) == 0);
  errno = 0;
  CHECK(pipe2(p, 0x7fff0000) == -1);
  printf("pipe2 bad flags: %s\n", strerror(errno));
  CHECK(unlink("data") == 0);
  return 0;
}
