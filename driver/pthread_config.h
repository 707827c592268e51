/* pthread_config.h - the pthread device's settings from the environment.
   Read once, when the device is first initialised.  Independent of PoCL,
   so the parsing can be unit-tested.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_CONFIG_H
#define POCL_STEAL_PTHREAD_CONFIG_H

#include <stdbool.h>

#include "wg_dispatch.h"

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
} pts_config;

#define PTS_SPIN_US_DEFAULT 50
#define PTS_SPIN_US_MAX 100000

/* Parses a whole number in [0, max] (blanks around allowed).  */
bool pts_parse_uint (const char *s, unsigned max, unsigned *out);

/* A setting's value and what it means; a value that is not accepted gets
   one warning on stderr naming it and the accepted values, and the default
   is used.  getenv_fn is getenv, or a stand-in for tests.  */
void pts_config_read (pts_config *c, char *(*getenv_fn) (const char *));

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
   which takes "8abc" for 8 and gives 4294967295 threads for -1.  */
unsigned pts_config_thread_count (char *(*getenv_fn) (const char *),
                                  unsigned cpus);

/* Parses a 0/1 switch ("0", "1", with blanks around).  */
bool pts_parse_switch (const char *s, bool *out);

#endif /* POCL_STEAL_PTHREAD_CONFIG_H */
