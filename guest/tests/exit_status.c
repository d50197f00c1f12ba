// Exit statuses: the status given as argv[1] leaves the program, through the path given as
// argv[2]: "return" from main, "exit" (runs atexit handlers and flushes stdio), or "_exit"
// (skips both, so buffered output is lost and the handler's line never appears). Only the low
// 8 bits of the status reach the parent.
#include <string.h>
#include <unistd.h>

#include "common.h"

static void handler(void) {
  printf("atexit handler ran\n");
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: exit_status STATUS return|exit|_exit\n");
    return 2;
  }
  int status = atoi(argv[1]);
  CHECK(atexit(handler) == 0);
  printf("exiting with %d via %s\n", status, argv[2]);
  if (strcmp(argv[2], "_exit") == 0) {
    fflush(stdout);
    printf("this buffered line is lost by _exit\n");
    _exit(status);
  }
  if (strcmp(argv[2], "exit") == 0) exit(status);
  return status;
}
