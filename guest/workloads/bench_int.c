// bench_int: an integer-compute benchmark (cache-resident data, branchy and arithmetic code).
// Each of SIZE rounds (argument, default 400) runs: a table-driven CRC-32 over a 16 KiB buffer,
// a small bytecode interpreter executing a loop of integer operations, 64-bit hash mixing with
// multiplies and rotates, and an insertion sort of 256 keys. Prints a checksum. About 2
// million instructions per round, so roughly 800 million at the default size.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[256];

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
}

static uint32_t crc32(const unsigned char* p, size_t len, uint32_t crc) {
  crc = ~crc;
  for (size_t i = 0; i < len; ++i) crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

// A tiny stack machine: the program computes a Collatz-like sequence for `iters` steps.
enum { OP_PUSH, OP_DUP, OP_ODD, OP_JZ, OP_MUL3P1, OP_HALF, OP_ACC, OP_DEC, OP_JNZ, OP_HALT };

static uint64_t interpret(uint64_t seed, uint64_t iters) {
  static const uint8_t code[] = {OP_DUP,  OP_ODD, OP_JZ,  6,      OP_MUL3P1, OP_ACC,
                                 OP_HALF, OP_ACC, OP_DEC, OP_JNZ, 0,         OP_HALT};
  uint64_t x = seed | 1, acc = 0, counter = iters, stack[4];
  int sp = 0;
  size_t pc = 0;
  for (;;) {
    switch (code[pc]) {
      case OP_DUP:
        stack[sp++] = x;
        ++pc;
        break;
      case OP_ODD:
        stack[sp - 1] &= 1;
        ++pc;
        break;
      case OP_JZ: pc = stack[--sp] == 0 ? code[pc + 1] : pc + 2; break;
      case OP_MUL3P1:
        x = 3 * x + 1;
        ++pc;
        break;
      case OP_HALF:
        x >>= 1;
        if (x == 0) x = seed | 1;
        ++pc;
        break;
      case OP_ACC:
        acc += x ^ (acc << 1);
        ++pc;
        break;
      case OP_DEC:
        --counter;
        ++pc;
        break;
      case OP_JNZ: pc = counter != 0 ? code[pc + 1] : pc + 2; break;
      case OP_HALT: return acc;
      default: pc = 0; break;
    }
  }
}

static uint64_t mix(uint64_t h, uint64_t rounds) {
  for (uint64_t i = 0; i < rounds; ++i) {
    h ^= h >> 31;
    h *= 0x7fb5d329728ea185ULL;
    h = (h << 27) | (h >> 37);
    h *= 0x81dadef4bc2dd44dULL;
    h ^= i;
  }
  return h;
}

static uint64_t sort_keys(uint64_t seed) {
  uint32_t keys[256];
  for (int i = 0; i < 256; ++i) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    keys[i] = (uint32_t)(seed >> 33);
  }
  for (int i = 1; i < 256; ++i) {
    uint32_t k = keys[i];
    int j = i - 1;
    while (j >= 0 && keys[j] > k) {
      keys[j + 1] = keys[j];
      --j;
    }
    keys[j + 1] = k;
  }
  return (uint64_t)keys[0] << 32 | (keys[255] ^ keys[128]);
}

int main(int argc, char** argv) {
  long size = argc > 1 ? atol(argv[1]) : 400;
  if (size < 1) {
    fprintf(stderr, "usage: bench_int [ROUNDS >= 1]\n");
    return 2;
  }
  crc_init();
  static unsigned char buf[16384];
  for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (unsigned char)(i * 131 + (i >> 7));
  uint64_t checksum = 0;
  uint32_t crc = 0;
  for (long r = 0; r < size; ++r) {
    crc = crc32(buf, sizeof buf, crc);
    buf[r % sizeof buf] ^= (unsigned char)crc;
    checksum += interpret(crc ^ (uint64_t)r, 12000);
    checksum ^= mix(checksum + (uint64_t)r, 20000);
    checksum += sort_keys(checksum);
  }
  printf("bench_int rounds=%ld checksum=%016llx crc=%08x\n", size, (unsigned long long)checksum,
         crc);
  return 0;
}
