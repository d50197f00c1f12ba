/* tm/tm.h: transactions over BG/Q's L2 speculation (libtm), in the manner of the runtime behind
 * IBM XL's `#pragma tm_atomic` on Blue Gene/Q (Wang et al., PACT 2012): a transaction runs
 * speculatively; when it rolls back it is retried, and after TM_MAX_NUM_ROLLBACK rollbacks, or
 * when it makes a system call, it runs irrevocably, holding the one lock every speculative
 * transaction reads (so taking it rolls them back). Without the device (/dev/hpm/tm: the
 * functional mode, qemu-user) every transaction runs irrevocably under that lock, so a
 * program's results are the same everywhere. Nested transactions are flattened into the
 * outermost. */
#ifndef TM_TM_H
#define TM_TM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void tm_atomic_begin(void);
void tm_atomic_end(void);
/* Whether transactions run speculatively here (the device is present). */
int tm_speculative(void);

/* The calling thread's counts (after BG/Q's TmReport_t of tm_get_stats). */
typedef struct {
  uint64_t totalTransactions;    /* outermost transactions run */
  uint64_t totalRollbacks;       /* rollbacks (each attempt that did not commit) */
  uint64_t totalSerializedJMV;   /* run irrevocably after a system call in the transaction */
  uint64_t totalSerializedMAXRB; /* run irrevocably after TM_MAX_NUM_ROLLBACK rollbacks */
  uint64_t totalSerializedOTHER; /* run irrevocably because there is no device */
} TmReport_t;
void tm_get_stats(TmReport_t* report);

#ifdef __cplusplus
}
#endif

#endif
