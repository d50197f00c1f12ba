// OpenMP tasks and synchronisation constructs, with results independent of the team size:
// a recursive Fibonacci with tasks and taskwait, tasks in a taskgroup, task dependences (a
// chain whose order is forced by depend(in/out)), single (one thread runs it) and master
// (thread 0 runs it), critical sections (named and unnamed) guarding plain updates, atomic
// update/capture/read/write, barriers separating phases, sections, and nested parallelism
// off by default (an inner parallel region has a team of 1 and level 2, active level 1).
#include <omp.h>
#include <string.h>

#include "common.h"

static long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  if (n < 12) return fib(n - 1) + fib(n - 2);  // small problems without task overhead
#pragma omp task shared(a)
  a = fib(n - 1);
#pragma omp task shared(b)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

enum { kSlots = 256 };

int main(void) {
  int team = 0;
#pragma omp parallel
  {
#pragma omp master
    team = omp_get_num_threads();
  }
  printf("team size %d\n", team);

  long f = 0;
#pragma omp parallel
  {
#pragma omp single
    f = fib(22);
  }
  printf("tasks: fib(22) = %ld\n", f);
  CHECK(f == 17711);

  long group_sum = 0;
#pragma omp parallel
  {
#pragma omp single
    {
#pragma omp taskgroup
      {
        for (int i = 1; i <= 100; ++i) {
#pragma omp task firstprivate(i)
          {
#pragma omp atomic
            group_sum += i;
          }
        }
      }
      // Every task of the group has finished here.
      CHECK(group_sum == 5050);
    }
  }
  printf("taskgroup: sum %ld\n", group_sum);

  char chain[16] = "";
  int x = 0;  // only names the dependence
  (void)x;
#pragma omp parallel
  {
#pragma omp single
    {
#pragma omp task depend(out : x)
      strcat(chain, "a");
#pragma omp task depend(inout : x)
      strcat(chain, "b");
#pragma omp task depend(inout : x)
      strcat(chain, "c");
#pragma omp task depend(in : x)
      strcat(chain, "d");
    }
  }
  printf("depend chain: %s\n", chain);
  CHECK(strcmp(chain, "abcd") == 0);

  int single_runs = 0, master_thread = -1, master_runs = 0;
#pragma omp parallel
  {
#pragma omp single
    ++single_runs;  // one thread; the implied barrier ends it
#pragma omp master
    {
      ++master_runs;
      master_thread = omp_get_thread_num();
    }
  }
  printf("single ran %d time(s); master ran %d time(s) on thread %d\n", single_runs, master_runs,
         master_thread);
  CHECK(single_runs == 1 && master_runs == 1 && master_thread == 0);

  long critical_sum = 0, named_sum = 0;
  int threads_seen = 0;
#pragma omp parallel
  {
    for (int i = 0; i < 200; ++i) {
#pragma omp critical
      critical_sum += i;
#pragma omp critical(other)
      named_sum += 2;
    }
#pragma omp critical
    ++threads_seen;
  }
  printf("critical: sum %ld (per thread %d), named %ld\n", critical_sum, 199 * 100,
         named_sum / threads_seen);
  CHECK(critical_sum == (long)threads_seen * 19900 && named_sum == (long)threads_seen * 400 &&
        threads_seen == team);

  long counter = 0, captured_max = 0, written = 0;
#pragma omp parallel
  {
    for (int i = 0; i < 500; ++i) {
      long mine;
#pragma omp atomic capture
      mine = ++counter;
      if (mine > captured_max) {
#pragma omp critical
        if (mine > captured_max) captured_max = mine;
      }
    }
#pragma omp atomic write
    written = 42;
  }
  long read_back;
#pragma omp atomic read
  read_back = written;
  printf("atomic: per thread %ld, largest captured equals the total: %d, written %ld\n",
         counter / team, captured_max == counter, read_back);
  CHECK(counter == 500L * team && captured_max == counter && read_back == 42);

  static int phase_a[kSlots], phase_b[kSlots];
  int barrier_ok = 1;
#pragma omp parallel reduction(&& : barrier_ok)
  {
    int n = omp_get_num_threads(), t = omp_get_thread_num();
    for (int i = t; i < kSlots; i += n) phase_a[i] = i * 3;
#pragma omp barrier
    // After the barrier every thread's writes of phase a are visible.
    for (int i = t; i < kSlots; i += n) phase_b[i] = phase_a[kSlots - 1 - i] + 1;
#pragma omp barrier
    for (int i = 0; i < kSlots; ++i)
      barrier_ok = barrier_ok && phase_b[i] == (kSlots - 1 - i) * 3 + 1;
  }
  printf("barrier: phases separated: %d\n", barrier_ok);
  CHECK(barrier_ok);

  int section_runs[3] = {0, 0, 0};
#pragma omp parallel sections
  {
#pragma omp section
    ++section_runs[0];
#pragma omp section
    ++section_runs[1];
#pragma omp section
    ++section_runs[2];
  }
  printf("sections: %d %d %d\n", section_runs[0], section_runs[1], section_runs[2]);

  int inner_team = 0, inner_level = 0, inner_active = 0, nested = -1;
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    nested = omp_get_max_active_levels() > 1;
#pragma omp parallel num_threads(4)
    {
#pragma omp master
      {
#pragma omp critical
        {
          inner_team = omp_get_num_threads();
          inner_level = omp_get_level();
          inner_active = omp_get_active_level();
        }
      }
    }
  }
  printf(
      "nested parallelism off: inner team %d, level %d, active level %d, max active levels > 1: "
      "%d\n",
      inner_team, inner_level, inner_active, nested);
  CHECK(inner_team == 1 && inner_level == 2 && inner_active == 1 && nested == 0);
  return 0;
}
