/* pthread_config.h - the pthread device's settings from the environment.
   Read once, when the device is first initialised.  Independent of PoCL,
   so the parsing can be unit-tested.

   Every setting is one row of the settings table (pts_settings in
   pthread_config.c): its variable, how its value is parsed, its default,
   the accepted values as text, the pts_config field it sets and what it
   means.  pts_config_read, the warnings and the table of
   docs/settings.md's "The settings table" (pts_settings_markdown; the
   test docs_settings compares them) all come from that table.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_CONFIG_H
#define POCL_STEAL_PTHREAD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "wg_dispatch.h"

/* The settings; what each one means is in its row of the table.  */
typedef struct
{
  wgd_schedule schedule; /* POCL_PTHREAD_SCHEDULE: static (default), guided */
  bool stats;            /* POCL_PTHREAD_STATS: 0 (default) or 1 */
  /* POCL_PTHREAD_SKIP_CLAIMED: 1 (default) or 0.  0 makes threads join
     launches whose work-groups are all claimed, as PoCL's driver did; it
     exists to measure what the skip saves.  */
  bool skip_claimed;
  /* POCL_AFFINITY: 0 (default) or 1: pin the threads, spread over the NUMA
     nodes (pthread_placement.h).  */
  bool affinity;
  /* POCL_PTHREAD_SPIN_US: how long idle threads watch for work before they
     sleep, in microseconds, 0 .. PTS_SPIN_US_MAX; 0 turns it off.  */
  unsigned spin_us;
  /* POCL_PTHREAD_STEAL: 1 (default) or 0.  0: under the static schedule
     each thread runs exactly its own block (no takeovers, no steals); for
     tests and measurements.  */
  bool steal;
  /* POCL_PTHREAD_HOST_GROUPS: application threads waiting in clFinish or
     clWaitForEvents run work-groups of launches of at most this many
     work-groups (pthread_host.h); 0 turns it off.  Unset (see
     pts_config_is_set): PTS_HOST_GROUPS_DEFAULT, or any size where the
     device's threads are on one NUMA node (pthread_worker.c).  */
  unsigned host_groups;
  /* POCL_PTHREAD_HOST_SHARE_US: such a thread shares a launch it runs
     with the workers only once the rest of it looks longer than this, in
     microseconds (rule S1, pthread_share.h); 0 shares at once.  */
  unsigned host_share_us;
  /* POCL_PTHREAD_HOST_GRACE_US: a worker leaves such a launch, enqueued
     by an application thread, to that thread for this long, in
     microseconds (P6 of pthread_pool.c); 0: not at all.  Spent spinning:
     none if spin_us is 0.  */
  unsigned host_grace_us;
  /* Bit i: the variable of row i of the settings table was set to an
     accepted value; see pts_config_is_set.  */
  unsigned set;
} pts_config;

/* Plain numbers: the settings table writes them into its texts.  */
#define PTS_SPIN_US_DEFAULT 50
#define PTS_SPIN_US_MAX 100000
/* POCL_PTHREAD_HOST_GROUPS unset: launches of any size where a device's
   threads are all on one NUMA node, no first-touch placement being at
   stake there (pthread_host.h), and of at most this many where they span
   several.  */
#define PTS_HOST_GROUPS_DEFAULT 64
#define PTS_HOST_GROUPS_MAX 100000
/* About twice a wake-up: with two threads, sharing a rest of R halves it
   and costs a wake-up W, so it pays from R > 2 W; with more threads it
   pays a little earlier.  On the 2-CPU VM we measured, W is 2-2.5 us, and
   a sweep of 0 to 8 us (bench/cl_launch --work, 32 and 64 work-groups)
   was fastest at 4 to 6 us for every work-group cost.  */
#define PTS_HOST_SHARE_US_DEFAULT 5
#define PTS_HOST_SHARE_US_MAX 100000
/* How long an application thread can take from its clEnqueue to its
   clFinish here: a worker kicked at once won that race in 17% of
   back-to-back launches of 64 trivial work-groups at 2 threads (the
   2-CPU VM; the thread may be preempted), each win costing the hand-offs
   both ways.  Graces of 10, 20, 30 and 50 us took 0.64, 0.54, 0.51 and
   0.49 of the launch cost without one; 30 us keeps most of the gain.  */
#define PTS_HOST_GRACE_US_DEFAULT 30
#define PTS_HOST_GRACE_US_MAX 100000

