/* papi.h: hpmsim's PAPI 7-compatible interface for guest programs on the simulated node (library
 * libpapi, see docs/papi.md).
 *
 * The constants, types, structures and prototypes follow PAPI 7.0: the same names, values, field
 * types and field order, so a program written for PAPI compiles unchanged against this header and
 * links against libpapi. What the library supports (components, presets and their native
 * events, overflow, multiplexing, the high-level regions) and every deviation from PAPI's
 * behaviour are listed in docs/papi.md.
 *
 * Typical use (error checks left out):
 *   PAPI_library_init(PAPI_VER_CURRENT);
 *   int set = PAPI_NULL;
 *   PAPI_create_eventset(&set);
 *   PAPI_add_event(set, PAPI_TOT_INS);
 *   PAPI_start(set);  work();
 *   long long n;  PAPI_stop(set, &n);
 */
#ifndef PAPI_H
#define PAPI_H

#include <limits.h>
#include <signal.h>
#include <sys/types.h>

#include "papiStdEventDefs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version ----
 * A version is four bytes: major, minor, revision, increment. PAPI_library_init takes
 * PAPI_VER_CURRENT (major and minor only) and returns it when the library matches. */
#define PAPI_VERSION_NUMBER(maj, min, rev, inc) \
  (((maj) << 24) | ((min) << 16) | ((rev) << 8) | (inc))
#define PAPI_VERSION_MAJOR(x) (((x) >> 24) & 0xff)
#define PAPI_VERSION_MINOR(x) (((x) >> 16) & 0xff)
#define PAPI_VERSION_REVISION(x) (((x) >> 8) & 0xff)
#define PAPI_VERSION_INCREMENT(x) (0xff & (x))
#define PAPI_VERSION PAPI_VERSION_NUMBER(7, 0, 0, 0)
#define PAPI_VER_CURRENT (PAPI_VERSION & 0xffff0000)

/* ---- Event code classes (masks in papiStdEventDefs.h) ---- */
#define IS_NATIVE(EventCode) ((PAPI_NATIVE_MASK & (EventCode)) && !(PAPI_PRESET_MASK & (EventCode)))
#define IS_PRESET(EventCode) ((PAPI_PRESET_MASK & (EventCode)) && !(PAPI_NATIVE_MASK & (EventCode)))
#define IS_USER_DEFINED(EventCode) \
  ((PAPI_PRESET_MASK & (EventCode)) && (PAPI_NATIVE_MASK & (EventCode)))

/* ---- Return codes ----
 * Calls return PAPI_OK (or a count, >= 0) on success and one of these on failure;
 * PAPI_strerror gives the text. */
#define PAPI_OK 0
#define PAPI_EINVAL -1         /* an argument is invalid */
#define PAPI_ENOMEM -2         /* out of memory */
#define PAPI_ESYS -3           /* a system call failed (errno says why) */
#define PAPI_ECMP -4           /* the component cannot do this */
#define PAPI_ESBSTR -4         /* older name of PAPI_ECMP */
#define PAPI_ECLOST -5         /* the counters were lost or interrupted */
#define PAPI_EBUG -6           /* internal error in the library */
#define PAPI_ENOEVNT -7        /* no such event */
#define PAPI_ECNFLCT -8        /* the event exists but no counter is left for it */
#define PAPI_ENOTRUN -9        /* the event set is not counting */
#define PAPI_EISRUN -10        /* the event set is counting */
#define PAPI_ENOEVST -11       /* no such event set */
#define PAPI_ENOTPRESET -12    /* not a valid preset */
#define PAPI_ENOCNTR -13       /* no counter hardware */
#define PAPI_EMISC -14         /* other error */
#define PAPI_EPERM -15         /* not permitted */
#define PAPI_ENOINIT -16       /* the library is not initialised */
#define PAPI_ENOCMP -17        /* no component index set */
#define PAPI_ENOSUPP -18       /* not supported */
#define PAPI_ENOIMPL -19       /* not implemented */
#define PAPI_EBUF -20          /* buffer too small */
#define PAPI_EINVAL_DOM -21    /* the event set's domain does not allow this */
#define PAPI_EATTR -22         /* bad or missing event attribute */
#define PAPI_ECOUNT -23        /* too many events or attributes */
#define PAPI_ECOMBO -24        /* these features cannot be combined */
#define PAPI_ECMP_DISABLED -25 /* the event's component is disabled */
#define PAPI_EDELAY_INIT -26   /* the component initialises on first use */
#define PAPI_EMULPASS -27      /* the event needs more than one pass of the hardware */
#define PAPI_NUM_ERRORS 28     /* number of return codes above */

/* ---- Initialisation state, as returned by PAPI_is_initialized (bits) ---- */
#define PAPI_NOT_INITED 0
#define PAPI_LOW_LEVEL_INITED 1
#define PAPI_HIGH_LEVEL_INITED 2
#define PAPI_THREAD_LEVEL_INITED 4

/* An event set handle that names no event set: initialise handles with it. */
#define PAPI_NULL -1

/* ---- Counting domains (bits): which privilege levels an event set counts ---- */
#define PAPI_DOM_USER 0x1
#define PAPI_DOM_MIN PAPI_DOM_USER
#define PAPI_DOM_KERNEL 0x2
#define PAPI_DOM_OTHER 0x4
#define PAPI_DOM_SUPERVISOR 0x8
#define PAPI_DOM_ALL (PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_OTHER | PAPI_DOM_SUPERVISOR)
#define PAPI_DOM_MAX PAPI_DOM_ALL
#define PAPI_DOM_HWSPEC 0x80000000 /* low 31 bits are component-specific */

