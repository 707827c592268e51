/* test_config.c - parsing of the driver's environment variables, with a
   stand-in environment: accepted spellings, and for anything else the
   default and exactly one warning naming the value and the accepted ones.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pthread_config.h"

/* The stand-in environment: up to three NAME=VALUE pairs.  */
static const char *fake_env[3][2];

static char *
fake_getenv (const char *name)
{
  for (int i = 0; i < 3; ++i)
    if (fake_env[i][0] && strcmp (name, fake_env[i][0]) == 0)
      return (char *)fake_env[i][1];
  return NULL;
}

static void
fake_set (const char *n0, const char *v0, const char *n1, const char *v1,
          const char *n2, const char *v2)
{
  const char *pairs[3][2] = { { n0, v0 }, { n1, v1 }, { n2, v2 } };
  memcpy (fake_env, pairs, sizeof (fake_env));
}

/* stderr goes into a pipe from here ...  */
static int capture_fds[2], capture_saved;

static void
capture_begin (void)
{
  if (pipe (capture_fds) != 0)
    exit (2);
  fflush (stderr);
  capture_saved = dup (2);
  dup2 (capture_fds[1], 2);
}

/* ... to here, into msg; returns the number of warnings in it.  */
static int
capture_end (char *msg, size_t msglen)
{
  fflush (stderr);
  dup2 (capture_saved, 2);
  close (capture_saved);
  close (capture_fds[1]);
  ssize_t n = read (capture_fds[0], msg, msglen - 1);
  close (capture_fds[0]);
  msg[n > 0 ? n : 0] = '\0';
  int warnings = 0;
  for (char *p = msg; (p = strstr (p, "pocl: warning:")) != NULL; ++p)
    ++warnings;
  return warnings;
}

/* Reads the config with only NAME=VALUE set; returns the warnings printed.  */
static int
read_with (const char *name, const char *value, pts_config *c, char *msg,
           size_t msglen)
{
  fake_set (name, value, NULL, NULL, NULL, NULL);
  capture_begin ();
  pts_config_read (c, fake_getenv);
  return capture_end (msg, msglen);
}

#define MAXP "POCL_MAX_PTHREAD_COUNT"
#define CU "POCL_CPU_MAX_CU_COUNT"
#define MCU "POCL_MAX_COMPUTE_UNITS"

/* The thread-count variables: PoCL's precedence, a warning for each bad
   value, the allowed CPUs when none is good, a cap against typos.  */
static int
check_thread_counts (void)
{
  int failures = 0;
  struct
  {
    const char *v[3]; /* POCL_MAX_PTHREAD_COUNT, _CPU_MAX_CU_, _MAX_COMPUTE_ */
    unsigned cpus, want;
    int warnings;
  } cases[] = {
    { { NULL, NULL, NULL }, 2, 0, 0 },
    { { NULL, "64", NULL }, 2, 64, 0 },
    { { NULL, " 8 ", NULL }, 2, 8, 0 },
    { { NULL, NULL, "1" }, 2, 1, 0 },
    { { "3", "5", "7" }, 2, 3, 0 },
    { { NULL, "5", "7" }, 2, 5, 0 },
    { { NULL, "", NULL }, 2, 2, 1 },
    { { NULL, "0", NULL }, 6, 6, 1 },
    { { NULL, "-1", NULL }, 2, 2, 1 },
    { { NULL, NULL, "-1" }, 2, 2, 1 },
    { { NULL, "8abc", NULL }, 2, 2, 1 },
    { { NULL, "4.5", NULL }, 2, 2, 1 },
    { { NULL, "many", "4" }, 2, 4, 1 },
    { { "x", "-3", "4" }, 2, 4, 2 },
    { { "x", "-3", "" }, 3, 3, 3 },
    { { NULL, "1025", NULL }, 2, PTS_THREADS_MAX, 1 },
    { { NULL, "99999999999", NULL }, 2, 2, 1 },
    { { NULL, "4096", NULL }, 2048, 2048, 1 },
    { { NULL, "2048", NULL }, 2048, 2048, 0 },
    { { NULL, "1024", NULL }, 2, 1024, 0 },
  };
  for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); ++i)
    {
      char msg[1024];
      fake_set (MAXP, cases[i].v[0], CU, cases[i].v[1], MCU, cases[i].v[2]);
      capture_begin ();
      unsigned got = pts_config_thread_count (fake_getenv, cases[i].cpus);
      int warnings = capture_end (msg, sizeof (msg));
      char used[64];
      snprintf (used, sizeof (used), "using %u threads", got);
      int ok = got == cases[i].want && warnings == cases[i].warnings
               && (warnings == 0 || strstr (msg, used) != NULL);
      printf ("threads %s/%s/%s, %u cpus -> %u, %d warning(s)%s\n",
              cases[i].v[0] ? cases[i].v[0] : "-",
              cases[i].v[1] ? cases[i].v[1] : "-",
              cases[i].v[2] ? cases[i].v[2] : "-", cases[i].cpus, got,
              warnings, ok ? "" : "  WRONG");
      if (!ok)
        {
          fprintf (stderr,
                   "FAIL: thread count case %zu: got %u (want %u), "
                   "%d warnings (want %d): %s\n",
                   i, got, cases[i].want, warnings, cases[i].warnings, msg);
          ++failures;
        }
    }
  return failures;
}

