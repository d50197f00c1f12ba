// Attempts to escape the file-system sandbox (run under hpmsim with --root DIR; the harness
// checks the host side afterwards). The argument is the host path of DIR's parent, which holds
// outside_secret.txt and outside_dir/x; DIR holds inside.txt, sub/deeper/, and two symlinks
// the harness made: host_abs_link (to the secret's absolute host path) and host_rel_link
// (to ../outside_secret.txt). Every attempt must fail with ENOENT or land inside the root:
// "..", absolute host paths, symlinks to absolute and relative targets outside (made by the
// guest or found in the root), symlinks to "/.." and "..", /proc/self/root, chdir("..") chains,
// openat with directory descriptors, rename, link, mkdir, creat, truncate and unlink through
// "..". The guest can read and write files inside the root.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

static const char* outside;  // host path of the root's parent
static int attempts;

static const char* err_name(int e) {
  switch (e) {
    case 0: return "ok";
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EXDEV: return "EXDEV";
    case ENOTDIR: return "ENOTDIR";
    case EEXIST: return "EEXIST";
    default: return "other";
  }
}

// Opens `path` for reading; it must not be the secret. Returns 0 or the error.
static int try_read(int dirfd, const char* path, char* content, size_t size) {
  int fd = openat(dirfd, path, O_RDONLY);
  if (fd < 0) return errno;
  ssize_t n = read(fd, content, size - 1);
  CHECK(n >= 0);
  content[n] = 0;
  close(fd);
  CHECK(strstr(content, "secret") == NULL);  // never the file outside
  return 0;
}

static void expect_missing(const char* what, int dirfd, const char* path) {
  char content[256];
  int e = try_read(dirfd, path, content, sizeof content);
  ++attempts;
  printf("%-48s %s\n", what, err_name(e));
  CHECK(e == ENOENT);
}

static void expect_inside(const char* what, int dirfd, const char* path) {
  char content[256] = "";
  int e = try_read(dirfd, path, content, sizeof content);
  ++attempts;
  printf("%-48s %s: %s", what, err_name(e), e == 0 ? content : "\n");
  CHECK(e == 0 && strcmp(content, "inside the root\n") == 0);
}

static void expect_cwd_root(const char* what) {
  char cwd[256];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  printf("%-48s cwd %s\n", what, cwd);
  CHECK(strcmp(cwd, "/") == 0);
  expect_missing("  then open outside_secret.txt", AT_FDCWD, "outside_secret.txt");
  expect_inside("  then open inside.txt", AT_FDCWD, "inside.txt");
}