/* ---- Thread-specific storage tags (PAPI_get/set_thr_specific) ---- */
#define PAPI_USR1_TLS 0x0
#define PAPI_USR2_TLS 0x1
#define PAPI_TLS_HIGH_LEVEL 0x2
#define PAPI_NUM_TLS 0x3
#define PAPI_TLS_USR1 PAPI_USR1_TLS
#define PAPI_TLS_USR2 PAPI_USR2_TLS
#define PAPI_TLS_NUM PAPI_NUM_TLS
#define PAPI_TLS_ALL_THREADS 0x10

/* ---- User locks (PAPI_lock, PAPI_unlock) ---- */
#define PAPI_USR1_LOCK 0x0
#define PAPI_USR2_LOCK 0x1
#define PAPI_NUM_LOCK 0x2
#define PAPI_LOCK_USR1 PAPI_USR1_LOCK
#define PAPI_LOCK_USR2 PAPI_USR2_LOCK
#define PAPI_LOCK_NUM PAPI_NUM_LOCK

/* ---- CPU vendors (PAPI_hw_info_t.vendor); the ARM ones are implementer codes ---- */
#define PAPI_VENDOR_UNKNOWN 0
#define PAPI_VENDOR_INTEL 1
#define PAPI_VENDOR_AMD 2
#define PAPI_VENDOR_IBM 3
#define PAPI_VENDOR_CRAY 4
#define PAPI_VENDOR_SUN 5
#define PAPI_VENDOR_FREESCALE 6
#define PAPI_VENDOR_ARM 7
#define PAPI_VENDOR_MIPS 8
#define PAPI_VENDOR_ARM_ARM 0x41
#define PAPI_VENDOR_ARM_BROADCOM 0x42
#define PAPI_VENDOR_ARM_CAVIUM 0x43
#define PAPI_VENDOR_ARM_FUJITSU 0x46
#define PAPI_VENDOR_ARM_HISILICON 0x48
#define PAPI_VENDOR_ARM_APM 0x50
#define PAPI_VENDOR_ARM_QUALCOMM 0x51

/* ---- Granularities (bits): what an event set counts for ---- */
#define PAPI_GRN_THR 0x1 /* the calling thread */
#define PAPI_GRN_MIN PAPI_GRN_THR
#define PAPI_GRN_PROC 0x2     /* the process */
#define PAPI_GRN_PROCG 0x4    /* the process group */
#define PAPI_GRN_SYS 0x8      /* the current CPU */
#define PAPI_GRN_SYS_CPU 0x10 /* every CPU, separately */
#define PAPI_GRN_MAX PAPI_GRN_SYS_CPU

/* ---- Event set states (bits), as returned by PAPI_state ---- */
#define PAPI_STOPPED 0x01
#define PAPI_RUNNING 0x02
#define PAPI_PAUSED 0x04
#define PAPI_NOT_INIT 0x08
#define PAPI_OVERFLOWING 0x10
#define PAPI_PROFILING 0x20
#define PAPI_MULTIPLEXING 0x40
#define PAPI_ATTACHED 0x80
#define PAPI_CPU_ATTACHED 0x100

/* ---- Error reporting levels (PAPI_set_debug / PAPI_DEBUG option) ---- */
#define PAPI_QUIET 0      /* return the code only */
#define PAPI_VERB_ECONT 1 /* also print it to stderr */
#define PAPI_VERB_ESTOP 2 /* print it and exit */

/* ---- PAPI_profil / PAPI_sprofil flags ----
 * Sampling mode bits, then the bucket width (one of the BUCKET bits). */
#define PAPI_PROFIL_POSIX 0x0
#define PAPI_PROFIL_RANDOM 0x1
#define PAPI_PROFIL_WEIGHTED 0x2
#define PAPI_PROFIL_COMPRESS 0x4
#define PAPI_PROFIL_BUCKET_16 0x8
#define PAPI_PROFIL_BUCKET_32 0x10
#define PAPI_PROFIL_BUCKET_64 0x20
#define PAPI_PROFIL_FORCE_SW 0x40
#define PAPI_PROFIL_DATA_EAR 0x80
#define PAPI_PROFIL_INST_EAR 0x100
#define PAPI_PROFIL_BUCKETS (PAPI_PROFIL_BUCKET_16 | PAPI_PROFIL_BUCKET_32 | PAPI_PROFIL_BUCKET_64)

/* ---- PAPI_overflow flags ---- */
#define PAPI_OVERFLOW_FORCE_SW 0x40
#define PAPI_OVERFLOW_HARDWARE 0x80

/* ---- Multiplexing flags (PAPI_multiplex_option_t.flags) ---- */
#define PAPI_MULTIPLEX_DEFAULT 0x0
#define PAPI_MULTIPLEX_FORCE_SW 0x1

/* ---- Counter inheritance by child processes (PAPI_inherit_option_t.inherit) ---- */
#define PAPI_INHERIT_ALL 1
#define PAPI_INHERIT_NONE 0

