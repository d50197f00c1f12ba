// setjmp/longjmp: jumps out of nested calls (callee-saved registers and the stack pointer
// restored; volatile locals keep their updated values), longjmp with value 0 delivering 1,
// repeated jumps to the same buffer in a loop, a jump chain across several buffers, and
// sigsetjmp/siglongjmp restoring the signal mask.
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "common.h"

static jmp_buf env;
static jmp_buf env2;
static int depth_reached;

static void recurse_then_jump(int depth, int jump_at) {
  volatile char pad[64];  // give every frame some stack to unwind past
  memset((char*)pad, depth, sizeof pad);
  depth_reached = depth;
  if (depth >= jump_at) longjmp(env, depth * 10 + pad[5] % 3);
  if (depth < 100000) recurse_then_jump(depth + 1, jump_at);
  pad[0]++;
}

static void jump_with_zero(void) {
  longjmp(env, 0);
}

static void second_level(void) {
  longjmp(env2, 2);
}

static double fp_saved(void) {
  // Callee-saved FP registers must be restored too: keep values live across setjmp.
  register double a = 1.5, b = -2.25;
  volatile int round = 0;
  if (setjmp(env) != 0) return a * b + round;
  round = 3;
  __asm__ volatile("fmv.d.x fs0, zero\n fmv.d.x fs1, zero" ::: "fs0", "fs1");
  longjmp(env, 1);
}

static void jump_out_of_recursion(int jump_at) {
  volatile int local = 100;
  int r = setjmp(env);
  if (r == 0) {
    local = 200;  // modified after setjmp: only a volatile keeps this value
    recurse_then_jump(1, jump_at);
    printf("not reached\n");
  } else {
    printf("jump_at=%d returned %d depth=%d local=%d\n", jump_at, r, depth_reached, local);
  }
}

static void zero_becomes_one(void) {
  int r = setjmp(env);
  if (r == 0) jump_with_zero();
  printf("longjmp(env, 0) makes setjmp return %d\n", r);
}

static void loop_by_jumping(void) {
  volatile int iterations = 0;
  volatile int r = setjmp(env);
  if (iterations < 5) {
    ++iterations;
    longjmp(env, iterations);
  }
  printf("loop via longjmp: iterations=%d last r=%d\n", iterations, r);
}

static void jump_over_inner_buffer(void) {
  volatile int r = setjmp(env2);
  if (r == 0) {
    if (setjmp(env) == 0) second_level();
    printf("not reached either\n");
  }
  printf("jumped over an inner buffer to the outer: %d\n", r);
}

static void signal_mask_restored(void) {
  // sigsetjmp with savemask=1 restores the mask that was current at sigsetjmp time.
  sigjmp_buf senv;
  sigset_t block, cur, none;
  sigemptyset(&block);
  sigemptyset(&none);
  sigaddset(&block, SIGUSR1);
  CHECK(sigprocmask(SIG_SETMASK, &none, NULL) == 0);
  if (sigsetjmp(senv, 1) == 0) {
    CHECK(sigprocmask(SIG_BLOCK, &block, NULL) == 0);
    CHECK(sigprocmask(SIG_SETMASK, NULL, &cur) == 0);
    printf("inside: SIGUSR1 blocked=%d\n", sigismember(&cur, SIGUSR1));
    siglongjmp(senv, 1);
  }
  CHECK(sigprocmask(SIG_SETMASK, NULL, &cur) == 0);
  printf("after siglongjmp: SIGUSR1 blocked=%d\n", sigismember(&cur, SIGUSR1));
}

int main(void) {
  for (int jump_at = 1; jump_at <= 1000; jump_at *= 10) jump_out_of_recursion(jump_at);
  zero_becomes_one();
  loop_by_jumping();
  jump_over_inner_buffer();
  printf("fp registers: %g\n", fp_saved());
  signal_mask_restored();
  return 0;
}