/* How a setting's value is parsed, and the type of its field.  */
typedef enum
{
  PTS_SETTING_SWITCH,   /* "0" or "1" (pts_parse_switch); a bool field */
  PTS_SETTING_SCHEDULE, /* a schedule name (wgd_parse_schedule); a
                           wgd_schedule field */
  PTS_SETTING_UINT      /* a whole number 0..max (pts_parse_uint); an
                           unsigned field */
} pts_setting_kind;

/* One row of the settings table.  */
typedef struct
{
  const char *name;      /* the environment variable */
  pts_setting_kind kind; /* how the value is parsed */
  unsigned def;          /* the default: 0/1, a wgd_schedule or the number */
  unsigned max;          /* PTS_SETTING_UINT: the largest accepted value */
  const char *accepted;  /* the accepted values, as warnings name them */
  /* What the default is, where it is not simply `def` (one that depends
     on the machine; the row's user asks pts_config_is_set), or NULL.  */
  const char *def_text;
  size_t field;        /* offsetof (pts_config, the field it sets) */
  const char *meaning; /* one line of Markdown, for docs/settings.md */
} pts_setting;

/* The settings table, in docs/settings.md's order, and its number of
   rows.  */
extern const pts_setting pts_settings[];
extern const unsigned pts_num_settings;

/* The row of variable name, or NULL.  */
const pts_setting *pts_setting_find (const char *name);

/* Parses value as row s does (blanks around allowed); false for a value
   that is not accepted, leaving *out alone.  */
bool pts_setting_parse (const pts_setting *s, const char *value,
                        unsigned *out);

/* Writes value v of row s as a value of the variable ("1", "guided",
   "50"), as warnings say what is used; truncated to fit size bytes.  */
void pts_setting_value_text (const pts_setting *s, unsigned v, char *buf,
                             size_t size);

/* Writes row s's default as warnings and docs/settings.md say it: its
   def_text, or value def as pts_setting_value_text writes it.  */
void pts_setting_default_text (const pts_setting *s, char *buf, size_t size);

/* The field of c that row s sets, as a number.  */
unsigned pts_setting_get (const pts_config *c, const pts_setting *s);

/* Writes the settings table as docs/settings.md's Markdown table: a
   header line, a separator line, one line per row.  */
void pts_settings_markdown (FILE *out);

/* Parses a whole number in [0, max] (blanks around allowed).  */
bool pts_parse_uint (const char *s, unsigned max, unsigned *out);

/* Parses a 0/1 switch ("0", "1", with blanks around).  */
bool pts_parse_switch (const char *s, bool *out);

/* Sets every setting of the table from its variable: a variable that is
   not set gives the default; one set to a value that is not accepted gets
   one warning on stderr naming it and the accepted values, and the
   default is used.  getenv_fn is getenv, or a stand-in for tests.  */
void pts_config_read (pts_config *c, char *(*getenv_fn) (const char *));

/* Whether variable name, a row of the settings table, was set to an
   accepted value in the environment pts_config_read read c from (one not
   accepted gives the default, as if unset, and a warning).  A setting
   whose default depends on the machine (POCL_PTHREAD_HOST_GROUPS) asks.  */
bool pts_config_is_set (const pts_config *c, const char *name);

/* The most worker threads a device gets from the environment, unless the
   machine has more CPUs: enough to oversubscribe any machine of today many
   times over, few enough that a typo cannot exhaust memory or the process's
   thread limit.  */
#define PTS_THREADS_MAX 1024

/* The thread count the environment asks for, with PoCL's precedence:
   POCL_MAX_PTHREAD_COUNT, then POCL_CPU_MAX_CU_COUNT, then
   POCL_MAX_COMPUTE_UNITS.  The first of them set to a whole number
   1..max(PTS_THREADS_MAX, cpus) is used, a larger one is lowered to that
   limit with a warning; each one set to anything else (empty, 0, negative,
   not a number) gets one warning and is passed over.  Returns 0 when none
   is set, so that PoCL's count stands; cpus (the allowed CPUs) when some
   are set but none is accepted.  PoCL reads the same variables with atoi,
   which takes "8abc" for 8 and gives 4294967295 threads for -1.  These
   variables are not rows of the settings table (they decide together, and
   docs/settings.md describes them in prose), but warn the same way.  */
unsigned pts_config_thread_count (char *(*getenv_fn) (const char *),
                                  unsigned cpus);

#endif /* POCL_STEAL_PTHREAD_CONFIG_H */
