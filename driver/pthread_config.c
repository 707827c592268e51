/* pthread_config.c - reads the pthread device's environment variables.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "pthread_config.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static void
warn_bad_value (const char *name, const char *value, const char *accepted,
                const char *used)
{
  fprintf (stderr,
           "pocl: warning: %s='%s' is not accepted (accepted: %s); "
           "using %s\n",
           name, value, accepted, used);
}

bool
pts_parse_switch (const char *s, bool *out)
{
  while (isspace ((unsigned char)*s))
    ++s;
  if ((*s != '0' && *s != '1'))
    return false;
  const char *rest = s + 1;
  while (isspace ((unsigned char)*rest))
    ++rest;
  if (*rest != '\0')
    return false;
  *out = *s == '1';
  return true;
}

bool
pts_parse_uint (const char *s, unsigned max, unsigned *out)
{
  while (isspace ((unsigned char)*s))
    ++s;
  if (!isdigit ((unsigned char)*s))
    return false;
  unsigned long long v = 0;
  while (isdigit ((unsigned char)*s))
    {
      v = v * 10 + (unsigned)(*s++ - '0');
      if (v > max)
        return false;
    }
  while (isspace ((unsigned char)*s))
    ++s;
  if (*s != '\0')
    return false;
  *out = (unsigned)v;
  return true;
}

void
pts_config_read (pts_config *c, char *(*getenv_fn) (const char *))
{
  const char *v;

  c->schedule = WGD_SCHED_STATIC;
  v = getenv_fn ("POCL_PTHREAD_SCHEDULE");
  if (v != NULL && !wgd_parse_schedule (v, &c->schedule))
    {
      c->schedule = WGD_SCHED_STATIC;
      warn_bad_value ("POCL_PTHREAD_SCHEDULE", v, "static, guided", "static");
    }

  c->stats = false;
  v = getenv_fn ("POCL_PTHREAD_STATS");
  if (v != NULL && !pts_parse_switch (v, &c->stats))
    {
      c->stats = false;
      warn_bad_value ("POCL_PTHREAD_STATS", v, "0, 1", "0");
    }

  c->skip_claimed = true;
  v = getenv_fn ("POCL_PTHREAD_SKIP_CLAIMED");
  if (v != NULL && !pts_parse_switch (v, &c->skip_claimed))
    {
      c->skip_claimed = true;
      warn_bad_value ("POCL_PTHREAD_SKIP_CLAIMED", v, "0, 1", "1");
    }

  c->affinity = false;
  v = getenv_fn ("POCL_AFFINITY");
  if (v != NULL && !pts_parse_switch (v, &c->affinity))
    {
      c->affinity = false;
      warn_bad_value ("POCL_AFFINITY", v, "0, 1", "0");
    }

  c->spin_us = PTS_SPIN_US_DEFAULT;
  v = getenv_fn ("POCL_PTHREAD_SPIN_US");
  if (v != NULL && !pts_parse_uint (v, PTS_SPIN_US_MAX, &c->spin_us))
    {
      char accepted[64], used[32];
      snprintf (accepted, sizeof (accepted), "a whole number 0..%u",
                PTS_SPIN_US_MAX);
      snprintf (used, sizeof (used), "%u", PTS_SPIN_US_DEFAULT);
      c->spin_us = PTS_SPIN_US_DEFAULT;
      warn_bad_value ("POCL_PTHREAD_SPIN_US", v, accepted, used);
    }
}

unsigned
pts_config_thread_count (char *(*getenv_fn) (const char *), unsigned cpus)
{
  static const char *const names[]
      = { "POCL_MAX_PTHREAD_COUNT", "POCL_CPU_MAX_CU_COUNT",
          "POCL_MAX_COMPUTE_UNITS" };
  enum
  {
    NVARS = sizeof (names) / sizeof (names[0])
  };
  const unsigned limit = cpus > PTS_THREADS_MAX ? cpus : PTS_THREADS_MAX;
  const char *values[NVARS];
  unsigned parsed[NVARS];
  bool ok[NVARS];
  bool any_set = false;
  unsigned result = 0;

  for (unsigned i = 0; i < NVARS; ++i)
    {
      values[i] = getenv_fn (names[i]);
      ok[i] = values[i] != NULL
              && pts_parse_uint (values[i], UINT_MAX, &parsed[i])
              && parsed[i] > 0;
      any_set |= values[i] != NULL;
      if (ok[i] && result == 0)
        result = parsed[i] < limit ? parsed[i] : limit;
    }
  if (!any_set)
    return 0;
  if (result == 0)
    result = cpus > 0 ? cpus : 1;

  /* Warn once the outcome is known, so each warning says what is used.  */
  char accepted[64], used[48];
  snprintf (accepted, sizeof (accepted), "a whole number 1..%u", limit);
  snprintf (used, sizeof (used), "%u threads", result);
  for (unsigned i = 0; i < NVARS; ++i)
    {
      if (values[i] != NULL && (!ok[i] || parsed[i] > limit))
        warn_bad_value (names[i], values[i], accepted, used);
    }
  return result;
}
