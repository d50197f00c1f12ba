/* bgpm.h: Blue Gene/Q's Performance Monitoring API (BGPM) on an hpmsim bgq node (library
 * libbgpm; docs/papi.md "BGPM").
 *
 * The calls, names, constants and error codes are BGPM's (IBM's bgpm/include/{types,err,funcs}.h
 * give them); the event ids are those of `hpmsim events --machine bgq` (PEVT_..., generated into
 * bgpm_events.h). The library drives the units through their register windows only (libhpmctr:
 * /dev/hpm/punit<k>, l2, io, cnk). The rules seed 001 works around are kept:
 *   - an event set is frozen once applied: adding events or setting overflow then fails with
 *     BGPM_EES_FROZEN (delete and rebuild it);
 *   - multiplexing can be enabled only on an empty event set (BGPM_ENOT_EMPTY);
 *   - Bgpm_SetOverflow takes the threshold programmed into the counter, as in seed 001's BGPM: a
 *     counter that starts at `threshold` and interrupts when it wraps past 2^64, i.e. every
 *     2^64 - threshold events (BGPM_PERIOD2THRES converts a period);
 *   - by default an error prints a message and exits the process (Bgpm_ExitOnError,
 *     Bgpm_PrintOnError turn that off per thread).
 * Mode: BGPM_MODE_SWDISTRIB (software-thread perspective) is the one implemented; the other
 * modes are refused with BGPM_ENOTIMPL.
 *
 * Typical use (error checks left out):
 *   Bgpm_Init(BGPM_MODE_SWDISTRIB);
 *   int set = Bgpm_CreateEventSet();
 *   Bgpm_AddEvent(set, PEVT_INST_ALL);
 *   Bgpm_Apply(set);  Bgpm_Start(set);  work();  Bgpm_Stop(set);
 *   uint64_t n;  Bgpm_ReadEvent(set, 0, &n);
 */
#ifndef BGPM_H
#define BGPM_H

#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

#include "bgpm_events.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BGPM_TRUE (1)
#define BGPM_FALSE (0)

/* ---- error codes (BGPM's err.h): 0 success, negative errors, positive warnings ---- */
#define BGPM_EOK (0)
#define BGPM_EINTERNAL (-1000)
#define BGPM_ENOTIMPL (-1001)
#define BGPM_EINV_EVENT (-1002)
#define BGPM_EINV_PARM (-1003)
#define BGPM_ENOT_INIT (-1004)
#define BGPM_ERESERVED (-1005)
#define BGPM_ESIGRESERVED (-1006)
#define BGPM_ECTRRESERVED (-1007)
#define BGPM_EL1PMODERESERVED (-1008)
#define BGPM_ETHRDCORE_MISMATCH (-1009)
#define BGPM_ESYSCALL_DATASIZE (-1010)
#define BGPM_ESYSCALL_NOTIMPL (-1011)
#define BGPM_ESYSCALL_INVALID (-1012)
#define BGPM_ESYSCALL_RETRY (-1013)
#define BGPM_EMODE_MISMATCH (-1014)
#define BGPM_EMODE_MISMATCH_UNIT (-1015)
#define BGPM_EINV_EVT_IDX (-1016)
#define BGPM_EINV_OVF (-1017)
#define BGPM_ERESERVED1 (-1018)
#define BGPM_EINV_OPCTRMODE (-1019)
#define BGPM_EINV_UKVER_MISMATCH (-1020)
#define BGPM_ETHD_CTRS_RSV (-1021)
#define BGPM_ECSEVT_REQALLTHDS (-1022)
#define BGPM_MIN_ERRNO (-2000)
#define BGPM_EINITED (-2000)
#define BGPM_EHWINITED (-2001)
#define BGPM_ECONF_MODE (-2002)
#define BGPM_ENOMEM (-2003)
#define BGPM_EINV_SET_HANDLE (-2004)
#define BGPM_EEVT_SET_UNASSIGNED (-2005)
#define BGPM_ECONF_UNIT (-2006)
#define BGPM_EXHAUSTED (-2007)
#define BGPM_EINV_ATTRIB (-2008)
#define BGPM_EINV_ATTRIB_VAL (-2009)
#define BGPM_EUNSUP_ATTRIB (-2010)
#define BGPM_EUNSUP_OVERFLOW (-2011)
#define BGPM_ENO_OVERFLOW (-2012)
#define BGPM_EARRAY_TOO_SMALL (-2013)
#define BGPM_ENOT_MUXED (-2014)
#define BGPM_ECONF_L2_COMBINE (-2015)
#define BGPM_ENO_CONFIG (-2016)
#define BGPM_ENOT_MASK_EVENT (-2017)
#define BGPM_ENOT_QFPU_INST_EVENT (-2018)
#define BGPM_ENOT_EMPTY (-2019)
#define BGPM_EUNREC_EVTID (-2020)
#define BGPM_EINV_OP (-2021)
#define BGPM_ESHM_OPEN_ERR (-2022)
#define BGPM_ESWTHD_MOVED (-2023)
#define BGPM_ENOT_APPLIED (-2024)
#define BGPM_EINV_L2_SLICE (-2025)
#define BGPM_ETHD_COUNTS_RSV (-2026)
#define BGPM_EINV_SUBNODE (-2027)
#define BGPM_EPRERSV_EXISTS (-2028)
#define BGPM_ECTX_MISMATCH (-2029)
#define BGPM_EEVT_CTX_MISMATCH (-2030)
#define BGPM_EES_FROZEN (-2031)
#define BGPM_EQFPU_RSV_MISMATCH (-2032)
#define BGPM_EXU_RSV_MISMATCH (-2033)
#define BGPM_ESQRT_SCALE_MISMATCH (-2034)
#define BGPM_EDIV_SCALE_MISMATCH (-2035)
#define BGPM_ETHRES_MISMATCH (-2036)
#define BGPM_ENOT_CONTROL_THREAD (-2037)
#define BGPM_EUPDATE_DISALLOWED (-2038)
#define BGPM_EMAX_EVTSETS (-2039)
#define BGPM_ECTRS_IN_USE (-2040)
#define BGPM_ELINK_CTRS_INCOMPAT (-2041)
#define BGPM_ELONGDESC_CORRUPT (-2042)
#define BGPM_EINV_WRT2OVF (-2043)
#define BGPM_MAX_ERRNO (-2043)
#define BGPM_MIN_WARNING_NO (3000)
#define BGPM_WALREADY_ATTACHED (3000)
#define BGPM_WNOT_ATTACHED (3001)
#define BGPM_WALREADY_STARTED (3002)
#define BGPM_WALREADY_STOPPED (3003)
#define BGPM_WEVTSET_STILL_USED (3004)
#define BGPM_WNOT_LINK_CTL (3005)
#define BGPM_MAX_WARNING_NO (3005)

