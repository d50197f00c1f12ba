/* libhpmctr's event name tables (private): one catalogue per preset machine, generated at build
 * time by gen_events.cpp from `hpmsim events --json` and `hpmsim config --json`, so they are the
 * simulator's own catalogue (node/monitor.cpp) and cannot drift from it. */
#ifndef HPMCTR_EVENTS_H
#define HPMCTR_EVENTS_H

struct hpmctr_event_entry {
  const char* name;    /* native event name */
  const char* generic; /* the generic event it is an instance of ("Instructions"), or "" */
  unsigned char kind;  /* enum hpmctr_kind of the unit that counts it */
  signed char core;    /* UPC-P: the core whose event it is, or -1 */
  signed char thread;  /* PUnit: the hardware thread it counts alone, or -1 */
  unsigned short input;
};

struct hpmctr_catalogue {
  const char* machine;  /* preset: "bgp", "bgq" */
  int family;           /* enum hpmctr_machine */
  int cores;            /* node.cores of the preset */
  int threads_per_core; /* node.threads_per_core of the preset */
  int counters;         /* UPC-P: counters N (largest counter + 1); UPC-Q: 0 */
  unsigned count;
  const struct hpmctr_event_entry* events;
};

extern const struct hpmctr_catalogue hpmctr_catalogues[];
extern const unsigned hpmctr_catalogue_count;

#endif