/* ---- Option codes for PAPI_get_opt / PAPI_set_opt ---- */
#define PAPI_DETACH 1
#define PAPI_DEBUG 2
#define PAPI_MULTIPLEX 3
#define PAPI_DEFDOM 4
#define PAPI_DOMAIN 5
#define PAPI_DEFGRN 6
#define PAPI_GRANUL 7
#define PAPI_DEF_MPX_NS 8
#define PAPI_MAX_MPX_CTRS 11
#define PAPI_PROFIL 12
#define PAPI_PRELOAD 13
#define PAPI_CLOCKRATE 14
#define PAPI_MAX_HWCTRS 15
#define PAPI_HWINFO 16
#define PAPI_EXEINFO 17
#define PAPI_MAX_CPUS 18
#define PAPI_ATTACH 19
#define PAPI_SHLIBINFO 20
#define PAPI_LIB_VERSION 21
#define PAPI_COMPONENTINFO 22
#define PAPI_DATA_ADDRESS 23
#define PAPI_INSTR_ADDRESS 24
#define PAPI_DEF_ITIMER 25
#define PAPI_DEF_ITIMER_NS 26
#define PAPI_CPU_ATTACH 27
#define PAPI_INHERIT 28
#define PAPI_USER_EVENTS_FILE 29

/* Event sets the library allocates room for at start. */
#define PAPI_INIT_SLOTS 64

/* ---- String buffer lengths used by the structures below ---- */
#define PAPI_MIN_STR_LEN 64
#define PAPI_MAX_STR_LEN 128
#define PAPI_2MAX_STR_LEN 256
#define PAPI_HUGE_STR_LEN 1024

/* Most PMUs one component may name (PAPI_component_info_t.pmu_names). */
#define PAPI_PMU_MAX 80
/* Marks a preset computed from more than one native event. */
#define PAPI_DERIVED 0x1

/* ---- Enumeration modifiers for PAPI_enum_event / PAPI_enum_cmp_event ----
 * All events, the first one, available presets; then preset categories; then ways of walking a
 * native event's unit masks and groups. */
enum {
  PAPI_ENUM_EVENTS = 0,
  PAPI_ENUM_FIRST = 1,
  PAPI_PRESET_ENUM_AVAIL = 2,

  PAPI_PRESET_ENUM_MSC = 3,
  PAPI_PRESET_ENUM_INS = 4,
  PAPI_PRESET_ENUM_IDL = 5,
  PAPI_PRESET_ENUM_BR = 6,
  PAPI_PRESET_ENUM_CND = 7,
  PAPI_PRESET_ENUM_MEM = 8,
  PAPI_PRESET_ENUM_CACH = 9,
  PAPI_PRESET_ENUM_L1 = 10,
  PAPI_PRESET_ENUM_L2 = 11,
  PAPI_PRESET_ENUM_L3 = 12,
  PAPI_PRESET_ENUM_TLB = 13,
  PAPI_PRESET_ENUM_FP = 14,

  PAPI_NTV_ENUM_UMASKS = 15,
  PAPI_NTV_ENUM_UMASK_COMBOS = 16,
  PAPI_NTV_ENUM_IARR = 17,
  PAPI_NTV_ENUM_DARR = 18,
  PAPI_NTV_ENUM_OPCM = 19,
  PAPI_NTV_ENUM_IEAR = 20,
  PAPI_NTV_ENUM_DEAR = 21,
  PAPI_NTV_ENUM_GROUPS = 22
};

#define PAPI_ENUM_ALL PAPI_ENUM_EVENTS

/* Preset categories as bits (PAPI_event_info_t.event_type). */
#define PAPI_PRESET_BIT_MSC (1 << PAPI_PRESET_ENUM_MSC)
#define PAPI_PRESET_BIT_INS (1 << PAPI_PRESET_ENUM_INS)
#define PAPI_PRESET_BIT_IDL (1 << PAPI_PRESET_ENUM_IDL)
#define PAPI_PRESET_BIT_BR (1 << PAPI_PRESET_ENUM_BR)
#define PAPI_PRESET_BIT_CND (1 << PAPI_PRESET_ENUM_CND)
#define PAPI_PRESET_BIT_MEM (1 << PAPI_PRESET_ENUM_MEM)
#define PAPI_PRESET_BIT_CACH (1 << PAPI_PRESET_ENUM_CACH)
#define PAPI_PRESET_BIT_L1 (1 << PAPI_PRESET_ENUM_L1)
#define PAPI_PRESET_BIT_L2 (1 << PAPI_PRESET_ENUM_L2)
#define PAPI_PRESET_BIT_L3 (1 << PAPI_PRESET_ENUM_L3)
#define PAPI_PRESET_BIT_TLB (1 << PAPI_PRESET_ENUM_TLB)
#define PAPI_PRESET_BIT_FP (1 << PAPI_PRESET_ENUM_FP)

/* Where a native event code keeps its group number (PAPI_NTV_ENUM_GROUPS). */
#define PAPI_NTV_GROUP_AND_MASK 0x00FF0000
#define PAPI_NTV_GROUP_SHIFT 16

/* Pre-C99 spellings of the 64-bit count type, still accepted. */
#define long_long long long
#define u_long_long unsigned long long

/* ---- Types ---- */

typedef unsigned long PAPI_thread_id_t;

/* Threads and their thread-specific data, from PAPI_get_thr_specific(PAPI_TLS_ALL_THREADS). */
typedef struct _papi_all_thr_spec {
  int num;
  PAPI_thread_id_t* id;
  void** data;
} PAPI_all_thr_spec_t;

/* Called on counter overflow: the event set, the interrupted PC, one bit per overflowing
 * counter, and the signal context. */
typedef void (*PAPI_overflow_handler_t)(int EventSet, void* address, long long overflow_vector,
                                        void* context);

/* An address in the program. */
typedef void* vptr_t;

/* One region of PAPI_sprofil: a histogram buffer (pr_base, pr_size bytes) for the PCs from
 * pr_off on, pr_scale mapping PCs to buckets as in profil(3). */
