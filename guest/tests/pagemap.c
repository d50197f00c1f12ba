/* /proc/self/pagemap as Linux gives it (Documentation/admin-guide/mm/pagemap.rst): 8 bytes per
 * virtual page, bit 63 present, bits 0-54 the page frame number, bit 61 a file page, bit 56
 * mapped exclusively. hpmsim's node maps memory 1:1, so a present page's frame is its virtual
 * page number; a page is present once touched. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t entry(int fd, const void* addr) {
  uint64_t e = 0;
  const off_t at = (off_t)((uintptr_t)addr / 4096 * 8);
  if (pread(fd, &e, sizeof e, at) != (ssize_t)sizeof e) return ~(uint64_t)0;
  return e;
}

int main(void) {
  const int fd = open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) {
    printf("pagemap: open failed, errno %d\n", errno);
    return 1;
  }
  char* p = mmap(0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  p[0] = 1;
  p[2 * 4096] = 1;
  close(fd);
  /* The file is a snapshot taken at open: open it again after touching. */
  const int snap = open("/proc/self/pagemap", O_RDONLY);
  const uint64_t touched = entry(snap, p), untouched = entry(snap, p + 4096);
  const uint64_t text = entry(snap, (const void*)&main);
  printf("pagemap: touched page present %d, frame is the page %d, exclusive %d\n",
         (int)(touched >> 63), (touched & ((UINT64_C(1) << 55) - 1)) == (uintptr_t)p / 4096,
         (int)(touched >> 56 & 1));
  printf("pagemap: untouched page entry %llu\n", (unsigned long long)untouched);
  munmap(p, 3 * 4096);
  printf("pagemap: text page present %d, file %d\n", (int)(text >> 63), (int)(text >> 61 & 1));
  printf("pagemap: unmapped page entry %llu\n", (unsigned long long)entry(snap, (void*)4096));
  close(snap);
  const int w = open("/proc/self/pagemap", O_RDWR);
  printf("pagemap: open for writing %s\n", w < 0 && errno == EACCES ? "EACCES" : "allowed");
  return 0;
}
