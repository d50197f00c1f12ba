// Files written and read back in the working directory: open/openat flags (O_CREAT, O_EXCL,
// O_TRUNC, O_APPEND), read/write, lseek (SEEK_SET/CUR/END, beyond the end), pread/pwrite,
// ftruncate, fstat/stat/lstat/fstatat sizes and types, access, mkdir/rmdir, rename,
// unlink/unlinkat, a directory listing (sorted, since directory order is file-system
// dependent), and the errno of the usual failures. Only sizes, types and contents are printed,
// never inode numbers, times, owners or the working directory's path.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common.h"

static void write_all(int fd, const void* data, size_t len) {
  const char* p = (const char*)data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    CHECK(n > 0);
    p += n;
    len -= (size_t)n;
  }
}

static void print_file(const char* path) {
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  char buf[256];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  CHECK(n >= 0);
  buf[n] = '\0';
  printf("%s (%zd bytes): [", path, n);
  for (ssize_t i = 0; i < n; ++i) {
    if (buf[i] >= 32 && buf[i] < 127) {
      putchar(buf[i]);
    } else {
      printf("\\x%02x", (unsigned char)buf[i]);
    }
  }
  printf("]\n");
  CHECK(close(fd) == 0);
}

static const char* type_name(mode_t mode) {
  if (S_ISREG(mode)) return "regular";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISCHR(mode)) return "chardev";
  return "other";
}

static void print_stat(const char* path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    printf("stat %s: %s\n", path, strerror(errno));
    return;
  }
  printf("stat %s: %s size=%lld mode=%03o nlink>0=%d\n", path, type_name(st.st_mode),
         (long long)(S_ISDIR(st.st_mode) ? 0 : st.st_size), (unsigned)(st.st_mode & 0777),
         st.st_nlink > 0);
}

static int compare_names(const void* a, const void* b) {
  return strcmp((const char*)a, (const char*)b);
}

static void list_dir(const char* path) {
  DIR* d = opendir(path);
  CHECK(d != NULL);
  char names[32][64];
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    CHECK(n < 32);
    CHECK(strlen(e->d_name) < 64);
    strcpy(names[n++], e->d_name);
  }
  CHECK(closedir(d) == 0);
  qsort(names, (size_t)n, sizeof names[0], compare_names);
  printf("ls %s:", path);
  for (int i = 0; i < n; ++i) printf(" %s", names[i]);
  printf("\n");
}