typedef struct _papi_sprofil {
  void* pr_base;
  unsigned pr_size;
  vptr_t pr_off;
  unsigned pr_scale;
} PAPI_sprofil_t;

/* ---- Option structures (members of PAPI_option_t) ---- */

/* PAPI_DEF_ITIMER: the interval timer used for software multiplexing, overflow and profiling. */
typedef struct _papi_itimer_option {
  int itimer_num;
  int itimer_sig;
  int ns;
  int flags;
} PAPI_itimer_option_t;

/* PAPI_INHERIT */
typedef struct _papi_inherit_option {
  int eventset;
  int inherit;
} PAPI_inherit_option_t;

/* PAPI_DOMAIN (of an event set) and PAPI_DEFDOM (a component's default, def_cidx). */
typedef struct _papi_domain_option {
  int def_cidx;
  int eventset;
  int domain;
} PAPI_domain_option_t;

/* PAPI_GRANUL and PAPI_DEFGRN, in the same way. */
typedef struct _papi_granularity_option {
  int def_cidx;
  int eventset;
  int granularity;
} PAPI_granularity_option_t;

/* PAPI_PRELOAD: the environment variables that preload libraries, and their separators. */
typedef struct _papi_preload_option {
  char lib_preload_env[PAPI_MAX_STR_LEN];
  char lib_preload_sep;
  char lib_dir_env[PAPI_MAX_STR_LEN];
  char lib_dir_sep;
} PAPI_preload_info_t;

/* PAPI_COMPONENTINFO / PAPI_get_component_info: what a component is and can do. */
typedef struct _papi_component_option {
  char name[PAPI_MAX_STR_LEN];
  char short_name[PAPI_MIN_STR_LEN];
  char description[PAPI_MAX_STR_LEN];
  char version[PAPI_MIN_STR_LEN];
  char support_version[PAPI_MIN_STR_LEN];
  char kernel_version[PAPI_MIN_STR_LEN];
  char disabled_reason[PAPI_HUGE_STR_LEN];
  int disabled; /* 0, or the error code that disabled it */
  int initialized;
  int CmpIdx;
  int num_cntrs;
  int num_mpx_cntrs;
  int num_preset_events;
  int num_native_events;
  int default_domain;
  int available_domains;
  int default_granularity;
  int available_granularities;
  int hardware_intr_sig;
  int component_type;
  char* pmu_names[PAPI_PMU_MAX];
  int reserved[8];
  /* Capabilities. */
  unsigned int hardware_intr : 1;
  unsigned int precise_intr : 1;
  unsigned int posix1b_timers : 1;
  unsigned int kernel_profile : 1;
  unsigned int kernel_multiplex : 1;
  unsigned int fast_counter_read : 1;
  unsigned int fast_real_timer : 1;
  unsigned int fast_virtual_timer : 1;
  unsigned int attach : 1;
  unsigned int attach_must_ptrace : 1;
  unsigned int cntr_umasks : 1;
  unsigned int cpu : 1;
  unsigned int inherit : 1;
  unsigned int reserved_bits : 19;
} PAPI_component_info_t;

/* The software multiplexing timer. */
typedef struct _papi_mpx_info {
  int timer_sig;
  int timer_num;
  int timer_us;
} PAPI_mpx_info_t;

/* PAPI_DEBUG: the reporting level and a handler called with each error code. */
typedef int (*PAPI_debug_handler_t)(int code);

typedef struct _papi_debug_option {
  int level;
  PAPI_debug_handler_t handler;
} PAPI_debug_option_t;

/* An object's name and the bounds of its text, data and bss. */
typedef struct _papi_address_map {
  char name[PAPI_HUGE_STR_LEN];
  vptr_t text_start;
  vptr_t text_end;
  vptr_t data_start;
  vptr_t data_end;
  vptr_t bss_start;
  vptr_t bss_end;
} PAPI_address_map_t;

/* PAPI_EXEINFO / PAPI_get_executable_info: the program's path and address map. */
typedef struct _papi_program_info {
  char fullname[PAPI_HUGE_STR_LEN];
  PAPI_address_map_t address_info;
} PAPI_exe_info_t;

/* PAPI_SHLIBINFO / PAPI_get_shared_lib_info: one map per loaded object. */
typedef struct _papi_shared_lib_info {
  PAPI_address_map_t* map;
  int count;
} PAPI_shlib_info_t;

/* PAPI_USER_EVENTS_FILE: the path of a file of user-defined events. */
typedef char* PAPI_user_defined_events_file_t;

/* ---- Memory hierarchy ----
 * A cache or TLB's type word: kind (low 4 bits), write policy, replacement policy, TLB/prefetch
 * flags and allocation policy. Sizes are in bytes; associativity 0 is unknown, 1 direct mapped,
 * SHRT_MAX fully associative. */
