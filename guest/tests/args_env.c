// argv and the environment: argc, every argument after argv[0] (argv[0] is the path the
// runner chose, so only its last component is printed), arguments with spaces and empty ones,
// every environment entry in order, getenv/setenv/unsetenv/putenv, and the auxiliary vector
// entries whose values are fixed by the ABI (page size, and that AT_RANDOM and AT_PHDR exist).
#include <string.h>
#include <sys/auxv.h>

#include "common.h"

int main(int argc, char** argv, char** envp) {
  const char* slash = strrchr(argv[0], '/');
  printf("argc=%d argv0 basename=%s\n", argc, slash ? slash + 1 : argv[0]);
  for (int i = 1; i < argc; ++i) printf("argv[%d]=[%s] (%zu bytes)\n", i, argv[i], strlen(argv[i]));
  CHECK(argv[argc] == NULL);
  int n = 0;
  for (char** e = envp; *e != NULL; ++e) printf("env[%d]=[%s]\n", n++, *e);
  printf("getenv HOME=%s MISSING=%s\n", getenv("HOME"), getenv("MISSING") ? "set" : "(null)");
  CHECK(setenv("NEWVAR", "new value", 0) == 0);
  CHECK(setenv("NEWVAR", "ignored", 0) == 0);
  printf("setenv no-overwrite: %s\n", getenv("NEWVAR"));
  CHECK(setenv("NEWVAR", "replaced", 1) == 0);
  printf("setenv overwrite: %s\n", getenv("NEWVAR"));
  static char put[] = "PUTVAR=from putenv";
  CHECK(putenv(put) == 0);
  printf("putenv: %s\n", getenv("PUTVAR"));
  CHECK(unsetenv("NEWVAR") == 0);
  printf("after unsetenv: %s\n", getenv("NEWVAR") ? "still set" : "gone");
  printf("AT_PAGESZ=%lu AT_RANDOM present=%d AT_PHDR present=%d AT_PHENT=%lu\n",
         getauxval(AT_PAGESZ), getauxval(AT_RANDOM) != 0, getauxval(AT_PHDR) != 0,
         getauxval(AT_PHENT));
  printf("AT_SECURE=%lu\n", getauxval(AT_SECURE));
  return 0;
}
