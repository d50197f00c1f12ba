/* libbgpm's event table (private), generated at build time by gen_events.cpp from
 * `hpmsim events --machine bgq --json`, in id order. */
#ifndef BGPM_TABLE_H
#define BGPM_TABLE_H

struct bgpm_event_entry {
  unsigned id;
  const char* label;
  const char* desc;
  unsigned char unit;       /* BgpmUnitTypes */
  unsigned char per_thread; /* a PUnit event the calling thread can count alone (NAME@t<t>) */
  unsigned short input;     /* the unit's input (a PUnit's: the core's) */
  unsigned char wired;      /* 0: the event never counts on hpmsim's node */
  unsigned char modes;      /* the run modes it counts in: bit m - 1 for hpmctr_run_mode m */
};

extern const struct bgpm_event_entry bgpm_events[];
extern const unsigned bgpm_event_count;

#endif