int main(void) {
  umask(022);

  // Create, write, read back.
  int fd = open("a.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  write_all(fd, "hello, file\n", 12);
  CHECK(close(fd) == 0);
  print_file("a.txt");
  print_stat("a.txt");

  // O_EXCL on an existing file fails with EEXIST; opening a missing file fails with ENOENT.
  errno = 0;
  CHECK(open("a.txt", O_CREAT | O_EXCL | O_WRONLY, 0644) == -1);
  printf("O_EXCL: %s\n", strerror(errno));
  errno = 0;
  CHECK(open("missing.txt", O_RDONLY) == -1);
  printf("missing: %s\n", strerror(errno));

  // lseek in every mode, a hole beyond the end, and reading the hole back as zeros.
  fd = open("b.bin", O_CREAT | O_RDWR | O_TRUNC, 0600);
  CHECK(fd >= 0);
  write_all(fd, "0123456789", 10);
  printf("lseek cur=%lld\n", (long long)lseek(fd, 0, SEEK_CUR));
  printf("lseek set=%lld\n", (long long)lseek(fd, 3, SEEK_SET));
  char c4[5] = {0};
  CHECK(read(fd, c4, 4) == 4);
  printf("read after seek: %s\n", c4);
  printf("lseek end-2=%lld\n", (long long)lseek(fd, -2, SEEK_END));
  printf("lseek beyond=%lld\n", (long long)lseek(fd, 20, SEEK_END));
  write_all(fd, "X", 1);
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  printf("fstat size=%lld type=%s\n", (long long)st.st_size, type_name(st.st_mode));
  char hole[32];
  ssize_t got = pread(fd, hole, sizeof hole, 8);
  printf("pread got=%zd:", got);
  for (ssize_t i = 0; i < got; ++i) printf(" %02x", (unsigned char)hole[i]);
  printf("\n");
  printf("pread leaves offset at %lld\n", (long long)lseek(fd, 0, SEEK_CUR));

  // pwrite does not move the offset; pread past the end returns 0.
  CHECK(pwrite(fd, "AB", 2, 1) == 2);
  printf("after pwrite offset=%lld\n", (long long)lseek(fd, 0, SEEK_CUR));
  CHECK(pread(fd, hole, 4, 0) == 4);
  printf("pread 0..4: %.4s\n", hole);
  CHECK(pread(fd, hole, 4, 1000) == 0);
  errno = 0;
  CHECK(lseek(fd, -100, SEEK_SET) == -1);
  printf("negative lseek: %s\n", strerror(errno));

  // ftruncate shrinks and grows (zero-filled).
  CHECK(ftruncate(fd, 4) == 0);
  CHECK(fstat(fd, &st) == 0);
  printf("truncated size=%lld\n", (long long)st.st_size);
  CHECK(ftruncate(fd, 6) == 0);
  CHECK(close(fd) == 0);
  print_file("b.bin");

  // O_APPEND writes at the end whatever the offset.
  fd = open("a.txt", O_WRONLY | O_APPEND);
  CHECK(fd >= 0);
  CHECK(lseek(fd, 0, SEEK_SET) == 0);
  write_all(fd, "appended\n", 9);
  CHECK(close(fd) == 0);
  print_file("a.txt");

  // Reading a write-only descriptor fails with EBADF.
  fd = open("a.txt", O_WRONLY);
  CHECK(fd >= 0);
  errno = 0;
  CHECK(read(fd, c4, 1) == -1);
  printf("read on O_WRONLY: %s\n", strerror(errno));
  CHECK(close(fd) == 0);
  errno = 0;
  CHECK(close(fd) == -1);
  printf("double close: %s\n", strerror(errno));

  // Directories: mkdir, files inside via openat, listing, rename across directories.
  CHECK(mkdir("dir", 0755) == 0);
  errno = 0;
  CHECK(mkdir("dir", 0755) == -1);
  printf("mkdir again: %s\n", strerror(errno));
  int dfd = open("dir", O_RDONLY | O_DIRECTORY);
  CHECK(dfd >= 0);
  fd = openat(dfd, "inner.txt", O_CREAT | O_WRONLY, 0640);
  CHECK(fd >= 0);
  write_all(fd, "inner\n", 6);
  CHECK(close(fd) == 0);
  CHECK(fstatat(dfd, "inner.txt", &st, 0) == 0);
  printf("fstatat size=%lld mode=%03o\n", (long long)st.st_size, (unsigned)(st.st_mode & 0777));
  print_stat("dir");
  print_stat("dir/inner.txt");
  list_dir(".");
  list_dir("dir");

  CHECK(rename("dir/inner.txt", "moved.txt") == 0);
  CHECK(rename("a.txt", "b.bin") == 0);  // replaces the target
  print_stat("a.txt");
  print_file("b.bin");
  print_file("moved.txt");
  CHECK(access("moved.txt", R_OK | W_OK) == 0);
  errno = 0;
  CHECK(access("nothing", F_OK) == -1);
  printf("access missing: %s\n", strerror(errno));

  // rmdir of a non-empty directory fails; unlink, unlinkat and rmdir clean up.
  fd = openat(dfd, "x", O_CREAT | O_WRONLY, 0600);
  CHECK(fd >= 0);
  CHECK(close(fd) == 0);
  errno = 0;
  CHECK(rmdir("dir") == -1);
  printf("rmdir non-empty: %s\n", strerror(errno));
  CHECK(unlinkat(dfd, "x", 0) == 0);
  CHECK(close(dfd) == 0);
  CHECK(rmdir("dir") == 0);
  CHECK(unlink("moved.txt") == 0);
  errno = 0;
  CHECK(unlink("moved.txt") == -1);
  printf("unlink again: %s\n", strerror(errno));
  CHECK(unlink("b.bin") == 0);
  list_dir(".");
  return 0;
}
