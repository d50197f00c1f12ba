// node_mix: a small workload that gives every counting unit something to count, for the monitor's
// exactness tests (tests/node). THREADS (argument, default 6) threads each walk a private buffer
// larger than the L1D (misses, prefetches, L2 and DDR traffic), run integer and floating-point
// arithmetic in both precisions, share a counter through atomics and a mutex (coherence traffic,
// futexes), and write a line; the main thread also opens and reads /dev/zero, takes a signal and
// waits for an interval timer, and makes exactly kMisalignedLoads misaligned loads and
// kMisalignedStores misaligned stores (the tests know these numbers), and takes one fault of each
// kind the kernel counts (a load from unmapped memory, a fetch from a non-executable page, an
// illegal instruction, a breakpoint, a misaligned atomic), each handled, and asks once for more
// memory than the node has. On bgq six threads fill
// core 0's four hardware threads and two of core 1's; on bgp they share four cores (context
// switches). Prints a checksum.
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <unistd.h>

enum { kMaxThreads = 64, kBufferBytes = 96 * 1024, kRounds = 3 };
enum { kMisalignedLoads = 100, kMisalignedStores = 50 };

static long shared_counter;  // atomics only
static long locked_counter;  // under shared_lock only
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t signals_seen;

struct Work {
  int index;
  unsigned char* buffer;
  double result;
};

static void* worker(void* arg) {
  struct Work* w = arg;
  long acc = w->index + 1;
  // Memory: stores, then loads with a cache-line stride, then byte and half-word accesses.
  for (int r = 0; r < kRounds; ++r) {
    for (int i = 0; i < kBufferBytes; i += 8) *(long*)(w->buffer + i) = acc + i + r;
    for (int i = 0; i < kBufferBytes; i += 64) acc += *(long*)(w->buffer + i);
    for (int i = 0; i < 4096; ++i) acc ^= w->buffer[i * 7 % kBufferBytes];
    for (int i = 0; i < 2048; i += 2) acc += *(unsigned short*)(w->buffer + i);
  }
  // Integer multiply and divide.
  for (long i = 1; i < 2000; ++i) acc = acc * 3 + (acc / i) % 7;
  // Floating point: double and single, adds, multiplies, fused multiply-adds, a division and a
  // square root.
  double d = 1.0;
  float f = 1.0f;
  for (int i = 0; i < 3000; ++i) {
    d = d * 0.999 + 0.5 * (double)i;
    f = f * 0.5f + 1.0f;
  }
  d = __builtin_sqrt(d) / (double)(f + 1.0f);
  // Sharing: atomics and a mutex.
  for (int i = 0; i < 200; ++i) {
    __atomic_fetch_add(&shared_counter, 1, __ATOMIC_RELAXED);
    if (i % 20 == 0) {
      pthread_mutex_lock(&shared_lock);
      locked_counter += 2;
      pthread_mutex_unlock(&shared_lock);
    }
  }
  char line[64];
  const int n = snprintf(line, sizeof line, "worker %d done\n", w->index);
  if (write(1, line, (size_t)n) != n) abort();
  w->result = d + (double)(acc & 0xffff);
  return NULL;
}

static void onSignal(int signo) {
  (void)signo;
  ++signals_seen;
}

static sigjmp_buf fault_return;
static volatile sig_atomic_t faults_taken;
static volatile long* volatile unmapped = (volatile long*)8;

static void onFault(int signo) {
  (void)signo;
  ++faults_taken;
  siglongjmp(fault_return, 1);
}

// One fault of each kind, each handled: a load from unmapped memory (SIGSEGV), a fetch from a
// page without execute permission (SIGSEGV), an illegal instruction (SIGILL), a breakpoint
// (SIGTRAP), a misaligned atomic (SIGBUS).
static int takeFaults(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = onFault;
  sa.sa_flags = SA_NODEFER;
  const int signals[] = {SIGSEGV, SIGILL, SIGTRAP, SIGBUS};
  for (int i = 0; i < 4; ++i) sigaction(signals[i], &sa, NULL);
  unsigned char* page =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return -1;
  page[0] = 0x73;  // (an ecall, were it ever executed)
  static long aligned[2] __attribute__((aligned(16)));
  for (volatile int kind = 0; kind < 5; ++kind) {
    if (sigsetjmp(fault_return, 1) != 0) continue;
    switch (kind) {
      case 0: (void)*unmapped; break;
      case 1: ((void (*)(void))page)(); break;
      case 2: __asm__ volatile(".word 0" ::: "memory"); break;
      case 3: __asm__ volatile("ebreak" ::: "memory"); break;
      case 4:
        __asm__ volatile("amoadd.w zero, %0, (%1)" : : "r"(1), "r"((char*)aligned + 2) : "memory");
        break;
    }
  }
  munmap(page, 4096);
  for (int i = 0; i < 4; ++i) signal(signals[i], SIG_DFL);
  return faults_taken;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 6;
  if (threads < 1 || threads > kMaxThreads) threads = 6;

  signal(SIGUSR1, onSignal);
  signal(SIGALRM, onSignal);
  kill(getpid(), SIGUSR1);
  const struct itimerval once = {{0, 0}, {0, 200}};
  setitimer(ITIMER_REAL, &once, NULL);
  while (signals_seen < 2) pause();
  if (takeFaults() != 5) return 5;

  // Misaligned accesses, in assembly so that the compiler cannot split them.
  static unsigned char scratch[64] __attribute__((aligned(16)));
  long misaligned = 0;
  for (int i = 0; i < kMisalignedLoads; ++i) {
    long v;
    __asm__ volatile("ld %0, 0(%1)" : "=r"(v) : "r"(scratch + 1 + i % 7) : "memory");
    misaligned += v;
  }
  for (int i = 0; i < kMisalignedStores; ++i) {
    __asm__ volatile("sw %0, 0(%1)" : : "r"(i), "r"(scratch + 1 + i % 3) : "memory");
  }

  // One request for more memory than the node has: refused (the kernel's MemoryRefusals). The
  // result is not looked at, so the instructions are the same wherever it runs.
  struct sysinfo info;
  sysinfo(&info);
  syscall(SYS_mmap, NULL, 2 * (size_t)info.totalram * info.mem_unit, PROT_READ | PROT_WRITE,
          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  const int fd = open("/dev/zero", O_RDONLY);
  char zeros[256];
  if (fd < 0 || read(fd, zeros, sizeof zeros) != (ssize_t)sizeof zeros) return 2;
  close(fd);

  static struct Work work[kMaxThreads];
  pthread_t ids[kMaxThreads];
  for (int t = 0; t < threads; ++t) {
    work[t].index = t;
    work[t].buffer = malloc(kBufferBytes);
    if (work[t].buffer == NULL) return 3;
    memset(work[t].buffer, zeros[t], kBufferBytes);
    if (pthread_create(&ids[t], NULL, worker, &work[t]) != 0) return 4;
  }
  double total = (double)(misaligned & 1);
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    total += work[t].result;
    free(work[t].buffer);
  }
  printf("node_mix: %d threads, shared %ld + %ld, checksum %.6e\n", threads, shared_counter,
         locked_counter, total);
  return 0;
}