/* ---- types (BGPM's types.h) ---- */
typedef enum eBgpm_Modes {
  BGPM_MODE_DEFAULT = 0, /* BGPM_MODE from the environment, else SWDISTRIB */
  BGPM_MODE_LLDISTRIB = 1,
  BGPM_MODE_SWDISTRIB = 2,
  BGPM_MODE_HWDISTRIB = 3,
  BGPM_MAX_MODES = 4
} Bgpm_Modes;

/* Events per multiplexing group (Bgpm_SetMultiplex2); Bgpm_SetMultiplex uses the minimum. */
typedef enum eRsvMuxCtrs {
  BGPMMuxMinEvts = 5,
  BGPMMuxMedEvts = 11,
  BGPMMuxMaxEvts = 23
} RsvMuxCtrs;

typedef enum eBgpm_Context {
  BGPM_CTX_DEFAULT = 0,
  BGPM_CTX_KERNEL = 1,
  BGPM_CTX_USER = 2,
  BGPM_CTX_BOTH = 3,
} Bgpm_Context;

typedef enum eBgpmUnitTypes {
  BGPMUnitType_UNDEF = 0,
  BGPMUnitType_PUNIT = 1,
  BGPMUnitType_L2 = 2,
  BGPMUnitType_IO = 3,
  BGPMUnitType_NW = 4,
  BGPMUnitType_CNK = 5
} BgpmUnitTypes;

/* An event's scope (BGPM's UPC_EventScope_t, reduced to what hpmsim's catalogue says). */
typedef enum eUPC_EventScope {
  UPC_SCOPE_UNDEF = 0,
  UPC_SCOPE_THREAD = 1, /* one hardware thread's */
  UPC_SCOPE_CORE = 2,   /* the core's, whichever thread */
  UPC_SCOPE_NODE = 3,   /* a node-wide unit's */
} UPC_EventScope_t;
typedef int UPC_EventSources_t;
typedef int UPC_EventMetric_t;

