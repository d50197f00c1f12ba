/* papi_hpmsim.h: what libpapi offers beyond PAPI 7 on an hpmsim node (docs/papi.md). */
#ifndef PAPI_HPMSIM_H
#define PAPI_HPMSIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* How many times the event set's BGPM event set was deleted and rebuilt by seed 001's
 * work-arounds (overflow on an applied set, multiplexing a non-empty set, events added or
 * removed), or -1 for no such event set. */
int papix_rebuilds(int EventSet);

#ifdef __cplusplus
}
#endif

#endif
