/* l1p/pprefetch.h: the L1P list ("perfect") prefetcher from guest code, with the calls of BG/Q's
 * SPI (spi/include/l1p/pprefetch.h; docs/papi.md "The L1P list prefetcher"), over hpmsim's
 * device /dev/hpm/l1p (hpm/l1p.h). Link with -ll1p.
 *
 *   L1P_PatternConfigure(n);            lists for up to n L1 misses (two lists of 4n bytes)
 *   for (;;) {
 *     L1P_PatternStart(1);              replay the last recorded list, record a new one
 *     ... the region ...
 *     L1P_PatternStop();                the new list becomes the one replayed next
 *   }
 *   L1P_PatternUnconfigure();
 *
 * L1P_PatternStart(0) replays without recording (the list stays). Each thread has its own
 * context, and uses the list prefetcher of the hardware thread it runs on: a thread that uses it
 * should stay on one hardware thread (sched_setaffinity), as CNK kept threads on BG/Q.
 *
 * Where there is no such device (hpmsim's functional mode, qemu-user, a real machine), every
 * call does nothing and returns L1P_NOTAVAILABLE (L1P_PatternConfigure) or L1P_NOTCONFIGURED:
 * a program that checks nothing runs unchanged. */
#ifndef HPM_L1P_PPREFETCH_H
#define HPM_L1P_PPREFETCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes (0: success). */
#define L1P_NOTCONFIGURED (-1001) /* no L1P_PatternConfigure before (or it failed) */
#define L1P_NOTAVAILABLE (-1002)  /* the machine has no list prefetcher device */
#define L1P_NOMEMORY (-1003)      /* the lists could not be allocated */
#define L1P_ALREADYCONFIGURED (-1004)

/* The status of the thread's list prefetcher (L1P_PatternStatus). */
typedef union {
  uint64_t status;
  struct {
    uint64_t finished : 1;  /* the last run stopped */
    uint64_t abandoned : 1; /* more consecutive mismatches than the abandon threshold */
    uint64_t maximum : 1;   /* the recording filled the list */
    uint64_t endoflist : 1; /* the replay reached the end of the list */
    uint64_t reserved : 60;
  } s;
} L1P_Status_t;

int L1P_PatternConfigure(uint64_t n);
int L1P_PatternUnconfigure(void);
int L1P_PatternStart(int record);
int L1P_PatternStop(void);
int L1P_PatternPause(void);
int L1P_PatternResume(void);
int L1P_PatternStatus(L1P_Status_t* status);
/* Entries of the replayed list passed, and entries recorded, so far. */
int L1P_PatternGetCurrentDepth(uint64_t* fetch_depth, uint64_t* generate_depth);
int L1P_PatternSetAbandonThreshold(uint64_t numL1misses);
int L1P_PatternGetAbandonThreshold(uint64_t* numL1misses);
/* Lines prefetched ahead of the list's position (1 to 15; hpmsim's own call). */
int L1P_PatternSetDepth(unsigned depth);

#ifdef __cplusplus
}
#endif

#endif