static void write_file(const char* path, const char* text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  CHECK(close(fd) == 0);
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  outside = argv[1];
  char host_secret[512], host_dir[512];
  snprintf(host_secret, sizeof host_secret, "%s/outside_secret.txt", outside);
  snprintf(host_dir, sizeof host_dir, "%s/outside_dir", outside);

  expect_inside("inside.txt", AT_FDCWD, "inside.txt");
  expect_inside("/inside.txt", AT_FDCWD, "/inside.txt");
  expect_missing("../outside_secret.txt", AT_FDCWD, "../outside_secret.txt");
  expect_missing("/../outside_secret.txt", AT_FDCWD, "/../outside_secret.txt");
  expect_missing("/../../../../../../../outside_secret.txt", AT_FDCWD,
                 "/../../../../../../../outside_secret.txt");
  expect_missing("sub/../../outside_secret.txt", AT_FDCWD, "sub/../../outside_secret.txt");
  expect_missing("sub/deeper/../../../outside_secret.txt", AT_FDCWD,
                 "sub/deeper/../../../outside_secret.txt");
  expect_missing("the secret's absolute host path", AT_FDCWD, host_secret);
  expect_missing("host_abs_link (made outside the guest)", AT_FDCWD, "host_abs_link");
  expect_missing("host_rel_link (made outside the guest)", AT_FDCWD, "host_rel_link");

  // Symlinks the guest makes.
  CHECK(symlink(host_secret, "g_abs") == 0);
  CHECK(symlink("../outside_secret.txt", "g_rel") == 0);
  CHECK(symlink("../../../../../../../../outside_secret.txt", "sub/deeper/g_deep") == 0);
  CHECK(symlink(host_dir, "g_dir") == 0);
  CHECK(symlink("..", "sub/g_parent") == 0);
  CHECK(symlink("/..", "g_rootup") == 0);
  char target[512];
  ssize_t n = readlink("g_abs", target, sizeof target - 1);
  CHECK(n > 0);
  target[n] = 0;
  printf("%-48s %d\n", "readlink gives the target as written", strcmp(target, host_secret) == 0);
  expect_missing("guest symlink to the absolute host path", AT_FDCWD, "g_abs");
  expect_missing("guest symlink to ../outside_secret.txt", AT_FDCWD, "g_rel");
  expect_missing("guest symlink with many ..", AT_FDCWD, "sub/deeper/g_deep");
  expect_missing("guest symlink to a host directory, then x", AT_FDCWD, "g_dir/x");
  expect_missing("sub/g_parent/../outside_secret.txt", AT_FDCWD,
                 "sub/g_parent/../outside_secret.txt");
  expect_inside("sub/g_parent/inside.txt", AT_FDCWD, "sub/g_parent/inside.txt");
  expect_missing("g_rootup/outside_secret.txt", AT_FDCWD, "g_rootup/outside_secret.txt");
  int fd = open("g_abs", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ++attempts;
  printf("%-48s %s\n", "create through the absolute symlink", err_name(fd < 0 ? errno : 0));
  CHECK(fd < 0 && errno == ENOENT);

  // /proc/self/root is not provided: it cannot lead outside either.
  expect_missing("/proc/self/root/../outside_secret.txt", AT_FDCWD,
                 "/proc/self/root/../outside_secret.txt");
  expect_missing("/proc/self/root/inside.txt", AT_FDCWD, "/proc/self/root/inside.txt");

  // chdir chains.
  CHECK(chdir("sub/deeper") == 0);
  for (int i = 0; i < 12; ++i) CHECK(chdir("..") == 0);
  expect_cwd_root("chdir(\"..\") x 12 from /sub/deeper");
  CHECK(chdir("g_rootup") == 0);
  expect_cwd_root("chdir through a symlink to /..");
  CHECK(chdir("/sub") == 0);
  CHECK(chdir("g_parent/..") == 0);
  expect_cwd_root("chdir to sub/g_parent/..");

  // Directory descriptors.
  int sub = open("/sub", O_RDONLY | O_DIRECTORY);
  int root = open("/", O_RDONLY | O_DIRECTORY);
  CHECK(sub >= 0 && root >= 0);
  expect_missing("openat(/sub, ../../outside_secret.txt)", sub, "../../outside_secret.txt");
  expect_missing("openat(/, ../outside_secret.txt)", root, "../outside_secret.txt");
  expect_inside("openat(/sub, ../inside.txt)", sub, "../inside.txt");
  int up = openat(root, "..", O_RDONLY | O_DIRECTORY);
  CHECK(up >= 0);
  struct stat st_up, st_root;
  CHECK(fstat(up, &st_up) == 0 && fstat(root, &st_root) == 0);
  printf("%-48s %d\n", "openat(/, \"..\") is the root itself",
         st_up.st_ino == st_root.st_ino && st_up.st_dev == st_root.st_dev);
  CHECK(st_up.st_ino == st_root.st_ino && st_up.st_dev == st_root.st_dev);
  CHECK(fchdir(sub) == 0 && chdir("../..") == 0);
  expect_cwd_root("fchdir(/sub) then chdir(\"../..\")");
  close(up);

  // Other calls through "..".
  struct stat st;
  int r = stat("../outside_secret.txt", &st);
  printf("%-48s %s\n", "stat ../outside_secret.txt", err_name(r == 0 ? 0 : errno));
  CHECK(r == -1 && errno == ENOENT);
  r = access("../outside_secret.txt", F_OK);
  printf("%-48s %s\n", "access ../outside_secret.txt", err_name(r == 0 ? 0 : errno));
  CHECK(r == -1 && errno == ENOENT);
  r = truncate("../outside_secret.txt", 0);
  printf("%-48s %s\n", "truncate ../outside_secret.txt", err_name(r == 0 ? 0 : errno));
  CHECK(r == -1 && errno == ENOENT);
  r = unlink("../outside_secret.txt");
  printf("%-48s %s\n", "unlink ../outside_secret.txt", err_name(r == 0 ? 0 : errno));
  CHECK(r == -1 && errno == ENOENT);
  r = unlinkat(sub, "../../outside_dir/x", 0);
  printf("%-48s %s\n", "unlinkat(/sub, ../../outside_dir/x)", err_name(r == 0 ? 0 : errno));
  CHECK(r == -1 && errno == ENOENT);
  attempts += 5;

  // Operations that create or move things "outside" land inside the root.
  write_file("inside_copy.txt", "a copy\n");
  r = rename("inside_copy.txt", "../moved_out.txt");
  printf("%-48s %s, now /moved_out.txt: %d\n", "rename to ../moved_out.txt",
         err_name(r == 0 ? 0 : errno), stat("/moved_out.txt", &st) == 0);
  CHECK(r == 0 && stat("/moved_out.txt", &st) == 0);
  r = renameat(sub, "../moved_out.txt", root, "../../moved_again.txt");
  printf("%-48s %s, now /moved_again.txt: %d\n", "renameat through .. on both sides",
         err_name(r == 0 ? 0 : errno), stat("/moved_again.txt", &st) == 0);
  CHECK(r == 0);
  fd = open("../../created_outside.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0 && write(fd, "created\n", 8) == 8 && close(fd) == 0);
  printf("%-48s %d\n", "creat ../../created_outside.txt: at /",
         stat("/created_outside.txt", &st) == 0);
  r = mkdir("../../made_outside", 0755);
  printf("%-48s %s, at /: %d\n", "mkdir ../../made_outside", err_name(r == 0 ? 0 : errno),
         stat("/made_outside", &st) == 0 && S_ISDIR(st.st_mode));
  CHECK(r == 0);
  r = link("inside.txt", "../../hard_outside");
  printf("%-48s %s, at /: %d\n", "link to ../../hard_outside", err_name(r == 0 ? 0 : errno),
         stat("/hard_outside", &st) == 0);
  CHECK(r == 0);
  r = symlinkat("inside.txt", sub, "../../sym_outside");
  printf("%-48s %s, readable: %d\n", "symlinkat(/sub, ../../sym_outside)",
         err_name(r == 0 ? 0 : errno), access("/sym_outside", R_OK) == 0);
  CHECK(r == 0);
  attempts += 6;

  // Listing "/.." lists the root.
  DIR* d = opendir("/..");
  CHECK(d != NULL);
  int saw_inside = 0, saw_secret = 0;
  struct dirent* ent;
  while ((ent = readdir(d)) != NULL) {
    saw_inside |= strcmp(ent->d_name, "inside.txt") == 0;
    saw_secret |= strcmp(ent->d_name, "outside_secret.txt") == 0;
  }
  closedir(d);
  printf("%-48s inside.txt %d, outside_secret.txt %d\n", "readdir(\"/..\")", saw_inside,
         saw_secret);
  CHECK(saw_inside && !saw_secret);

  // Writing inside works.
  write_file("/written_by_guest.txt", "written by the guest\n");
  CHECK(mkdir("/sub/new_dir", 0755) == 0);
  write_file("/sub/new_dir/file.txt", "nested\n");
  char content[64];
  CHECK(try_read(AT_FDCWD, "/sub/new_dir/file.txt", content, sizeof content) == 0);
  CHECK(strcmp(content, "nested\n") == 0);
  printf("%d escape attempts, none left the root; files written inside\n", attempts);
  return 0;
}