#define PAPI_MH_TYPE_EMPTY 0x0
#define PAPI_MH_TYPE_INST 0x1
#define PAPI_MH_TYPE_DATA 0x2
#define PAPI_MH_TYPE_VECTOR 0x4
#define PAPI_MH_TYPE_TRACE 0x8
#define PAPI_MH_TYPE_UNIFIED (PAPI_MH_TYPE_INST | PAPI_MH_TYPE_DATA)
#define PAPI_MH_CACHE_TYPE(a) (0xf & (a))
#define PAPI_MH_TYPE_WT 0x00
#define PAPI_MH_TYPE_WB 0x10
#define PAPI_MH_CACHE_WRITE_POLICY(a) (0xf0 & (a))
#define PAPI_MH_TYPE_UNKNOWN 0x000
#define PAPI_MH_TYPE_LRU 0x100
#define PAPI_MH_TYPE_PSEUDO_LRU 0x200
#define PAPI_MH_TYPE_FIFO 0x400
#define PAPI_MH_CACHE_REPLACEMENT_POLICY(a) (0xf00 & (a))
#define PAPI_MH_TYPE_TLB 0x1000
#define PAPI_MH_TYPE_PREF 0x2000
#define PAPI_MH_TYPE_RD_ALLOC 0x10000
#define PAPI_MH_TYPE_WR_ALLOC 0x20000
#define PAPI_MH_TYPE_RW_ALLOC 0x40000
#define PAPI_MH_CACHE_ALLOCATION_POLICY(a) (0xf0000 & (a))
#define PAPI_MH_MAX_LEVELS 6            /* TLB and cache entries per level */
#define PAPI_MAX_MEM_HIERARCHY_LEVELS 4 /* levels */

typedef struct _papi_mh_tlb_info {
  int type;
  int num_entries;
  int page_size;
  int associativity;
} PAPI_mh_tlb_info_t;

typedef struct _papi_mh_cache_info {
  int type;
  int size;
  int line_size;
  int num_lines;
  int associativity;
} PAPI_mh_cache_info_t;

/* One level: its TLBs and its caches, unused entries of type PAPI_MH_TYPE_EMPTY. */
typedef struct _papi_mh_level_info {
  PAPI_mh_tlb_info_t tlb[PAPI_MH_MAX_LEVELS];
  PAPI_mh_cache_info_t cache[PAPI_MH_MAX_LEVELS];
} PAPI_mh_level_t;

typedef struct _papi_mh_info {
  int levels;
  PAPI_mh_level_t level[PAPI_MAX_MEM_HIERARCHY_LEVELS];
} PAPI_mh_info_t;

/* PAPI_HWINFO / PAPI_get_hardware_info: the node's processors and memory hierarchy. */
typedef struct _papi_hw_info {
  int ncpu;    /* CPUs per NUMA node */
  int threads; /* hardware threads per core */
  int cores;   /* cores per socket */
  int sockets;
  int nnodes; /* NUMA nodes */
  int totalcpus;
  int vendor; /* PAPI_VENDOR_... */
  char vendor_string[PAPI_MAX_STR_LEN];
  int model;
  char model_string[PAPI_MAX_STR_LEN];
  float revision;
  int cpuid_family;
  int cpuid_model;
  int cpuid_stepping;
  int cpu_max_mhz;
  int cpu_min_mhz;
  PAPI_mh_info_t mem_hierarchy;
  int virtualized;
  char virtual_vendor_string[PAPI_MAX_STR_LEN];
  char virtual_vendor_version[PAPI_MAX_STR_LEN];
  float mhz; /* old clock fields, kept for old programs */
  int clock_mhz;
  int reserved[8];
} PAPI_hw_info_t;

/* PAPI_ATTACH / PAPI_DETACH: the thread or process an event set counts. */
typedef struct _papi_attach_option {
  int eventset;
  unsigned long tid;
} PAPI_attach_option_t;

/* PAPI_CPU_ATTACH: the CPU an event set counts. */
typedef struct _papi_cpu_option {
  int eventset;
  unsigned int cpu_num;
} PAPI_cpu_option_t;

/* PAPI_MULTIPLEX: an event set's switching interval and PAPI_MULTIPLEX_... flags. */
typedef struct _papi_multiplex_option {
  int eventset;
  int ns;
  int flags;
} PAPI_multiplex_option_t;

/* PAPI_DATA_ADDRESS / PAPI_INSTR_ADDRESS: count only within [start, end] (both 0: no limit);
 * the offsets are what the hardware could actually set. */
typedef struct _papi_addr_range_option {
  int eventset;
  vptr_t start;
  vptr_t end;
  int start_off;
  int end_off;
} PAPI_addr_range_option_t;

/* The argument of PAPI_get_opt / PAPI_set_opt: the member that matches the option code. */
typedef union {
  PAPI_preload_info_t preload;
  PAPI_debug_option_t debug;
  PAPI_inherit_option_t inherit;
  PAPI_granularity_option_t granularity;
  PAPI_granularity_option_t defgranularity;
  PAPI_domain_option_t domain;
  PAPI_domain_option_t defdomain;
  PAPI_attach_option_t attach;
  PAPI_cpu_option_t cpu;
  PAPI_multiplex_option_t multiplex;
  PAPI_itimer_option_t itimer;
  PAPI_hw_info_t* hw_info;
  PAPI_shlib_info_t* shlib_info;
  PAPI_exe_info_t* exe_info;
  PAPI_component_info_t* cmp_info;
  PAPI_addr_range_option_t addr;
  PAPI_user_defined_events_file_t events_file;
} PAPI_option_t;

/* ---- PAPI_get_dmem_info: the process's memory use ---- */
typedef struct _dmem_t {
  long long peak;
  long long size;
  long long resident;
  long long high_water_mark;
  long long shared;
  long long text;
  long long library;
  long long heap;
  long long locked;
  long long stack;
  long long pagesize;
  long long pte;
} PAPI_dmem_info_t;

