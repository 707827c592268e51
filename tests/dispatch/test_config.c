/* test_config.c - parsing of the driver's environment variables, with a
   stand-in environment: accepted spellings, and for anything else the
   default and exactly one warning naming the value and the accepted ones.
   Every row of the settings table (pthread_config.h) gets the same values
   (empty, garbage, negative, huge, mixed case, blanks around), and the
   warning is checked byte for byte.

   test_config --markdown prints the settings table as docs/settings.md's
   table (the test docs_settings compares the two).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
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

/* The warning for NAME=VALUE, byte for byte as the driver prints it.  */
static void
expected_warning (char *buf, size_t size, const char *name, const char *value,
                  const char *accepted, const char *used)
{
  snprintf (buf, size,
            "pocl: warning: %s='%s' is not accepted (accepted: %s); "
            "using %s\n",
            name, value, accepted, used);
}

/* What the table must say for each row, written out here so that a
   changed text (tests and scripts grep for them) or a row without a test
   fails.  In the table's (docs/settings.md's) order.  */
static const struct
{
  const char *name, *accepted, *used;
} rows_expected[] = {
  { "POCL_PTHREAD_SCHEDULE", "static, guided", "static" },
  { "POCL_AFFINITY", "0, 1", "0" },
  { "POCL_PTHREAD_SPIN_US", "a whole number 0..100000", "50" },
  { "POCL_PTHREAD_HOST_GROUPS", "a whole number 0..100000",
    "any size on one NUMA node, else 64" },
  { "POCL_PTHREAD_HOST_SHARE_US", "a whole number 0..100000", "5" },
  { "POCL_PTHREAD_HOST_GRACE_US", "a whole number 0..100000", "30" },
  { "POCL_PTHREAD_STATS", "0, 1", "0" },
  { "POCL_PTHREAD_SKIP_CLAIMED", "0, 1", "1" },
  { "POCL_PTHREAD_STEAL", "0, 1", "1" },
};
#define NROWS (sizeof (rows_expected) / sizeof (rows_expected[0]))

/* The table itself: its rows, their texts, and that they agree with the
   parsers and with the meanings written for docs/settings.md.  */
static void
check_table (void)
{
  CHECK (pts_num_settings == NROWS, "the table has %u rows, want %zu",
         pts_num_settings, NROWS);
  for (unsigned i = 0; i < pts_num_settings && i < NROWS; ++i)
    {
      const pts_setting *s = &pts_settings[i];
      char def[128], want[256];
      CHECK (strcmp (s->name, rows_expected[i].name) == 0,
             "row %u is %s, want %s", i, s->name, rows_expected[i].name);
      CHECK (pts_setting_find (s->name) == s, "%s: pts_setting_find", s->name);
      CHECK (strcmp (s->accepted, rows_expected[i].accepted) == 0,
             "%s: accepted '%s', want '%s'", s->name, s->accepted,
             rows_expected[i].accepted);
      pts_setting_default_text (s, def, sizeof (def));
      CHECK (strcmp (def, rows_expected[i].used) == 0,
             "%s: default '%s', want '%s'", s->name, def,
             rows_expected[i].used);
      /* The default is accepted, and means itself; one that depends on
         the machine is a value for where it does not.  */
      unsigned v = ~0u;
      pts_setting_value_text (s, s->def, def, sizeof (def));
      CHECK (pts_setting_parse (s, def, &v) && v == s->def,
             "%s: the default '%s' does not parse to itself", s->name, def);
      /* A meaning is one cell of a Markdown table.  */
      CHECK (strchr (s->meaning, '|') == NULL
                 && strchr (s->meaning, '\n') == NULL && s->meaning[0] != ' ',
             "%s: the meaning cannot be a table cell", s->name);
      /* The meaning names the default that is used for other values.  */
      if (s->kind == PTS_SETTING_UINT)
        snprintf (want, sizeof (want), "the default is used.");
      else
        snprintf (want, sizeof (want), "`%s` is used.", def);
      CHECK (strstr (s->meaning, want) != NULL,
             "%s: the meaning does not say '%s'", s->name, want);
      /* The accepted text is what the parser accepts.  */
      if (s->kind == PTS_SETTING_UINT)
        {
          snprintf (want, sizeof (want), "a whole number 0..%u", s->max);
          CHECK (s->def <= s->max, "%s: the default is above the maximum",
                 s->name);
        }
      else if (s->kind == PTS_SETTING_SWITCH)
        snprintf (want, sizeof (want), "0, 1");
      else
        {
          want[0] = '\0';
          for (unsigned k = 0; k < WGD_NUM_SCHEDULES; ++k)
            {
              size_t len = strlen (want);
              snprintf (want + len, sizeof (want) - len, "%s%s", k ? ", " : "",
                        wgd_schedule_name ((wgd_schedule)k));
            }
        }
      CHECK (strcmp (s->accepted, want) == 0,
             "%s: accepted '%s', but the parser accepts '%s'", s->name,
             s->accepted, want);
    }
  CHECK (pts_setting_find ("POCL_PTHREAD_NOSUCH") == NULL,
         "pts_setting_find of an unknown name");
  CHECK (pts_setting_find ("POCL_MAX_PTHREAD_COUNT") == NULL,
         "the thread-count variables are not table rows");
}

