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

static const char *fake_name, *fake_value;

static char *
fake_getenv (const char *name)
{
  if (fake_name && strcmp (name, fake_name) == 0)
    return (char *)fake_value;
  return NULL;
}

/* Reads the config with only NAME=VALUE set; returns the warnings printed
   (stderr is captured through a pipe).  */
static int
read_with (const char *name, const char *value, pts_config *c, char *msg,
           size_t msglen)
{
  int fds[2];
  if (pipe (fds) != 0)
    exit (2);
  fflush (stderr);
  int saved = dup (2);
  dup2 (fds[1], 2);
  fake_name = name;
  fake_value = value;
  pts_config_read (c, fake_getenv);
  fflush (stderr);
  dup2 (saved, 2);
  close (saved);
  close (fds[1]);
  ssize_t n = read (fds[0], msg, msglen - 1);
  close (fds[0]);
  msg[n > 0 ? n : 0] = '\0';
  int warnings = 0;
  for (char *p = msg; (p = strstr (p, "pocl: warning:")) != NULL; ++p)
    ++warnings;
  return warnings;
}

int
main (void)
{
  int failures = 0;
  struct
  {
    const char *name, *value;
    int ok; /* accepted */
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
      int warnings = read_with (cases[i].name, cases[i].value, &c, msg,
                                sizeof (msg));
      int got = cases[i].field == 0   ? (int)c.schedule
                : cases[i].field == 1 ? c.stats
                : cases[i].field == 2 ? c.skip_claimed
                : cases[i].field == 3 ? c.affinity
                                      : (int)c.spin_us;
      char quoted[128];
      snprintf (quoted, sizeof (quoted), "%s='%s'", cases[i].name,
                cases[i].value);
      int named = strstr (msg, quoted) != NULL && strstr (msg, "accepted:");
      int ok = got == cases[i].want
               && warnings == (cases[i].ok ? 0 : 1)
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
  if (failures)
    return 1;
  printf ("all config checks passed\n");
  return 0;
}