typedef struct sEventInfo {
  unsigned evtId;
  const char* label;
  const char* desc;
  BgpmUnitTypes unitType;
  UPC_EventSources_t srcType; /* 0: hpmsim keeps no sub-unit source */
  UPC_EventScope_t scope;
  UPC_EventMetric_t metric; /* 0: event count */
  unsigned short edge;
  unsigned short inverted;
  uint32_t selVal; /* the unit's input the event selects (thread 0's, for thread events) */
} Bgpm_EventInfo_t;

typedef struct sMuxStats {
  int active;
  uint64_t period;
  int normalize;
  unsigned numGrps;
  unsigned maxEvtsPerGrp;
  unsigned numSwitches;
  uint64_t elapsedCycles;
} Bgpm_MuxStats_t;

/* Called from BGPM's signal handler: the event set, the interrupted pc, the opaque vector of the
 * overflowed events (Bgpm_GetOverflowEventIndices) and the signal's context. */
typedef void (*Bgpm_OverflowHandler_t)(int hEvtSet, uint64_t address, uint64_t ovfVector,
                                       const ucontext_t* pContext);

#define BGPM_NORMAL 1
#define BGPM_NOTNORMAL 0
/* Seed 001's BGPM: the threshold programmed into a counter to interrupt every `period` events. */
#define BGPM_PERIOD2THRES(_period_) ((uint64_t)0 - (uint64_t)(_period_))
#define BGPM_MAX_OVERFLOW_EVENTS 24

/* ---- initialisation ---- */
int Bgpm_Init(Bgpm_Modes mode);
int Bgpm_Disable(void);
unsigned short Bgpm_PrintOnError(unsigned short val);
unsigned short Bgpm_ExitOnError(unsigned short val);
int Bgpm_LastErr(void);
const char* Bgpm_LastErrStrg(void);
const char* Bgpm_ErrStrg(int errnum);

/* ---- event sets ---- */
int Bgpm_CreateEventSet(void);
int Bgpm_DeleteEventSet(unsigned hEvtSet);
int Bgpm_AddEvent(unsigned hEvtSet, unsigned eventId);
int Bgpm_AddEventList(unsigned hEvtSet, unsigned* eventIds, unsigned num);
int Bgpm_NumEvents(unsigned hEvtSet);
int Bgpm_NumTargets(unsigned hEvtSet);
int Bgpm_GetUnitType(unsigned hEvtSet);
int Bgpm_IsController(unsigned hEvtSet);

/* ---- event information ---- */
const char* Bgpm_GetEventLabel(unsigned hEvtSet, unsigned evtIdx);
const char* Bgpm_GetEventIdLabel(unsigned evtId);
int Bgpm_GetEventId(unsigned hEvtSet, unsigned evtIdx);
int Bgpm_GetEventIdFromLabel(const char* evtLabel);
int Bgpm_GetEventIndex(unsigned hEvtSet, unsigned evtId, unsigned startIdx);
int Bgpm_GetEventIdInfo(unsigned evtId, Bgpm_EventInfo_t* pInfo);
int Bgpm_GetLongDesc(unsigned evtId, char* pBuff, int* pLen);

/* ---- attributes ---- */
int Bgpm_SetContext(unsigned hEvtSet, Bgpm_Context context);
int Bgpm_GetContext(unsigned hEvtSet, Bgpm_Context* pContext);
int Bgpm_GetL2Combine(unsigned hEvtSet, int* pEnable);

/* ---- overflow ---- */
int Bgpm_SetOverflow(unsigned hEvtSet, unsigned evtIdx, uint64_t threshold);
int Bgpm_SetOverflowHandler(unsigned hEvtSet, Bgpm_OverflowHandler_t handler);
int Bgpm_GetOverflow(unsigned hEvtSet, unsigned evtIdx, uint64_t* pThreshold,
                     Bgpm_OverflowHandler_t* pHandler);
int Bgpm_GetOverflowEventIndices(unsigned hEvtSet, uint64_t ovfVector, unsigned* pIndicies,
                                 unsigned* pLen);

/* ---- multiplexing (PUnit event sets) ---- */
int Bgpm_SetMultiplex(unsigned hEvtSet, uint64_t period, int normalize);
int Bgpm_SetMultiplex2(unsigned hEvtSet, uint64_t period, int normalize,
                       RsvMuxCtrs maxEventsPerGroup);
int Bgpm_GetMultiplex(unsigned hEvtSet, Bgpm_MuxStats_t* pMuxStats);
int Bgpm_SwitchMux(unsigned hEvtSet);
int Bgpm_GetMuxGroups(unsigned hEvtSet);
uint64_t Bgpm_GetMuxElapsedCycles(unsigned hEvtSet, unsigned muxGrpNum);
uint64_t Bgpm_GetMuxEventElapsedCycles(unsigned hEvtSet, unsigned evtIdx);

