/* hpm/counters.h: the counter units of an hpmsim node, from guest code (library libhpmctr).
 *
 * The units' registers are mapped into the process (open /dev/hpm/<unit>, mmap), so reading a
 * counter is one load and starting or stopping them one store, as on Blue Gene. Threshold
 * interrupts arrive as a real-time signal whose siginfo names the unit and the counter; the
 * library's handler acknowledges them and calls yours.
 *
 *   bgp  one UPC-P unit, /dev/hpm/upc: 256 counters, 1024 inputs, Blue Gene/P's events by
 *        their names (PU0_FPU_FMA_2, ...). Counter c counts input select x 256 + c (select
 *        0..3, Blue Gene/P's counter modes): each input has exactly one counter. Select 0 counts
 *        cores 0 and 1, select 1 cores 2 and 3 (docs/events.md).
 *   bgq  UPC-Q: a PUnit per core, /dev/hpm/punit<k> (24 counters, each any of the core's
 *        inputs: BGPM's event number, plus 1024 x (t + 1) for hardware thread t alone), and the
 *        node's /dev/hpm/l2 (6 counters, combined), /dev/hpm/io (43) and /dev/hpm/cnk (32,
 *        counting from boot).
 *
 * Typical use (error checks left out):
 *
 *   hpmctr_unit u;
 *   hpmctr_open_core(&u);                          // the unit that counts this thread's core
 *   int c = hpmctr_add(&u, hpmctr_thread_event(&u, "Instructions"), HPMCTR_LEVEL_HIGH);
 *   hpmctr_start(&u);  work();  hpmctr_stop(&u);
 *   printf("%llu\n", (unsigned long long)hpmctr_read(&u, c));
 *
 * Exact conventions (docs/counters.md has the details and the tests that pin them):
 * - A register store at cycle t acts on the events of cycle t. So the instruction count between
 *   hpmctr_start and hpmctr_stop includes the start store and not the stop store.
 * - A load at cycle t returns the events of the cycles before t: the difference of two reads
 *   includes the first load and not the second.
 * - hpmctr_read is the exact count at the load on UPC-P, on the PUnit (its COUNTER_EXACT
 *   register) and on the CNKUnit; on the L2 and I/O units it lags by up to the sweep period (800
 *   cycles), as on Blue Gene/Q.
 * - Event names are those of the preset machines (`hpmsim events --machine bgp|bgq`), generated
 *   into the library at build time; numbers (`input`) work on any configuration.
 *
 * One hpmctr_unit per device per process: threads may share it (reads, start and stop are
 * single loads and stores); hpmctr_add and hpmctr_overflow are not thread-safe.
 */
#ifndef HPM_COUNTERS_H
#define HPM_COUNTERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The counter hardware of the machine the program runs on. */
enum hpmctr_machine {
  HPMCTR_NONE = 0, /* no /dev/hpm unit (monitor.unit = none) */
  HPMCTR_BGP = 1,  /* UPC-P */
  HPMCTR_BGQ = 2,  /* UPC-Q */
};

/* Unit kinds; their device paths are /dev/hpm/upc, punit<k>, l2, io, cnk, nw. */
enum hpmctr_kind {
  HPMCTR_UPC = 0,
  HPMCTR_PUNIT = 1,
  HPMCTR_L2 = 2,
  HPMCTR_IO = 3,
  HPMCTR_CNK = 4,
  HPMCTR_NW = 5, /* the network's link counters (a node of a many-node run): 6 per link */
};

/* Signal modes of a counter (docs/upc.md "Signal modes"). */
enum hpmctr_mode {
  HPMCTR_LEVEL_HIGH = 0, /* count occurrences (pulses) or cycles high (levels) */
  HPMCTR_LEVEL_LOW = 1,
  HPMCTR_RISING_EDGE = 2,
  HPMCTR_FALLING_EDGE = 3,
};

struct hpmctr_unit;