/* Values no row accepts.  */
static const char *const bad_everywhere[] = {
  "",
  " ",
  "\t\n",
  "garbage",
  "x",
  "-1",
  "-0",
  "+1",
  "99999999999999999999",
  "4294967296",
  "18446744073709551617",
  "1e3",
  "0x1",
  "1.0",
  "1 1",
  "1,0",
  "TRUE",
  "Yes",
  "On",
  "sTaTiC,guided",
  "guided static",
  "'1'",
};

/* Per kind: values that are not accepted, and values that are, with what
   they mean.  */
static const struct
{
  pts_setting_kind kind;
  const char *bad[8];
  struct
  {
    const char *value;
    unsigned want;
  } good[8];
} kind_cases[] = {
  { PTS_SETTING_SWITCH,
    { "2", "10", "01", "00", "static", "O", "l", "1x" },
    { { "0", 0 },
      { "1", 1 },
      { " 1 ", 1 },
      { "\t0\n", 0 },
      { "  1", 1 },
      { "0 ", 0 },
      { NULL, 0 } } },
  { PTS_SETTING_SCHEDULE,
    { "0", "1", "dynamic", "guidedx", "statics", "stat", "gui ded", "auto" },
    { { "static", WGD_SCHED_STATIC },
      { "guided", WGD_SCHED_GUIDED },
      { "GUIDED", WGD_SCHED_GUIDED },
      { " GuIdEd\t", WGD_SCHED_GUIDED },
      { "Static", WGD_SCHED_STATIC },
      { "\nSTATIC ", WGD_SCHED_STATIC },
      { NULL, 0 } } },
  { PTS_SETTING_UINT,
    { "100001", "1000000", "-5", "5us", "fast", "5 5", "\u0663", NULL },
    { { "0", 0 },
      { " 7 ", 7 },
      { "100000", 100000 },
      { "000050", 50 },
      { "\t123\n", 123 },
      { "99999", 99999 },
      { NULL, 0 } } },
};

/* Every field of c is the default, except that of row except (or NULL).  */
static void
check_others_default (const pts_config *c, const pts_setting *except,
                      const char *what)
{
  for (unsigned i = 0; i < pts_num_settings; ++i)
    {
      const pts_setting *s = &pts_settings[i];
      if (s == except)
        continue;
      CHECK (pts_setting_get (c, s) == s->def, "%s: %s is %u, not the default",
             what, s->name, pts_setting_get (c, s));
    }
}

/* One row with one value: accepted (want is its meaning) or not (the
   default and exactly the one warning).  */
static void
check_row_value (const pts_setting *s, const char *value, bool accepted,
                 unsigned want)
{
  pts_config c;
  char msg[1024], expect[1024], used[128];
  read_with (s->name, value, &c, msg, sizeof (msg));
  unsigned got = pts_setting_get (&c, s);
  unsigned parsed = 12345;
  bool ok = pts_setting_parse (s, value, &parsed);
  if (accepted)
    {
      CHECK (msg[0] == '\0', "%s='%s': accepted, but printed: %s", s->name,
             value, msg);
      CHECK (got == want, "%s='%s': %u, want %u", s->name, value, got, want);
      CHECK (ok && parsed == want, "%s='%s': pts_setting_parse", s->name,
             value);
      CHECK (pts_config_is_set (&c, s->name), "%s='%s': not seen as set",
             s->name, value);
    }
  else
    {
      CHECK (!pts_config_is_set (&c, s->name),
             "%s='%s': not accepted, but seen as set", s->name, value);
      pts_setting_default_text (s, used, sizeof (used));
      expected_warning (expect, sizeof (expect), s->name, value, s->accepted,
                        used);
      CHECK (strcmp (msg, expect) == 0,
             "%s='%s': printed\n  '%s'\nwant exactly\n  '%s'", s->name, value,
             msg, expect);
      CHECK (got == s->def, "%s='%s': %u, not the default %u", s->name, value,
             got, s->def);
      CHECK (!ok && parsed == 12345,
             "%s='%s': pts_setting_parse accepted it or changed the result",
             s->name, value);
    }
  check_others_default (&c, s, s->name);
}