/* ---- hpmsim's extension (not BGPM's): multiplexing on the node-wide units ----
 * BGPM multiplexes PUnit event sets only; PAPI multiplexes the other units' sets itself. libpapi
 * does it with this call: an empty set becomes multiplexed whatever unit its events turn out to
 * be on (L2 combined, I/O, CNK, or the PUnit), in groups of as many events as the unit has
 * counters, switched every `period` cycles of the calling thread (a hidden cycle counter on its
 * core's PUnit, as BGPM's multiplexing has), counts not normalized. Errors as
 * Bgpm_SetMultiplex's. */
int Bgpm_HpmSetNodeMultiplex(unsigned hEvtSet, uint64_t period);

/* ---- hpmsim's extension (not BGPM's): the simulator's run modes ----
 * Which events count depends on how hpmsim runs the program (`hpmsim run --mode`; each event's
 * modes: `hpmsim events`): the warm-up mode models the caches but no pipeline, so its events of
 * fetch, branch prediction, issue, stalls and translation do not count there; the functional mode
 * has no memory system either: instructions (by class and operation), cycles and the kernel's
 * events count there, no cache event. Bgpm_AddEvent(List) refuses an event this run's mode does not
 * count with BGPM_ENOT_IN_RUN_MODE (rather than count it as 0), and this call asks: 1 if the event
 * counts in this run's mode (or the mode is unknown: not on hpmsim), 0 if not, BGPM_EINV_EVENT if
 * there is no such event. */
#define BGPM_ENOT_IN_RUN_MODE (-2900)
int Bgpm_HpmEventCountsInRunMode(unsigned evtId);

/* ---- counting ---- */
int Bgpm_Apply(unsigned hEvtSet);
int Bgpm_Attach(unsigned hEvtSet, uint64_t targMask, uint64_t agentMask);
int Bgpm_Detach(unsigned hEvtSet);
int Bgpm_Start(unsigned hEvtSet);
int Bgpm_Stop(unsigned hEvtSet);
int Bgpm_Reset(unsigned hEvtSet);
int Bgpm_ResetStart(unsigned hEvtSet);
int Bgpm_ReadEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t* pValue);
int Bgpm_ReadEventList(unsigned hEvtSet, uint64_t* pValues, unsigned* pLen);
int Bgpm_WriteEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t value);
int Bgpm_L2_ReadEvent(unsigned hEvtSet, unsigned slice, unsigned idx, uint64_t* pValue);

/* The network unit's links (BG/Q's numbering: link 2d is dimension d's minus link, 2d + 1 its
 * plus link, link 10 the I/O link): masks for Bgpm_Attach and Bgpm_NW_ReadLinkEvent. A network
 * event set counts the links it is attached to (none until Bgpm_Attach). */
#define UPC_NW_LINK_bit(b) (1 << (15 - (b)))
typedef enum {
  UPC_NW_ALL_LINKS = 0xFFE0,
  UPC_NW_ALL_TORUS_LINKS = 0xFFC0,
  UPC_NW_ALL_IO_LINK = 0x0020,
  UPC_NW_LINK_A = 0xC000,
  UPC_NW_LINK_A_MINUS = 0x8000,
  UPC_NW_LINK_A_PLUS = 0x4000,
  UPC_NW_LINK_B = 0x3000,
  UPC_NW_LINK_B_MINUS = 0x2000,
  UPC_NW_LINK_B_PLUS = 0x1000,
  UPC_NW_LINK_C = 0x0C00,
  UPC_NW_LINK_C_MINUS = 0x0800,
  UPC_NW_LINK_C_PLUS = 0x0400,
  UPC_NW_LINK_D = 0x0300,
  UPC_NW_LINK_D_MINUS = 0x0200,
  UPC_NW_LINK_D_PLUS = 0x0100,
  UPC_NW_LINK_E = 0x00C0,
  UPC_NW_LINK_E_MINUS = 0x0080,
  UPC_NW_LINK_E_PLUS = 0x0040,
} UPC_NW_LinkMasks;
/* An event of a network set summed over the links of `linkMask` (attached or not). */
int Bgpm_NW_ReadLinkEvent(unsigned hEvtSet, unsigned evtIdx, UPC_NW_LinkMasks linkMask,
                          uint64_t* pValue);
int Bgpm_CNK_SampleEvent(unsigned hEvtSet, unsigned evtIdx, uint64_t* pValue);

#ifdef __cplusplus
}
#endif

#endif
