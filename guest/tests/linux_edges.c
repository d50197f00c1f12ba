// Linux behaviour a program can tell apart, each found once to differ under hpmsim (hardening
// report, issue 25) and compared with qemu-riscv64 here:
//   - linkat with AT_SYMLINK_FOLLOW links the symlink's target, not the symlink; a symlink that
//     leads nowhere gives ENOENT; unknown flags give EINVAL;
//   - a path without a terminator within PATH_MAX (4096) bytes gives ENAMETOOLONG, a path that
//     runs into unreadable memory EFAULT;
//   - a load from a PROT_NONE page and a store to a read-only page are SEGV_ACCERR, a load from
//     unmapped memory SEGV_MAPERR.
// Works in the current directory (a fresh one per run); prints results, never addresses.
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

static sigjmp_buf fault_return;
static volatile int fault_code;

static void onSegv(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)context;
  fault_code = info->si_code;
  siglongjmp(fault_return, 1);
}

static const char* codeName(int code) {
  return code == SEGV_MAPERR ? "SEGV_MAPERR" : code == SEGV_ACCERR ? "SEGV_ACCERR" : "other";
}

// The si_code of a SIGSEGV from loading (or storing, if `store`) at `p`, or "none".
static const char* faultOf(volatile char* p, int store) {
  fault_code = 0;
  if (sigsetjmp(fault_return, 1) == 0) {
    if (store) {
      *p = 1;
    } else {
      (void)*p;
    }
    return "none";
  }
  return codeName(fault_code);
}

static void links(void) {
  int fd = open("target", O_CREAT | O_WRONLY | O_TRUNC, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, "data", 4) == 4);
  close(fd);
  CHECK(symlink("target", "link") == 0);

  CHECK(linkat(AT_FDCWD, "link", AT_FDCWD, "hard_follow", AT_SYMLINK_FOLLOW) == 0);
  struct stat st;
  CHECK(lstat("hard_follow", &st) == 0);
  printf("AT_SYMLINK_FOLLOW: a %s, target links %lu\n", S_ISLNK(st.st_mode) ? "symlink" : "file",
         (unsigned long)(stat("target", &st) == 0 ? st.st_nlink : 0));

  CHECK(linkat(AT_FDCWD, "link", AT_FDCWD, "hard_nofollow", 0) == 0);
  CHECK(lstat("hard_nofollow", &st) == 0);
  printf("no flag: a %s\n", S_ISLNK(st.st_mode) ? "symlink" : "file");

  CHECK(symlink("/no/such/directory/file", "dangling") == 0);
  errno = 0;
  const int r = linkat(AT_FDCWD, "dangling", AT_FDCWD, "hard_dangling", AT_SYMLINK_FOLLOW);
  printf("dangling, followed: %d %s\n", r, r == 0 ? "" : strerror(errno));
  errno = 0;
  const int bad = linkat(AT_FDCWD, "target", AT_FDCWD, "hard_bad", 0x4000);
  printf("unknown flag: %d %s\n", bad, bad == 0 ? "" : strerror(errno));
  unlink("hard_follow");
  unlink("hard_nofollow");
  unlink("dangling");
  unlink("link");
  unlink("target");
}

static void longPaths(void) {
  static char path[8192];
  memset(path, 'a', sizeof path - 1);
  errno = 0;
  printf("path of 8191 bytes: %d %s\n", open(path, O_RDONLY), strerror(errno));
  path[4096] = 0;
  errno = 0;
  printf("path of 4096 bytes: %d %s\n", open(path, O_RDONLY), strerror(errno));
  // 4095 bytes (with the terminator, PATH_MAX) of short components: the host's own answer.
  for (int i = 0; i < 4094; i += 2) path[i] = 'a', path[i + 1] = '/';
  path[4094] = 'a';
  path[4095] = 0;
  errno = 0;
  printf("path of 4095 bytes: %d %s\n", open(path, O_RDONLY), strerror(errno));

  // A path that runs into an unreadable page before its end.
  char* pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(pages != MAP_FAILED);
  CHECK(mprotect(pages + 4096, 4096, PROT_NONE) == 0);
  memset(pages + 4000, 'b', 96);
  errno = 0;
  printf("path into a PROT_NONE page: %d %s\n", open(pages + 4000, O_RDONLY), strerror(errno));
  munmap(pages, 8192);
}

static void faults(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = onSegv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);

  char* none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(none != MAP_FAILED);
  printf("load from PROT_NONE: %s\n", faultOf(none, 0));
  char* ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(ro != MAP_FAILED);
  printf("store to read-only: %s\n", faultOf(ro, 1));
  printf("load from read-only: %s\n", faultOf(ro, 0));
  CHECK(munmap(none, 4096) == 0);
  printf("load from unmapped: %s\n", faultOf(none, 0));
  char* rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(rw != MAP_FAILED);
  rw[0] = 5;
  CHECK(mprotect(rw, 4096, PROT_NONE) == 0);
  printf("load from a touched page made PROT_NONE: %s\n", faultOf(rw, 0));
  signal(SIGSEGV, SIG_DFL);
}

int main(void) {
  links();
  longPaths();
  faults();
  return 0;
}
