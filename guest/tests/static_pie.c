// A static position-independent executable (built with -static-pie, ELF type ET_DYN with a
// PT_DYNAMIC segment and no interpreter): the loader may place it anywhere, and the program
// applies its own R_RISCV_RELATIVE relocations before touching any initialised pointer.
// Debian's riscv64 glibc has no static-PIE support (no rcrt1.o, no self-relocation in libc.a),
// so this program has no C library: its own _start relocates, then prints through write(2)
// and exits through exit_group. It checks tables of function and string pointers and a
// pointer into another object (all needing relocations), without printing any address.
#include <elf.h>
#include <stddef.h>
#include <stdint.h>

extern const Elf64_Ehdr __ehdr_start __attribute__((visibility("hidden")));
extern Elf64_Dyn _DYNAMIC[] __attribute__((visibility("hidden")));

static long sys3(long nr, long a, long b, long c) {
  register long a0 __asm__("a0") = a;
  register long a1 __asm__("a1") = b;
  register long a2 __asm__("a2") = c;
  register long a7 __asm__("a7") = nr;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}

static void put(const char* s) {
  size_t n = 0;
  while (s[n] != '\0') ++n;
  sys3(64 /* write */, 1, (long)s, (long)n);
}

static void put_num(long v) {
  char buf[24];
  int i = 23;
  buf[i] = '\0';
  int neg = v < 0;
  unsigned long u = neg ? -(unsigned long)v : (unsigned long)v;
  do {
    buf[--i] = (char)('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (neg) buf[--i] = '-';
  put(buf + i);
}

static int add(int a, int b) {
  return a + b;
}
static int mul(int a, int b) {
  return a * b;
}
static int sub(int a, int b) {
  return a - b;
}

// Each initialiser below needs a relative relocation in a PIE.
static int (*const ops[])(int, int) = {add, mul, sub};
static const char* const names[] = {"add", "mul", "sub"};
static int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
static int* const middle = &table[4];

// Applies R_RISCV_RELATIVE relocations; uses only PC-relative addresses and the stack.
static void relocate(void) {
  uintptr_t base = (uintptr_t)&__ehdr_start;  // the link-time address of the header is 0
  const Elf64_Rela* rela = NULL;
  size_t relasz = 0;
  for (const Elf64_Dyn* d = _DYNAMIC; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_RELA) rela = (const Elf64_Rela*)(base + d->d_un.d_ptr);
    if (d->d_tag == DT_RELASZ) relasz = d->d_un.d_val;
  }
  for (size_t i = 0; rela != NULL && i < relasz / sizeof *rela; ++i) {
    if (ELF64_R_TYPE(rela[i].r_info) == R_RISCV_RELATIVE) {
      *(uintptr_t*)(base + rela[i].r_offset) = base + (uintptr_t)rela[i].r_addend;
    }
  }
}

static int run(void) {
  for (int i = 0; i < 3; ++i) {
    put(names[i]);
    put("(6, 7) = ");
    put_num(ops[i](6, 7));
    put("\n");
  }
  put("*middle = ");
  put_num(*middle);
  put(", middle - table = ");
  put_num(middle - table);
  put("\n");
  put(__ehdr_start.e_type == ET_DYN ? "e_type=ET_DYN" : "e_type=other");
  put((uintptr_t)&__ehdr_start % 4096 == 0 ? ", page-aligned load address\n"
                                           : ", misaligned load address\n");
  return 0;
}

// The entry point: sp points at argc; keep the stack 16-byte aligned for the C code.
__attribute__((noreturn)) void start_c(void) {
  relocate();
  int status = run();
  sys3(94 /* exit_group */, status, 0, 0);
  __builtin_unreachable();
}

__asm__(
    ".globl _start\n"
    "_start:\n"
    "  .option push\n"
    "  .option norelax\n"
    "  lla gp, __global_pointer$\n"
    "  .option pop\n"
    "  andi sp, sp, -16\n"
    "  call start_c\n");
