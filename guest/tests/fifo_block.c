// Waits on the host for good: `fifo_block open FIFO` opens the FIFO for reading, which waits
// for a writer; `fifo_block read FIFO` opens it for reading and writing (which does not wait)
// and reads, which waits for data. Nothing ever comes: the interrupt tests (tests/tools) stop
// hpmsim while it waits.
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const int read_mode = strcmp(argv[1], "read") == 0;
  const int fd = open(argv[2], read_mode ? O_RDWR : O_RDONLY);
  if (fd < 0) return 3;
  char c;
  return read(fd, &c, 1) == 1 ? 0 : 4;
}
