/* Who supplied a line, seen from the program (hpm/imon.h, docs/sunfire.md; tests/counters,
 * GuestInterconnect.*): on a Fireplane machine the main thread writes a page, finds its physical
 * address in /proc/self/pagemap, and filters the interconnect monitor to ReadToShare
 * transactions of that physical page; another thread, on another CPU, then reads the page's 64
 * lines. Every one of them must come from the main thread's cache: counter 0 counts the page's
 * 64 line requests, the snoop result of each is Modified, and every record the FIFO kept names
 * the reading CPU as source and the writing CPU as supplier.
 *
 *   imon_supplier */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctr_common.h"
#include "hpm/imon.h"

#define PAGE 4096
#define LINE 64

static volatile uint64_t* page;
static int reader_cpu = -1;
static uint64_t reader_sum;

static void* reader(void* arg) {
  (void)arg;
  reader_cpu = sched_getcpu();
  uint64_t sum = 0;
  for (unsigned i = 0; i < PAGE / 8; i += LINE / 8) sum += page[i];
  reader_sum = sum;
  return 0;
}

int main(void) {
  hpm_imon m;
  const int err = hpm_imon_open(&m);
  if (err != 0) die("hpm_imon_open", err);
  check_true("the monitor watches a Fireplane bus of 19 types",
             m.interconnect == HPM_IMON_INTERCONNECT_FIREPLANE && m.types == 19);

  page = aligned_alloc(PAGE, PAGE);
  if (!page) die("aligned_alloc", 0);
  for (unsigned i = 0; i < PAGE / 8; ++i) page[i] = i; /* Modified in this CPU's cache */
  const int writer_cpu = sched_getcpu();

  /* The page's physical address, as Linux gives it. */
  const int fd = open("/proc/self/pagemap", O_RDONLY);
  if (fd < 0) die("open pagemap", fd);
  uint64_t entry = 0;
  if (pread(fd, &entry, sizeof entry, (off_t)((uintptr_t)page / PAGE * 8)) != sizeof entry) {
    die("pread pagemap", 0);
  }
  close(fd);
  check_true("the page is present", entry >> 63 == 1);
  const uint64_t physical = (entry & ((UINT64_C(1) << 55) - 1)) * PAGE;
  check_true("its physical address differs from its virtual one", physical != (uintptr_t)page);

  struct hpm_imon_filter f;
  hpm_imon_filter_any(&f);
  f.types = HPM_IMON_BIT(HPM_IMON_RTS);
  f.addr_match = physical;
  f.addr_mask = ~(uint64_t)(PAGE - 1);
  if (hpm_imon_set_filter(&m, 0, &f) != 0 || hpm_imon_set_filter(&m, 1, &f) != 0) {
    die("hpm_imon_set_filter", 0);
  }
  hpm_imon_fifo_enable(&m, 0, 1);
  hpm_imon_run(&m, 1);

  pthread_t tid;
  pthread_create(&tid, 0, reader, 0);
  pthread_join(tid, 0);

  hpm_imon_run(&m, 0);
  struct hpm_imon_record records[8];
  uint64_t lost = 0;
  const unsigned n = hpm_imon_fifo_sample(&m, 0, records, 8, &lost);
  check_eq("the reader's sum", reader_sum, (PAGE / LINE) * (PAGE / LINE - 1) / 2 * (LINE / 8));
  check_true("the reader ran on another CPU", reader_cpu >= 0 && reader_cpu != writer_cpu);
  check_eq("ReadToShare requests of the page", hpm_imon_read(&m, 0), PAGE / LINE);
  check_eq("the FIFO kept its last 8", n, 8);
  check_eq("and lost the others", lost, PAGE / LINE - 8);
  int all_ok = 1;
  for (unsigned i = 0; i < n; ++i) {
    all_ok &= records[i].type == HPM_IMON_RTS && records[i].snoop == HPM_IMON_SNOOP_MODIFIED &&
              records[i].source == (unsigned)reader_cpu &&
              records[i].supplier == (unsigned)writer_cpu &&
              records[i].address / PAGE * PAGE == physical;
  }
  check_true("each record: RTS of the page, from the reader, supplied Modified by the writer",
             all_ok);
  printf("imon: writer cpu %d, reader cpu %d, page 0x%" PRIx64 " at physical 0x%" PRIx64 "\n",
         writer_cpu, reader_cpu, (uint64_t)(uintptr_t)page, physical);
  hpm_imon_close(&m);
  return finish();
}