/* Every row of the table with every value of bad_everywhere and of its
   kind.  */
static void
check_every_row (void)
{
  for (unsigned i = 0; i < pts_num_settings; ++i)
    {
      const pts_setting *s = &pts_settings[i];
      unsigned nbad = 0, ngood = 0;
      for (size_t b = 0; b < sizeof (bad_everywhere) / sizeof (char *); ++b)
        {
          check_row_value (s, bad_everywhere[b], false, 0);
          ++nbad;
        }
      bool kind_found = false;
      for (size_t k = 0; k < sizeof (kind_cases) / sizeof (kind_cases[0]); ++k)
        {
          if (kind_cases[k].kind != s->kind)
            continue;
          kind_found = true;
          for (int b = 0; b < 8 && kind_cases[k].bad[b]; ++b, ++nbad)
            check_row_value (s, kind_cases[k].bad[b], false, 0);
          for (int g = 0; g < 8 && kind_cases[k].good[g].value; ++g, ++ngood)
            check_row_value (s, kind_cases[k].good[g].value, true,
                             kind_cases[k].good[g].want);
        }
      CHECK (kind_found, "%s: no test values for its kind", s->name);
      /* A UINT row's range ends where the row says.  */
      if (s->kind == PTS_SETTING_UINT)
        {
          char v[32];
          snprintf (v, sizeof (v), "%u", s->max);
          check_row_value (s, v, true, s->max);
          snprintf (v, sizeof (v), "%u", s->max + 1);
          check_row_value (s, v, false, 0);
          nbad++, ngood++;
        }
      printf ("%-26s %2u values not accepted (one exact warning, the "
              "default), %2u accepted\n",
              s->name, nbad, ngood);
    }
}

/* Two bad variables at once: one warning each, in the table's order.  */
static void
check_two_bad (void)
{
  pts_config c;
  char msg[1024], w1[256], w2[256], expect[512];
  fake_set ("POCL_PTHREAD_STEAL", "2", "POCL_PTHREAD_SCHEDULE", "Dynamic",
            "POCL_PTHREAD_STATS", "1");
  capture_begin ();
  pts_config_read (&c, fake_getenv);
  int warnings = capture_end (msg, sizeof (msg));
  expected_warning (w1, sizeof (w1), "POCL_PTHREAD_SCHEDULE", "Dynamic",
                    "static, guided", "static");
  expected_warning (w2, sizeof (w2), "POCL_PTHREAD_STEAL", "2", "0, 1", "1");
  snprintf (expect, sizeof (expect), "%s%s", w1, w2);
  CHECK (warnings == 2 && strcmp (msg, expect) == 0,
         "two bad values: printed '%s', want '%s'", msg, expect);
  CHECK (c.schedule == WGD_SCHED_STATIC && c.steal && c.stats && c.skip_claimed
             && !c.affinity && c.spin_us == PTS_SPIN_US_DEFAULT,
         "two bad values and one good: the fields are wrong");
}