/* Called once per threshold period, in signal context: `count` is the counter's count
 * (hpmctr_count) when the handler ran, `cycle` the cycle the unit raised the interrupt, `context`
 * the signal's ucontext_t (the interrupted pc is ((ucontext_t*)context)->uc_mcontext.__gregs[0]).
 * UPC-P: the library stops the unit while the handler runs; UPC-Q: a PUnit counter stays frozen
 * (and an L2/IO unit held) until the library acknowledges, after the handler returns. */
typedef void (*hpmctr_handler)(struct hpmctr_unit* u, int counter, uint64_t count, uint64_t cycle,
                               void* context, void* arg);

/* Called in signal context when a UPC-P unit finds an SRAM parity error and interrupts
 * (hpmctr_on_parity_error): `counter` is the failing entry's, `cycle` the cycle of the failing
 * read, `context` the signal's ucontext_t. */
typedef void (*hpmctr_parity_handler)(struct hpmctr_unit* u, int counter, uint64_t cycle,
                                      void* context, void* arg);

/* Per-counter state of a threshold (library-private). */
struct hpmctr_overflow {
  uint64_t period;  /* 0: none */
  uint64_t next;    /* UPC-Q: the THRESHOLD written; UPC-P: count of the next interrupt */
  uint64_t base;    /* UPC-P: count before the current preload */
  uint64_t preload; /* UPC-P: value preloaded */
  uint64_t calls;   /* handler calls so far */
  uint64_t signals; /* interrupts taken */
  hpmctr_handler fn;
  void* arg;
};

typedef struct hpmctr_unit {
  int fd;
  int device; /* the device number the siginfo names */
  enum hpmctr_kind kind;
  int instance; /* PUnit: its core; else 0 */
  enum hpmctr_machine machine;
  volatile uint64_t* regs; /* the mapped register window */
  unsigned long window;    /* its size in bytes */
  unsigned counters;       /* counter indices usable (L2 combined: 6; sliced: 96) */
  unsigned ports;          /* UPC-Q: input ports (the L2 unit's slices: 16); else 1 */
  unsigned per_port;       /* UPC-Q: counters per port (the L2 unit's per slice: 6) */
  unsigned events;         /* inputs a counter can select (UPC-P: all 1024) */
  unsigned low_bits;       /* UPC-P: L, the low-order register width */
  /* register indices (byte offset / 8) */
  unsigned counter_reg; /* COUNTER[0] */
  unsigned
      read_reg; /* what hpmctr_read loads: COUNTER (UPC-P, CNK, L2, IO), COUNTER_EXACT (PUnit) */
  unsigned config_reg;              /* CONFIG[0] */
  unsigned threshold_reg;           /* UPC-P: THRESHOLD; UPC-Q: THRESHOLD[0] */
  unsigned run_reg;                 /* UPC-P START_STOP; UPC-Q RUN */
  unsigned status_reg;              /* UPC-P INTERRUPT_STATUS[0]; UPC-Q OVERFLOW_STATUS[0] */
  unsigned armed_reg;               /* UPC-P ARMED_STATUS[0] */
  int signo;                        /* signal for its interrupts (default SIGRTMIN + 1) */
  int32_t* input;                   /* per counter: the input programmed by the library, -1 free */
  struct hpmctr_overflow* overflow; /* per counter */
  uint64_t run_bits;                /* UPC-P: START_STOP bits every start and stop keeps (bit 1) */
  hpmctr_parity_handler parity_fn;  /* hpmctr_on_parity_error's */
  void* parity_arg;
  uint64_t parity_calls; /* parity handler calls so far */
} hpmctr_unit;

/* Which counter hardware exists (it opens the devices to find out). */
enum hpmctr_machine hpmctr_machine(void);

/* The simulator's run mode (hpmsim run --mode), from /proc/hpmsim/mode; UNKNOWN where there is
 * no such file (qemu-user, a real machine). Which events count depends on it: `hpmsim events`
 * lists each event's modes, and libbgpm refuses an event the mode does not count. */
