// Reading stdin: the bytes the runner feeds (text with long lines, blank lines, a final line
// without a newline, and bytes >= 0x80) are counted and digested with read(2) chunks through
// stdio (fgets, getc/ungetc, scanf on the numbers line), then EOF is seen, and seen again.
#include <string.h>
#include <unistd.h>

#include "common.h"

int main(void) {
  // First line via scanf: "COUNT n1 n2 ... nCOUNT".
  int count = 0;
  CHECK(scanf("%d", &count) == 1);
  long sum = 0;
  for (int i = 0; i < count; ++i) {
    long v = 0;
    CHECK(scanf("%ld", &v) == 1);
    sum += v;
  }
  printf("numbers: count=%d sum=%ld\n", count, sum);
  int c = getc(stdin);
  CHECK(c == '\n');
  c = getc(stdin);
  CHECK(ungetc(c, stdin) == c);
  printf("peeked first char of the text: %c\n", c);

  // The rest, line by line with fgets (lines longer than the buffer come in pieces).
  char buf[64];
  long lines = 0, pieces = 0, bytes = 0, high = 0;
  uint64_t digest = 0xcbf29ce484222325ULL;
  while (fgets(buf, sizeof buf, stdin) != NULL) {
    size_t len = strlen(buf);
    ++pieces;
    if (len > 0 && buf[len - 1] == '\n') ++lines;
    bytes += (long)len;
    for (size_t i = 0; i < len; ++i) {
      if ((unsigned char)buf[i] >= 0x80) ++high;
      digest = (digest ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
    }
    if (pieces <= 3) printf("piece %ld: [%.*s]\n", pieces, (int)strcspn(buf, "\n"), buf);
  }
  CHECK(feof(stdin) && !ferror(stdin));
  printf("text: lines=%ld pieces=%ld bytes=%ld high=%ld digest=%016llx\n", lines, pieces, bytes,
         high, (unsigned long long)digest);
  // At EOF, read(2) keeps returning 0.
  char x;
  printf("read at EOF: %zd %zd\n", read(0, &x, 1), read(0, &x, 1));
  return 0;
}
