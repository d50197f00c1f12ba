// The initial process stack as the kernel builds it at exec: the position of the argument and
// environment strings relative to each other, to the stack pointer and within their page, and
// the auxiliary vector: which entries, in which order, with their values (addresses inside the
// string area are printed relative to argv[0]; uid/gid only as consistent with getuid() etc.).
// glibc's start-up code walks all of this, so its instruction count depends on the exact
// layout (string alignment, number of auxv entries): a simulator whose counts must equal
// qemu-riscv64's has to build the same stack, and this program pins it down.
#include <elf.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static const char* aux_name(uint64_t type) {
  switch (type) {
    case AT_PHDR: return "AT_PHDR";
    case AT_PHENT: return "AT_PHENT";
    case AT_PHNUM: return "AT_PHNUM";
    case AT_PAGESZ: return "AT_PAGESZ";
    case AT_BASE: return "AT_BASE";
    case AT_FLAGS: return "AT_FLAGS";
    case AT_ENTRY: return "AT_ENTRY";
    case AT_UID: return "AT_UID";
    case AT_EUID: return "AT_EUID";
    case AT_GID: return "AT_GID";
    case AT_EGID: return "AT_EGID";
    case AT_HWCAP: return "AT_HWCAP";
    case AT_HWCAP2: return "AT_HWCAP2";
    case AT_CLKTCK: return "AT_CLKTCK";
    case AT_PLATFORM: return "AT_PLATFORM";
    case AT_SECURE: return "AT_SECURE";
    case AT_RANDOM: return "AT_RANDOM";
    case AT_EXECFN: return "AT_EXECFN";
    case AT_SYSINFO_EHDR: return "AT_SYSINFO_EHDR";
    case AT_MINSIGSTKSZ: return "AT_MINSIGSTKSZ";
    default: return "other";
  }
}

int main(int argc, char** argv, char** envp) {
  uintptr_t sp = (uintptr_t)argv - sizeof(long);  // the stack pointer at entry pointed at argc
  uintptr_t a0 = (uintptr_t)argv[0];
  CHECK(*(long*)sp == argc);
  printf("argc=%d sp%%16=%lu argv[0]%%4096=%lu argv[0]-sp=%lu\n", argc, (unsigned long)(sp % 16),
         (unsigned long)(a0 % 4096), (unsigned long)(a0 - sp));
  for (int i = 0; i < argc; ++i) {
    printf("argv[%d] at argv[0]%+ld, %zu bytes\n", i, (long)((uintptr_t)argv[i] - a0),
           strlen(argv[i]) + 1);
  }
  char** e = envp;
  for (; *e != NULL; ++e) {
    printf("envp[%td] at argv[0]%+ld, %zu bytes\n", e - envp, (long)((uintptr_t)*e - a0),
           strlen(*e) + 1);
  }
  CHECK((uintptr_t)envp == (uintptr_t)(argv + argc + 1));
  int n = 0;
  for (const Elf64_auxv_t* av = (const Elf64_auxv_t*)(e + 1); av->a_type != AT_NULL; ++av, ++n) {
    uint64_t t = av->a_type, v = av->a_un.a_val;
    printf("auxv[%d] %s (%lu) = ", n, aux_name(t), (unsigned long)t);
    switch (t) {
      case AT_RANDOM: printf("argv[0]%+ld", (long)(v - a0)); break;
      case AT_EXECFN:
      case AT_PLATFORM:
        printf("argv[0]%+ld \"%s\"", (long)(v - a0), (const char*)(uintptr_t)v);
        break;
      case AT_UID: printf("getuid() %s", v == getuid() ? "agrees" : "DIFFERS"); break;
      case AT_EUID: printf("geteuid() %s", v == geteuid() ? "agrees" : "DIFFERS"); break;
      case AT_GID: printf("getgid() %s", v == getgid() ? "agrees" : "DIFFERS"); break;
      case AT_EGID: printf("getegid() %s", v == getegid() ? "agrees" : "DIFFERS"); break;
      default: printf("%#lx", (unsigned long)v); break;
    }
    printf("\n");
  }
  printf("auxv entries: %d\n", n);
  return 0;
}