/* 1-based positions of those fields, for the Fortran interface. */
#define PAPIF_DMEM_VMPEAK 1
#define PAPIF_DMEM_VMSIZE 2
#define PAPIF_DMEM_RESIDENT 3
#define PAPIF_DMEM_HIGH_WATER 4
#define PAPIF_DMEM_SHARED 5
#define PAPIF_DMEM_TEXT 6
#define PAPIF_DMEM_LIBRARY 7
#define PAPIF_DMEM_HEAP 8
#define PAPIF_DMEM_LOCKED 9
#define PAPIF_DMEM_STACK 10
#define PAPIF_DMEM_PAGESIZE 11
#define PAPIF_DMEM_PTE 12
#define PAPIF_DMEM_MAXVAL 12

/* ---- Event information (PAPI_get_event_info) ---- */

/* Most native events one preset is made of (PAPI_event_info_t.code and .name). */
#define PAPI_MAX_INFO_TERMS 12

/* PAPI_event_info_t.location: what the event counts for. */
enum {
  PAPI_LOCATION_CORE = 0,
  PAPI_LOCATION_CPU = 1,
  PAPI_LOCATION_PACKAGE = 2,
  PAPI_LOCATION_UNCORE = 3,
};

/* PAPI_event_info_t.data_type: how to read the 64-bit value. */
enum {
  PAPI_DATATYPE_INT64 = 0,
  PAPI_DATATYPE_UINT64 = 1,
  PAPI_DATATYPE_FP64 = 2,
  PAPI_DATATYPE_BIT64 = 3,
};

/* PAPI_event_info_t.value_type: a running sum or an absolute value. */
enum {
  PAPI_VALUETYPE_RUNNING_SUM = 0,
  PAPI_VALUETYPE_ABSOLUTE = 1,
};

/* PAPI_event_info_t.timescope: the interval a value covers. */
enum {
  PAPI_TIMESCOPE_SINCE_START = 0,
  PAPI_TIMESCOPE_SINCE_LAST = 1,
  PAPI_TIMESCOPE_UNTIL_NEXT = 2,
  PAPI_TIMESCOPE_POINT = 3,
};

/* PAPI_event_info_t.update_type: when the value changes. */
enum {
  PAPI_UPDATETYPE_ARBITRARY = 0,
  PAPI_UPDATETYPE_PUSH = 1,
  PAPI_UPDATETYPE_PULL = 2,
  PAPI_UPDATETYPE_FIXEDFREQ = 3,
};

/* A preset or native event. The fields from count on describe a preset's native terms (the
 * formula in derived/postfix); for a native event they are empty. */
typedef struct event_info {
  unsigned int event_code;
  char symbol[PAPI_HUGE_STR_LEN];
  char short_descr[PAPI_MIN_STR_LEN];
  char long_descr[PAPI_HUGE_STR_LEN];
  int component_index;
  char units[PAPI_MIN_STR_LEN];
  int location;
  int data_type;
  int value_type;
  int timescope;
  int update_type;
  int update_freq;
  unsigned int count;
  unsigned int event_type; /* PAPI_PRESET_BIT_... */
  char derived[PAPI_MIN_STR_LEN];
  char postfix[PAPI_2MAX_STR_LEN];
  unsigned int code[PAPI_MAX_INFO_TERMS];
  char name[PAPI_MAX_INFO_TERMS][PAPI_2MAX_STR_LEN];
  char note[PAPI_HUGE_STR_LEN];
} PAPI_event_info_t;

/* ---- Devices (PAPI_enum_dev_type, PAPI_get_dev_type_attr, PAPI_get_dev_attr) ---- */

/* Device types. */
typedef enum {
  PAPI_DEV_TYPE_ID__CPU = 0,
  PAPI_DEV_TYPE_ID__CUDA = 1,
  PAPI_DEV_TYPE_ID__ROCM = 2,
  PAPI_DEV_TYPE_ID__MAX_NUM = 3,
} PAPI_dev_type_id_e;

/* Device type masks for PAPI_enum_dev_type. */
enum {
  PAPI_DEV_TYPE_ENUM__FIRST = 0,
  PAPI_DEV_TYPE_ENUM__CPU = (1 << PAPI_DEV_TYPE_ID__CPU),
  PAPI_DEV_TYPE_ENUM__CUDA = (1 << PAPI_DEV_TYPE_ID__CUDA),
  PAPI_DEV_TYPE_ENUM__ROCM = (1 << PAPI_DEV_TYPE_ID__ROCM),
  PAPI_DEV_TYPE_ENUM__ALL = (1 << PAPI_DEV_TYPE_ID__MAX_NUM) - 1,
};

/* Attributes of a device type. */
typedef enum {
  PAPI_DEV_TYPE_ATTR__INT_PAPI_ID = 0,
  PAPI_DEV_TYPE_ATTR__INT_VENDOR_ID = 1,
  PAPI_DEV_TYPE_ATTR__CHAR_NAME = 2,
  PAPI_DEV_TYPE_ATTR__INT_COUNT = 3,
  PAPI_DEV_TYPE_ATTR__CHAR_STATUS = 4,
} PAPI_dev_type_attr_e;

