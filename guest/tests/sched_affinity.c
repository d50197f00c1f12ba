// CPU affinity and the current CPU on the modelled node (run under hpmsim on each machine: the
// counts are the machine's, 64 hardware threads on bgq, 4 on bgp).
// - sched_getaffinity lists every hardware thread; sysconf(_SC_NPROCESSORS_ONLN/CONF),
//   get_nprocs and get_nprocs_conf agree with it.
// - sched_setaffinity to one CPU moves the calling thread there: sched_getcpu and getcpu()
//   report it, and sched_getaffinity then returns just that CPU; for each CPU of the machine in
//   turn. pthread_setaffinity_np does the same for another thread, and a thread created with
//   an affinity attribute starts on its CPU. A new thread inherits its creator's affinity.
// - A mask with no CPU of the machine is EINVAL; sched_getaffinity with a too-small buffer is
//   EINVAL; sched_yield succeeds.
// Prints the machine's CPU count, so the harness can hold it against the machine.
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "thread_util.h"

static int ncpus;

static int current_cpu(void) {
  unsigned cpu = ~0u, node = ~0u;
  CHECK(syscall(SYS_getcpu, &cpu, &node, NULL) == 0);
  CHECK(node == 0);
  int via_libc = sched_getcpu();
  CHECK(via_libc == (int)cpu);
  return (int)cpu;
}

static int only_cpu_in_mask(void) {
  cpu_set_t set;
  CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
  if (CPU_COUNT(&set) != 1) return -1;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (CPU_ISSET(i, &set)) return i;
  }
  return -1;
}

static void* report_cpu(void* arg) {
  (void)arg;
  return (void*)(intptr_t)(current_cpu() * 1000 + only_cpu_in_mask() + 1);
}

static pthread_barrier_t moved;

static void* wait_to_be_moved(void* arg) {
  (void)arg;
  pthread_barrier_wait(&moved);  // main moves us meanwhile
  pthread_barrier_wait(&moved);
  return (void*)(intptr_t)current_cpu();
}

int main(void) {
  cpu_set_t set;
  CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
  ncpus = CPU_COUNT(&set);
  printf("cpus in the affinity mask: %d\n", ncpus);
  printf("sysconf online %ld configured %ld, get_nprocs %d, get_nprocs_conf %d\n",
         sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF), get_nprocs(),
         get_nprocs_conf());
  CHECK(sysconf(_SC_NPROCESSORS_ONLN) == ncpus && get_nprocs() == ncpus);
  CHECK(sysconf(_SC_NPROCESSORS_CONF) == ncpus && get_nprocs_conf() == ncpus);
  for (int i = 0; i < ncpus; ++i) CHECK(CPU_ISSET(i, &set));
  printf("starts on cpu %d\n", current_cpu());

  int all_ok = 1;
  for (int cpu = ncpus - 1; cpu >= 0; --cpu) {
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    CHECK(sched_setaffinity(0, sizeof set, &set) == 0);
    all_ok &= current_cpu() == cpu && only_cpu_in_mask() == cpu;
  }
  printf("sched_setaffinity to each cpu in turn, getcpu and the mask follow: %d\n", all_ok);
  CHECK(all_ok);

  // A new thread inherits the affinity (main is on the last cpu only).
  CPU_ZERO(&set);
  CPU_SET(ncpus - 1, &set);
  CHECK(sched_setaffinity(0, sizeof set, &set) == 0);
  int r = (int)(intptr_t)join_thread(start_thread(report_cpu, NULL));
  printf("new thread inherits the creator's single-cpu mask: on cpu %d, mask cpu %d\n", r / 1000,
         r % 1000 - 1);
  CHECK(r / 1000 == ncpus - 1 && r % 1000 - 1 == ncpus - 1);

  // A thread created with an affinity attribute.
  pthread_attr_t attr;
  CHECK(pthread_attr_init(&attr) == 0);
  CPU_ZERO(&set);
  CPU_SET(ncpus / 2, &set);
  CHECK(pthread_attr_setaffinity_np(&attr, sizeof set, &set) == 0);
  pthread_t t;
  CHECK(pthread_create(&t, &attr, report_cpu, NULL) == 0);
  CHECK(pthread_attr_destroy(&attr) == 0);
  r = (int)(intptr_t)join_thread(t);
  printf("thread created with affinity cpu %d: runs on %d\n", ncpus / 2, r / 1000);
  CHECK(r / 1000 == ncpus / 2 && r % 1000 - 1 == ncpus / 2);

  // pthread_setaffinity_np moves another thread.
  CHECK(pthread_barrier_init(&moved, NULL, 2) == 0);
  t = start_thread(wait_to_be_moved, NULL);
  pthread_barrier_wait(&moved);
  CPU_ZERO(&set);
  CPU_SET(1 % ncpus, &set);
  CHECK(pthread_setaffinity_np(t, sizeof set, &set) == 0);
  cpu_set_t got;
  CHECK(pthread_getaffinity_np(t, sizeof got, &got) == 0);
  CHECK(CPU_EQUAL(&got, &set));
  pthread_barrier_wait(&moved);
  r = (int)(intptr_t)join_thread(t);
  printf("pthread_setaffinity_np moved another thread to cpu %d: %d\n", 1 % ncpus, r == 1 % ncpus);
  CHECK(r == 1 % ncpus);

  // Errors.
  CPU_ZERO(&set);
  CPU_SET(CPU_SETSIZE - 1, &set);  // beyond every machine
  r = sched_setaffinity(0, sizeof set, &set);
  printf("sched_setaffinity to a cpu the machine lacks: %s\n",
         r == -1 && errno == EINVAL ? "EINVAL" : "other");
  CPU_ZERO(&set);
  r = sched_setaffinity(0, sizeof set, &set);
  printf("sched_setaffinity with an empty mask: %s\n",
         r == -1 && errno == EINVAL ? "EINVAL" : "other");
  r = (int)syscall(SYS_sched_getaffinity, 0, 1, &set);  // 1 byte: too small for the kernel's mask
  printf("sched_getaffinity with a 1-byte buffer: %s\n",
         r == -1 && errno == EINVAL ? "EINVAL" : "other");
  printf("sched_yield: %d\n", sched_yield());
  return 0;
}
