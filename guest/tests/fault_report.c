// A guest that dies of a signal, for the checks of hpmsim's report (stderr lines starting
// "hpmsim: ": the signal, the thread, the pc with the nearest ELF symbol, the faulting address
// and the disassembled instruction). The argument picks the death:
//   segv_thread  the second thread (tid 2) stores to address 0x10 in store_to_null_page()
//   ill_main     the main thread executes an illegal instruction in illegal_in_main()
//   bus_thread   the second thread runs a misaligned amoadd.w in misaligned_amo_in_thread()
//   trap_main    the main thread executes ebreak in breakpoint_in_main()
//   usr1_thread  the main thread sends SIGUSR1 (default action: terminate) to the third thread
//                (tid 3), blocked in a wait
// It prints (and flushes) a line before, so the output up to the death can be compared.
#include <semaphore.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "thread_util.h"

__attribute__((noinline)) void store_to_null_page(void) {
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "li t0, 0x10\n"
      "li t1, 42\n"
      "sd t1, 0(t0)\n"
      ".option pop\n" ::
          : "t0", "t1", "memory");
}

__attribute__((noinline)) void illegal_in_main(void) {
  __asm__ volatile(".option push\n.option norvc\ncsrw cycle, zero\n.option pop\n");
}

__attribute__((noinline)) void breakpoint_in_main(void) {
  __asm__ volatile(".option push\n.option norvc\nnop\nebreak\n.option pop\n");
}

static char buffer[16] __attribute__((aligned(8)));

__attribute__((noinline)) void misaligned_amo_in_thread(void) {
  __asm__ volatile(
      ".option push\n.option norvc\n"
      "li t1, 1\n"
      "amoadd.w zero, t1, (%0)\n"
      ".option pop\n" ::"r"(buffer + 2)
      : "t1", "memory");
}

static void* run_store(void* arg) {
  (void)arg;
  store_to_null_page();
  return NULL;
}

static void* run_amo(void* arg) {
  (void)arg;
  misaligned_amo_in_thread();
  return NULL;
}

static sem_t started;

static void* wait_forever(void* arg) {
  (void)arg;
  CHECK(sem_post(&started) == 0);
  for (;;) pause();
  return NULL;
}

int main(int argc, char** argv) {
  CHECK(argc == 2);
  printf("about to die: %s\n", argv[1]);
  fflush(stdout);
  if (strcmp(argv[1], "segv_thread") == 0) {
    join_thread(start_thread(run_store, NULL));
  } else if (strcmp(argv[1], "ill_main") == 0) {
    illegal_in_main();
  } else if (strcmp(argv[1], "trap_main") == 0) {
    breakpoint_in_main();
  } else if (strcmp(argv[1], "bus_thread") == 0) {
    join_thread(start_thread(run_amo, NULL));
  } else if (strcmp(argv[1], "usr1_thread") == 0) {
    CHECK(sem_init(&started, 0, 0) == 0);
    pthread_t a = start_thread(wait_forever, NULL);
    pthread_t b = start_thread(wait_forever, NULL);
    CHECK(sem_wait(&started) == 0 && sem_wait(&started) == 0);
    CHECK(pthread_kill(b, SIGUSR1) == 0);
    join_thread(a);
  }
  printf("still alive?!\n");
  return 0;
}