/* Attributes of one device, named PAPI_DEV_ATTR__<device>_<value type>_<attribute>. */
typedef enum {
  /* CPU */
  PAPI_DEV_ATTR__CPU_CHAR_NAME = 0,
  PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_SIZE = 1,
  PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_SIZE = 2,
  PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_SIZE = 3,
  PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_SIZE = 4,
  PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_LINE_SIZE = 5,
  PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_LINE_SIZE = 6,
  PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_LINE_SIZE = 7,
  PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_LINE_SIZE = 8,
  PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_LINE_COUNT = 9,
  PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_LINE_COUNT = 10,
  PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_LINE_COUNT = 11,
  PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_LINE_COUNT = 12,
  PAPI_DEV_ATTR__CPU_UINT_L1I_CACHE_ASSOC = 13,
  PAPI_DEV_ATTR__CPU_UINT_L1D_CACHE_ASSOC = 14,
  PAPI_DEV_ATTR__CPU_UINT_L2U_CACHE_ASSOC = 15,
  PAPI_DEV_ATTR__CPU_UINT_L3U_CACHE_ASSOC = 16,
  PAPI_DEV_ATTR__CPU_UINT_SOCKET_COUNT = 17,
  PAPI_DEV_ATTR__CPU_UINT_NUMA_COUNT = 18,
  PAPI_DEV_ATTR__CPU_UINT_CORE_COUNT = 19,
  PAPI_DEV_ATTR__CPU_UINT_THREAD_COUNT = 20,
  PAPI_DEV_ATTR__CPU_UINT_FAMILY = 21,
  PAPI_DEV_ATTR__CPU_UINT_MODEL = 22,
  PAPI_DEV_ATTR__CPU_UINT_STEPPING = 23,
  PAPI_DEV_ATTR__CPU_UINT_NUMA_MEM_SIZE = 24,
  PAPI_DEV_ATTR__CPU_UINT_THR_NUMA_AFFINITY = 25,
  PAPI_DEV_ATTR__CPU_UINT_THR_PER_NUMA = 26,
  /* CUDA devices */
  PAPI_DEV_ATTR__CUDA_ULONG_UID = 27,
  PAPI_DEV_ATTR__CUDA_CHAR_DEVICE_NAME = 28,
  PAPI_DEV_ATTR__CUDA_UINT_WARP_SIZE = 29,
  PAPI_DEV_ATTR__CUDA_UINT_SHM_PER_BLK = 30,
  PAPI_DEV_ATTR__CUDA_UINT_SHM_PER_SM = 31,
  PAPI_DEV_ATTR__CUDA_UINT_BLK_DIM_X = 32,
  PAPI_DEV_ATTR__CUDA_UINT_BLK_DIM_Y = 33,
  PAPI_DEV_ATTR__CUDA_UINT_BLK_DIM_Z = 34,
  PAPI_DEV_ATTR__CUDA_UINT_GRD_DIM_X = 35,
  PAPI_DEV_ATTR__CUDA_UINT_GRD_DIM_Y = 36,
  PAPI_DEV_ATTR__CUDA_UINT_GRD_DIM_Z = 37,
  PAPI_DEV_ATTR__CUDA_UINT_THR_PER_BLK = 38,
  PAPI_DEV_ATTR__CUDA_UINT_SM_COUNT = 39,
  PAPI_DEV_ATTR__CUDA_UINT_MULTI_KERNEL = 40,
  PAPI_DEV_ATTR__CUDA_UINT_MAP_HOST_MEM = 41,
  PAPI_DEV_ATTR__CUDA_UINT_MEMCPY_OVERLAP = 42,
  PAPI_DEV_ATTR__CUDA_UINT_UNIFIED_ADDR = 43,
  PAPI_DEV_ATTR__CUDA_UINT_MANAGED_MEM = 44,
  PAPI_DEV_ATTR__CUDA_UINT_COMP_CAP_MAJOR = 45,
  PAPI_DEV_ATTR__CUDA_UINT_COMP_CAP_MINOR = 46,
  PAPI_DEV_ATTR__CUDA_UINT_BLK_PER_SM = 47,
  /* ROCm devices */
  PAPI_DEV_ATTR__ROCM_ULONG_UID = 48,
  PAPI_DEV_ATTR__ROCM_CHAR_DEVICE_NAME = 49,
  PAPI_DEV_ATTR__ROCM_UINT_WAVEFRONT_SIZE = 50,
  PAPI_DEV_ATTR__ROCM_UINT_WORKGROUP_SIZE = 51,
  PAPI_DEV_ATTR__ROCM_UINT_WAVE_PER_CU = 52,
  PAPI_DEV_ATTR__ROCM_UINT_SHM_PER_WG = 53,
  PAPI_DEV_ATTR__ROCM_UINT_WG_DIM_X = 54,
  PAPI_DEV_ATTR__ROCM_UINT_WG_DIM_Y = 55,
  PAPI_DEV_ATTR__ROCM_UINT_WG_DIM_Z = 56,
  PAPI_DEV_ATTR__ROCM_UINT_GRD_DIM_X = 57,
  PAPI_DEV_ATTR__ROCM_UINT_GRD_DIM_Y = 58,
  PAPI_DEV_ATTR__ROCM_UINT_GRD_DIM_Z = 59,
  PAPI_DEV_ATTR__ROCM_UINT_CU_COUNT = 60,
  PAPI_DEV_ATTR__ROCM_UINT_SIMD_PER_CU = 61,
  PAPI_DEV_ATTR__ROCM_UINT_COMP_CAP_MAJOR = 62,
  PAPI_DEV_ATTR__ROCM_UINT_COMP_CAP_MINOR = 63,
} PAPI_dev_attr_e;

/* ---- Low-level API ---- */

/* Library, threads and components. */
int PAPI_library_init(int version);
int PAPI_is_initialized(void);
void PAPI_shutdown(void);
int PAPI_thread_init(unsigned long (*id_fn)(void));
unsigned long PAPI_thread_id(void);
int PAPI_register_thread(void);
int PAPI_unregister_thread(void);
int PAPI_list_threads(unsigned long* tids, int* number);
int PAPI_get_thr_specific(int tag, void** ptr);
int PAPI_set_thr_specific(int tag, void* ptr);
int PAPI_lock(int);
int PAPI_unlock(int);
int PAPI_multiplex_init(void);
int PAPI_num_components(void);
int PAPI_get_component_index(const char* name);
int PAPI_disable_component(int cidx);
int PAPI_disable_component_by_name(const char* name);
const PAPI_component_info_t* PAPI_get_component_info(int cidx);
int PAPI_num_cmp_hwctrs(int cidx);

