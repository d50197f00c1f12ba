/* l1p/sprefetch.h: the L1P stream prefetcher's policy and depths from guest code, with the calls
 * of BG/Q's SPI (spi/include/l1p/sprefetch.h; docs/timing.md "The stream prefetcher"), over the
 * register L1P_CFG_PF_USR of hpmsim's device /dev/hpm/l1p (hpm/l1p.h). Link with -ll1p.
 *
 *   L1P_SetStreamPolicy(L1P_stream_optimistic);   every miss establishes a stream
 *   L1P_SetStreamDepth(4);                        a new stream runs 4 lines ahead (1 to 8)
 *   L1P_SetStreamTotalDepth(12);                  the adaptation's budget of lines (1 to 16)
 *   L1P_SetStreamAdaptiveMode(1);                 late hits deepen their streams
 *
 * The register is the core's: every hardware thread of the core sees the same one. As on BG/Q, a
 * value out of range returns L1P_PARMRANGE and changes nothing. Where there is no such device
 * (hpmsim's functional mode, qemu-user, a real machine), every call does nothing and returns
 * L1P_NOTAVAILABLE. L1P_confirmed_or_dcbt reads back as set, but behaves as L1P_stream_confirmed:
 * RV64GC has no dcbt. */
#ifndef HPM_L1P_SPREFETCH_H
#define HPM_L1P_SPREFETCH_H

#include <stdint.h>

#include "l1p/pprefetch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* BG/Q's values. */
typedef enum {
  L1P_stream_optimistic = 1,
  L1P_stream_confirmed,
  L1P_confirmed_or_dcbt,
  L1P_stream_disable
} L1P_StreamPolicy_t;

#define L1P_PARMRANGE (-1005) /* a parameter out of its range */

int L1P_GetStreamPolicy(L1P_StreamPolicy_t* policy);
int L1P_SetStreamPolicy(L1P_StreamPolicy_t policy);
/* The depth a stream is established with, 1 to 8 lines. */
int L1P_GetStreamDepth(uint32_t* depth);
int L1P_SetStreamDepth(uint32_t depth);
/* The lines the stream prefetcher's adaptation may use in all, 1 to 16. */
int L1P_GetStreamTotalDepth(uint32_t* depth);
int L1P_SetStreamTotalDepth(uint32_t depth);
/* Depth adaptation on (1) or off (0). */
int L1P_GetStreamAdaptiveMode(int* adaptiveState);
int L1P_SetStreamAdaptiveMode(int enable);

#ifdef __cplusplus
}
#endif

#endif
