/* The bench module's native driver (src/driver.c times a single call and
 * prints nine decimals): run as
 *
 *     PROGRAM N REPS
 *
 * it calls run(N) REPS times, timing each call with
 * clock_gettime(CLOCK_MONOTONIC), fails with status 3 when a call's result
 * differs from the first call's, and prints "bits 0x... ns T": the bits of
 * the result (an f64's IEEE-754 bits when built with -DRET_DOUBLE, an
 * integer's two's complement bits otherwise) and the total nanoseconds of
 * the calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef RET_DOUBLE
typedef double result;
#else
typedef long long result;
#endif
result run(int n);

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s N REPS\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]);
  long reps = atol(argv[2]);
  unsigned long long first = 0;
  long long total = 0;
  for (long i = 0; i < reps; i++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    result r = run(n);
    clock_gettime(CLOCK_MONOTONIC, &b);
    total += (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
    unsigned long long bits;
    memcpy(&bits, &r, sizeof bits);
    if (i == 0) {
      first = bits;
    } else if (bits != first) {
      fprintf(stderr, "call %ld returned 0x%016llx, the first 0x%016llx\n", i + 1, bits, first);
      return 3;
    }
  }
  printf("bits 0x%016llx ns %lld\n", first, total);
  return 0;
}