/* Event sets. */
int PAPI_create_eventset(int* EventSet);
int PAPI_assign_eventset_component(int EventSet, int cidx);
int PAPI_get_eventset_component(int EventSet);
int PAPI_add_event(int EventSet, int Event);
int PAPI_add_named_event(int EventSet, const char* EventName);
int PAPI_add_events(int EventSet, int* Events, int number);
int PAPI_remove_event(int EventSet, int EventCode);
int PAPI_remove_named_event(int EventSet, const char* EventName);
int PAPI_remove_events(int EventSet, int* Events, int number);
int PAPI_list_events(int EventSet, int* Events, int* number);
int PAPI_num_events(int EventSet);
int PAPI_cleanup_eventset(int EventSet);
int PAPI_destroy_eventset(int* EventSet);
int PAPI_state(int EventSet, int* status);
int PAPI_attach(int EventSet, unsigned long tid);
int PAPI_detach(int EventSet);
int PAPI_set_multiplex(int EventSet);
int PAPI_get_multiplex(int EventSet);

/* Counting. */
int PAPI_start(int EventSet);
int PAPI_stop(int EventSet, long long* values);
int PAPI_read(int EventSet, long long* values);
int PAPI_read_ts(int EventSet, long long* values, long long* cyc);
int PAPI_accum(int EventSet, long long* values);
int PAPI_reset(int EventSet);
int PAPI_write(int EventSet, long long* values);

/* Overflow and profiling. */
int PAPI_overflow(int EventSet, int EventCode, int threshold, int flags,
                  PAPI_overflow_handler_t handler);
int PAPI_get_overflow_event_index(int Eventset, long long overflow_vector, int* array, int* number);
int PAPI_profil(void* buf, unsigned bufsiz, vptr_t offset, unsigned scale, int EventSet,
                int EventCode, int threshold, int flags);
int PAPI_sprofil(PAPI_sprofil_t* prof, int profcnt, int EventSet, int EventCode, int threshold,
                 int flags);

/* Events: names, codes, enumeration, descriptions. */
int PAPI_event_code_to_name(int EventCode, char* out);
int PAPI_event_name_to_code(const char* in, int* out);
int PAPI_query_event(int EventCode);
int PAPI_query_named_event(const char* EventName);
int PAPI_enum_event(int* EventCode, int modifier);
int PAPI_enum_cmp_event(int* EventCode, int modifier, int cidx);
int PAPI_get_event_info(int EventCode, PAPI_event_info_t* info);
int PAPI_get_event_component(int EventCode);

/* Options: domain, granularity, debugging and the rest (PAPI_option_t). */
int PAPI_get_opt(int option, PAPI_option_t* ptr);
int PAPI_get_cmp_opt(int option, PAPI_option_t* ptr, int cidx);
int PAPI_set_opt(int option, PAPI_option_t* ptr);
int PAPI_set_domain(int domain);
int PAPI_set_cmp_domain(int domain, int cidx);
int PAPI_set_granularity(int granularity);
int PAPI_set_cmp_granularity(int granularity, int cidx);
int PAPI_set_debug(int level);

/* System and program information. */
const PAPI_hw_info_t* PAPI_get_hardware_info(void);
const PAPI_exe_info_t* PAPI_get_executable_info(void);
const PAPI_shlib_info_t* PAPI_get_shared_lib_info(void);
int PAPI_get_dmem_info(PAPI_dmem_info_t* dest);
int PAPI_enum_dev_type(int enum_modifier, void** handle);
int PAPI_get_dev_type_attr(void* handle, PAPI_dev_type_attr_e attr, void* value);
int PAPI_get_dev_attr(void* handle, int id, PAPI_dev_attr_e attr, void* value);

/* Timers: real time and the process's (virtual) time. */
long long PAPI_get_real_cyc(void);
long long PAPI_get_real_nsec(void);
long long PAPI_get_real_usec(void);
long long PAPI_get_virt_cyc(void);
long long PAPI_get_virt_nsec(void);
long long PAPI_get_virt_usec(void);

/* Errors. */
char* PAPI_strerror(int);
void PAPI_perror(const char* msg);

/* Rate helpers: the first call starts counting, later calls report; PAPI_rate_stop ends. */
int PAPI_flips_rate(int event, float* rtime, float* ptime, long long* flpins, float* mflips);
int PAPI_flops_rate(int event, float* rtime, float* ptime, long long* flpops, float* mflops);
int PAPI_ipc(float* rtime, float* ptime, long long* ins, float* ipc);
int PAPI_epc(int event, float* rtime, float* ptime, long long* ref, long long* core, long long* evt,
             float* epc);
int PAPI_rate_stop(void);

/* ---- High-level API: counts over named regions of the program ---- */
int PAPI_hl_region_begin(const char* region);
int PAPI_hl_read(const char* region);
int PAPI_hl_region_end(const char* region);
int PAPI_hl_stop(void);

/* ---- Older names ---- */
int PAPI_num_hwctrs(void);
#define PAPI_COMPONENT_INDEX(a) PAPI_get_event_component(a)
#define PAPI_descr_error(a) PAPI_strerror(a)

#ifdef __cplusplus
}
#endif

#endif /* PAPI_H */