/* The Markdown table: a header, a separator, one line per row.  */
static void
check_markdown (void)
{
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&text, &size);
  if (f == NULL)
    exit (2);
  pts_settings_markdown (f);
  fclose (f);
  unsigned lines = 0;
  for (char *p = text; *p; ++p)
    lines += *p == '\n';
  CHECK (lines == 2 + pts_num_settings, "markdown: %u lines, want %u", lines,
         2 + pts_num_settings);
  static const char header[]
      = "| variable | values | meaning |\n|---|---|---|\n";
  CHECK (strncmp (text, header, strlen (header)) == 0,
         "markdown: the header is wrong: %s", text);
  /* Each row's line: "| `NAME` | values | meaning |".  */
  const char *line = strncmp (text, header, strlen (header)) == 0
                         ? text + strlen (header)
                         : "";
  for (unsigned i = 0; i < pts_num_settings; ++i)
    {
      const char *end = strchr (line, '\n');
      if (end == NULL)
        {
          CHECK (false, "markdown: no line for row %u", i);
          break;
        }
      char start[64];
      snprintf (start, sizeof (start), "| `%s` | ", pts_settings[i].name);
      CHECK (strncmp (line, start, strlen (start)) == 0,
             "markdown: line %u does not start with '%s'", i + 3, start);
      CHECK (end - line > 4 && strncmp (end - 2, " |", 2) == 0,
             "markdown: line %u does not end the row", i + 3);
      line = end + 1;
    }
  /* The values columns, as docs/settings.md has them.  */
  CHECK (strstr (text, "| `POCL_PTHREAD_SCHEDULE` | `static` (default), "
                       "`guided` | ")
             != NULL,
         "markdown: the values of POCL_PTHREAD_SCHEDULE");
  CHECK (strstr (text, "| `POCL_PTHREAD_SPIN_US` | `0` .. `100000`, default "
                       "`50` | ")
             != NULL,
         "markdown: the values of POCL_PTHREAD_SPIN_US");
  CHECK (strstr (text, "| `POCL_PTHREAD_SKIP_CLAIMED` | `1` (default), `0` | ")
             != NULL,
         "markdown: the values of POCL_PTHREAD_SKIP_CLAIMED");
  CHECK (strstr (text, "| `POCL_PTHREAD_STATS` | `0` (default), `1` | ")
             != NULL,
         "markdown: the values of POCL_PTHREAD_STATS");
  free (text);
}

#define MAXP "POCL_MAX_PTHREAD_COUNT"
#define CU "POCL_CPU_MAX_CU_COUNT"
#define MCU "POCL_MAX_COMPUTE_UNITS"

/* The thread-count variables: PoCL's precedence, a warning for each bad
   value, the allowed CPUs when none is good, a cap against typos.  */
static void
check_thread_counts (void)
{
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
      CHECK (ok,
             "thread count case %zu: got %u (want %u), %d warnings "
             "(want %d): %s",
             i, got, cases[i].want, warnings, cases[i].warnings, msg);
    }

  /* The warnings byte for byte, in precedence order.  */
  struct
  {
    const char *v[3];
    unsigned cpus;
    const char *want;
  } exact[] = {
    { { NULL, "-1", NULL },
      2,
      "pocl: warning: POCL_CPU_MAX_CU_COUNT='-1' is not accepted (accepted: "
      "a whole number 1..1024); using 2 threads\n" },
    { { "x", "", "4" },
      2,
      "pocl: warning: POCL_MAX_PTHREAD_COUNT='x' is not accepted (accepted: "
      "a whole number 1..1024); using 4 threads\n"
      "pocl: warning: POCL_CPU_MAX_CU_COUNT='' is not accepted (accepted: a "
      "whole number 1..1024); using 4 threads\n" },
    { { NULL, NULL, "5000" },
      2048,
      "pocl: warning: POCL_MAX_COMPUTE_UNITS='5000' is not accepted "
      "(accepted: a whole number 1..2048); using 2048 threads\n" },
  };
  for (size_t i = 0; i < sizeof (exact) / sizeof (exact[0]); ++i)
    {
      char msg[1024];
      fake_set (MAXP, exact[i].v[0], CU, exact[i].v[1], MCU, exact[i].v[2]);
      capture_begin ();
      pts_config_thread_count (fake_getenv, exact[i].cpus);
      capture_end (msg, sizeof (msg));
      CHECK (strcmp (msg, exact[i].want) == 0,
             "thread count warning %zu: printed\n  '%s'\nwant exactly\n  '%s'",
             i, msg, exact[i].want);
    }
}

/* The schedule row accepts the names of the dispatcher's schedule table
   and says so: a schedule added there must appear in the warning.  */
static void
schedule_names_match (void)
{
  const pts_setting *row = pts_setting_find ("POCL_PTHREAD_SCHEDULE");
  char names[128];
  wgd_schedule_names (names, sizeof (names));
  CHECK (row != NULL && strcmp (row->accepted, names) == 0,
         "POCL_PTHREAD_SCHEDULE accepts '%s' but the dispatcher has '%s'",
         row ? row->accepted : "(no row)", names);
  for (unsigned i = 0; i < WGD_NUM_SCHEDULES; ++i)
    {
      wgd_schedule w;
      CHECK (wgd_parse_schedule (wgd_schedule_name ((wgd_schedule)i), &w)
                 && w == (wgd_schedule)i,
             "schedule %u's name does not parse back", i);
    }
}