enum hpmctr_run_mode {
  HPMCTR_RUN_UNKNOWN = 0,
  HPMCTR_RUN_FUNCTIONAL = 1, /* instructions, cycles and the kernel's events: no memory system */
  HPMCTR_RUN_WARMUP = 2,     /* the caches, no pipeline: no branch prediction, stalls, ... */
  HPMCTR_RUN_TIMING = 3,
  HPMCTR_RUN_PROFILE = 4,
};
enum hpmctr_run_mode hpmctr_run_mode(void);
/* Whether an event of run modes `modes` (bit m - 1 for mode m, as `hpmsim events --json` lists
 * them) counts in this run's mode; every event does in an unknown mode. An event of no modes,
 * which never counts on the node (docs/events.md), is offered in every mode (it reads 0). */
int hpmctr_counts_in_run_mode(unsigned modes);

/* Opens unit `kind` (instance: the PUnit's core; ignored otherwise) and maps its registers.
 * 0 on success, else -errno (-ENODEV: no such unit on this machine). */
int hpmctr_open(hpmctr_unit* u, enum hpmctr_kind kind, int instance);
/* Opens the unit that counts the calling thread's core: UPC-P on bgp, its core's PUnit on bgq. */
int hpmctr_open_core(hpmctr_unit* u);
/* Unmaps and closes; the counters keep counting (stop them first to freeze them). */
void hpmctr_close(hpmctr_unit* u);

/* The calling thread's hardware thread (CPU number), its core and its thread within the core. */
int hpmctr_cpu(void);
int hpmctr_core(void);
int hpmctr_thread(void);

/* Event `name`'s input in this unit (`hpmsim events`), or -1 (unknown, another unit's event, or a
 * machine whose shape differs from the preset the names were generated for). */
int hpmctr_event(const hpmctr_unit* u, const char* name);
/* The input of this unit that counts generic event `generic` (the `generic` column of
 * `hpmsim events --json`, such as "Instructions" or "InstIntMul") for the calling thread: on
 * UPC-P its core's event (one thread per core), on a PUnit its hardware thread's own (or, for an
 * event of the whole core such as "L1dMisses", the core's). -1 if the unit has none. Programs
 * written this way run unchanged on both machines. */
int hpmctr_thread_event(const hpmctr_unit* u, const char* generic);
/* The name of input `input` of this unit, or NULL. */
const char* hpmctr_event_name(const hpmctr_unit* u, int input);

/* Programs a counter to count `input` in `mode`, without a threshold, and sets it to 0: UPC-P uses
 * the input's own counter (input mod 256, select input / 256); UPC-Q the lowest free counter.
 * Returns the counter index, or -errno (-EBUSY: the UPC-P counter is counting already, another
 * input or this one in any mode, or the UPC-Q unit is full; -EINVAL: no such input). Counting
 * follows the unit's run state (hpmctr_start). hpmctr_set reprograms a counter explicitly. */
int hpmctr_add(hpmctr_unit* u, int input, enum hpmctr_mode mode);
int hpmctr_add_name(hpmctr_unit* u, const char* name, enum hpmctr_mode mode);
/* Frees a counter the library programmed: its configuration back to the reset value (no
 * threshold), its count to 0. 0, or -EINVAL (no such counter, or free). */
int hpmctr_remove(hpmctr_unit* u, int counter);
/* Programs counter `counter` explicitly (UPC-P: counter must be input mod N). */
int hpmctr_set(hpmctr_unit* u, int counter, int input, enum hpmctr_mode mode);
/* UPC-P: every counter to input select x N + c (the seed's counter modes), level high, zeroed.
 * Returns the number of counters, or -errno. */
int hpmctr_program_select(hpmctr_unit* u, int select);
/* Frees every counter the library programmed, clears interrupt enables, stops the unit and sets
 * the counters to zero. */
int hpmctr_reset(hpmctr_unit* u);