int
main (void)
{
  int failures = 0;
  struct
  {
    const char *name, *value;
    int ok;          /* accepted */
    int field, want; /* 0 schedule, 1 stats, 2 skip, 3 affinity, 4 spin */
  } cases[] = {
    { "POCL_PTHREAD_SCHEDULE", "static", 1, 0, WGD_SCHED_STATIC },
    { "POCL_PTHREAD_SCHEDULE", "guided", 1, 0, WGD_SCHED_GUIDED },
    { "POCL_PTHREAD_SCHEDULE", "GUIDED", 1, 0, WGD_SCHED_GUIDED },
    { "POCL_PTHREAD_SCHEDULE", " Guided\t", 1, 0, WGD_SCHED_GUIDED },
    { "POCL_PTHREAD_SCHEDULE", "guided ", 1, 0, WGD_SCHED_GUIDED },
    { "POCL_PTHREAD_SCHEDULE", "", 0, 0, WGD_SCHED_STATIC },
    { "POCL_PTHREAD_SCHEDULE", "dynamic", 0, 0, WGD_SCHED_STATIC },
    { "POCL_PTHREAD_SCHEDULE", "guidedx", 0, 0, WGD_SCHED_STATIC },
    { "POCL_PTHREAD_SCHEDULE", "-1", 0, 0, WGD_SCHED_STATIC },
    { "POCL_PTHREAD_SCHEDULE", "static,guided", 0, 0, WGD_SCHED_STATIC },
    { "POCL_PTHREAD_STATS", "1", 1, 1, 1 },
    { "POCL_PTHREAD_STATS", " 0 ", 1, 1, 0 },
    { "POCL_PTHREAD_STATS", "yes", 0, 1, 0 },
    { "POCL_PTHREAD_STATS", "10", 0, 1, 0 },
    { "POCL_PTHREAD_STATS", "", 0, 1, 0 },
    { "POCL_PTHREAD_SKIP_CLAIMED", "0", 1, 2, 0 },
    { "POCL_PTHREAD_SKIP_CLAIMED", "x", 0, 2, 1 },
    { "POCL_AFFINITY", "1", 1, 3, 1 },
    { "POCL_AFFINITY", "0", 1, 3, 0 },
    { "POCL_AFFINITY", "true", 0, 3, 0 },
    { "POCL_AFFINITY", "99999999999999999999", 0, 3, 0 },
    { "POCL_AFFINITY", "-1", 0, 3, 0 },
    { "POCL_PTHREAD_SPIN_US", "0", 1, 4, 0 },
    { "POCL_PTHREAD_SPIN_US", " 200 ", 1, 4, 200 },
    { "POCL_PTHREAD_SPIN_US", "100000", 1, 4, 100000 },
    { "POCL_PTHREAD_SPIN_US", "100001", 0, 4, PTS_SPIN_US_DEFAULT },
    { "POCL_PTHREAD_SPIN_US", "99999999999999999999999", 0, 4,
      PTS_SPIN_US_DEFAULT },
    { "POCL_PTHREAD_SPIN_US", "-5", 0, 4, PTS_SPIN_US_DEFAULT },
    { "POCL_PTHREAD_SPIN_US", "1e3", 0, 4, PTS_SPIN_US_DEFAULT },
    { "POCL_PTHREAD_SPIN_US", "", 0, 4, PTS_SPIN_US_DEFAULT },
    { "POCL_PTHREAD_SPIN_US", "fast", 0, 4, PTS_SPIN_US_DEFAULT },
  };
  for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); ++i)
    {
      pts_config c;
      char msg[1024];
      int warnings
          = read_with (cases[i].name, cases[i].value, &c, msg, sizeof (msg));
      int got = cases[i].field == 0   ? (int)c.schedule
                : cases[i].field == 1 ? c.stats
                : cases[i].field == 2 ? c.skip_claimed
                : cases[i].field == 3 ? c.affinity
                                      : (int)c.spin_us;
      char quoted[128];
      snprintf (quoted, sizeof (quoted), "%s='%s'", cases[i].name,
                cases[i].value);
      int named = strstr (msg, quoted) != NULL && strstr (msg, "accepted:");
      int ok = got == cases[i].want && warnings == (cases[i].ok ? 0 : 1)
               && (cases[i].ok || named);
      printf ("%-40s -> %d, %d warning(s)%s\n", quoted, got, warnings,
              ok ? "" : "  WRONG");
      if (!ok)
        {
          fprintf (stderr, "FAIL: %s: got %d (want %d), warnings %d: %s\n",
                   quoted, got, cases[i].want, warnings, msg);
          ++failures;
        }
    }
  /* Nothing set: the defaults, no warning.  */
  pts_config c;
  char msg[256];
  int warnings = read_with (NULL, NULL, &c, msg, sizeof (msg));
  if (warnings != 0 || c.schedule != WGD_SCHED_STATIC || c.stats
      || !c.skip_claimed || c.affinity || c.spin_us != PTS_SPIN_US_DEFAULT)
    {
      fprintf (stderr, "FAIL: the defaults are wrong\n");
      ++failures;
    }
  failures += check_thread_counts ();
  if (failures)
    return 1;
  printf ("all config checks passed\n");
  return 0;
}