int
main (int argc, char **argv)
{
  if (argc == 2 && strcmp (argv[1], "--markdown") == 0)
    {
      pts_settings_markdown (stdout);
      return ferror (stdout) ? 1 : 0;
    }
  if (argc != 1)
    {
      fprintf (stderr, "usage: test_config [--markdown]\n");
      return 2;
    }

  struct
  {
    const char *name, *value;
    int ok;          /* accepted */
    int field, want; /* 0 schedule, 1 stats, 2 skip, 3 affinity, 4 spin,
                        5 steal, 6 host share */
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
    { "POCL_PTHREAD_STEAL", "0", 1, 5, 0 },
    { "POCL_PTHREAD_STEAL", " 1\t", 1, 5, 1 },
    { "POCL_PTHREAD_STEAL", "", 0, 5, 1 },
    { "POCL_PTHREAD_STEAL", "off", 0, 5, 1 },
    { "POCL_PTHREAD_STEAL", "-1", 0, 5, 1 },
    { "POCL_PTHREAD_STEAL", "99999999999999999999", 0, 5, 1 },
    { "POCL_PTHREAD_HOST_SHARE_US", "0", 1, 6, 0 },
    { "POCL_PTHREAD_HOST_SHARE_US", "100000", 1, 6, 100000 },
    { "POCL_PTHREAD_HOST_SHARE_US", "100001", 0, 6,
      PTS_HOST_SHARE_US_DEFAULT },
    { "POCL_PTHREAD_HOST_SHARE_US", "2.5", 0, 6, PTS_HOST_SHARE_US_DEFAULT },
    { "POCL_PTHREAD_HOST_GRACE_US", "0", 1, 7, 0 },
    { "POCL_PTHREAD_HOST_GRACE_US", "100000", 1, 7, 100000 },
    { "POCL_PTHREAD_HOST_GRACE_US", "100001", 0, 7,
      PTS_HOST_GRACE_US_DEFAULT },
    { "POCL_PTHREAD_HOST_GRACE_US", "-1", 0, 7, PTS_HOST_GRACE_US_DEFAULT },
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
                : cases[i].field == 4 ? (int)c.spin_us
                : cases[i].field == 5 ? c.steal
                : cases[i].field == 6 ? (int)c.host_share_us
                                      : (int)c.host_grace_us;
      char quoted[128];
      snprintf (quoted, sizeof (quoted), "%s='%s'", cases[i].name,
                cases[i].value);
      int named = strstr (msg, quoted) != NULL && strstr (msg, "accepted:");
      int ok = got == cases[i].want && warnings == (cases[i].ok ? 0 : 1)
               && (cases[i].ok || named);
      printf ("%-40s -> %d, %d warning(s)%s\n", quoted, got, warnings,
              ok ? "" : "  WRONG");
      CHECK (ok, "%s: got %d (want %d), warnings %d: %s", quoted, got,
             cases[i].want, warnings, msg);
    }
  /* Nothing set: the defaults, no warning.  */
  pts_config c;
  char msg[256];
  int warnings = read_with (NULL, NULL, &c, msg, sizeof (msg));
  CHECK (warnings == 0 && c.schedule == WGD_SCHED_STATIC && !c.stats
             && c.skip_claimed && !c.affinity
             && c.spin_us == PTS_SPIN_US_DEFAULT && c.steal
             && c.host_grace_us == PTS_HOST_GRACE_US_DEFAULT,
         "the defaults are wrong");
  CHECK (msg[0] == '\0', "nothing set, but printed: %s", msg);
  check_others_default (&c, NULL, "nothing set");
  CHECK (c.set == 0 && !pts_config_is_set (&c, "POCL_PTHREAD_HOST_GROUPS")
             && !pts_config_is_set (&c, "POCL_PTHREAD_NOSUCH"),
         "nothing set, but some variable is seen as set");

  check_table ();
  check_every_row ();
  check_two_bad ();
  check_markdown ();
  check_thread_counts ();
  schedule_names_match ();
  return check_finish ("test_config");
}