/* Start and stop counting: one store to START_STOP (UPC-P) or RUN (UPC-Q) each. */
static inline void hpmctr_start(hpmctr_unit* u) {
  u->regs[u->run_reg] = u->run_bits | 1;
}
static inline void hpmctr_stop(hpmctr_unit* u) {
  u->regs[u->run_reg] = u->run_bits;
}
/* One counter: one load (see the conventions above). */
static inline uint64_t hpmctr_read(const hpmctr_unit* u, int counter) {
  return u->regs[u->read_reg + (unsigned)counter];
}
/* Every counter index of the unit, in order, into values[u->counters]; returns the number. */
int hpmctr_read_all(const hpmctr_unit* u, uint64_t* values);
/* Preloads a counter (UPC-P: clears its carry and armed state). Not for a counter with a
 * threshold (hpmctr_overflow owns its value). */
void hpmctr_write(hpmctr_unit* u, int counter, uint64_t value);
/* The counter's count since it was programmed: hpmctr_read, except for a UPC-P counter with a
 * threshold, whose preloads the library accounts for. */
uint64_t hpmctr_count(const hpmctr_unit* u, int counter);

/* Calls fn(u, counter, count, cycle, arg) each time the counter's count (from now) passes a
 * multiple of `period`, from the unit's threshold interrupt: 0 or -errno. period 0 removes it.
 * UPC-P: the seed's two-phase threshold with the (threshold, preload) pair of docs/upc.md, one
 * counter at a time (the THRESHOLD register is shared: -EBUSY for a second); the library's
 * signal handler stops the unit, accounts the events since the interrupt, preloads the next
 * period, acknowledges and restarts it. UPC-Q: THRESHOLD[counter] and the CONFIG overflow enable;
 * the handler moves the threshold on by `period` and acknowledges (which unfreezes a PUnit
 * counter and releases an L2/IO hold). If the handler runs after more than one period (a slow
 * unit), fn is called once per period. The interrupts go to the calling thread. */
int hpmctr_overflow(hpmctr_unit* u, int counter, uint64_t period, hpmctr_handler fn, void* arg);
/* Interrupts taken and handler calls made for a counter. */
uint64_t hpmctr_overflow_signals(const hpmctr_unit* u, int counter);
uint64_t hpmctr_overflow_calls(const hpmctr_unit* u, int counter);

/* The L2 unit's counting mode (docs/upcq.md "L2: combined and sliced"): combined (0, the reset
 * mode: counter j sums counter j of every slice, 6 counters) or sliced (1: counter 6 s + j counts
 * slice s alone, 96 counters; BGPM's _SLICE events). Switching clears every count and frees
 * every counter. Returns the counters now usable, or -errno (-EINVAL: not the L2 unit). */
int hpmctr_l2_mode(hpmctr_unit* u, int sliced);
/* A sliced L2 unit: counts `input` on every slice, on the lowest local counter j free on all of
 * them, zeroed; returns j (slice s's count is counter per_port x s + j), or -errno (-EINVAL: not a
 * sliced L2 unit; -EBUSY: no local counter free on every slice). */
int hpmctr_add_slices(hpmctr_unit* u, int input, enum hpmctr_mode mode);

/* UPC-P's SRAM parity errors (docs/upc.md "Parity scheme"). hpmctr_on_parity_error sets
 * START_STOP's parity interrupt enable: when a read of a counter's SRAM entry fails its parity
 * check the unit interrupts, and the library's signal handler calls fn(u, counter, cycle,
 * context, arg), then clears PARITY_STATUS and the counter's PARITY_ERRORS bit. The entry stays
 * corrupt until rewritten (hpmctr_write, or the state machine's next carry into it): a read of
 * it fails again. fn NULL turns parity interrupts off. 0, or -errno (-EINVAL: not UPC-P). */
int hpmctr_on_parity_error(hpmctr_unit* u, hpmctr_parity_handler fn, void* arg);
/* UPC-P: the first counter whose SRAM entry failed its parity check since PARITY_STATUS was last
 * cleared (PARITY_STATUS; found with or without interrupts), or -1. */
int hpmctr_parity_status(const hpmctr_unit* u);

#ifdef __cplusplus
}
#endif

#endif
