/* pthread_config.c - reads the pthread device's environment variables.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "pthread_config.h"

#include <ctype.h>
#include <limits.h>
#include <string.h>

#define PTS_STR_(x) #x
#define PTS_STR(x) PTS_STR_ (x)

/* The accepted values of a PTS_SETTING_UINT row with largest value max (a
   plain number or a macro of one), as warnings name them.  */
#define PTS_UINT_ACCEPTED(max) "a whole number 0.." PTS_STR (max)

/* 0, and a compile error (an array of negative size) unless cond holds.  */
#define PTS_ZERO_IF(cond) (0 * sizeof (char[(cond) ? 1 : -1]))

/* offsetof (pts_config, member); member must have the size of type, the
   type that the row's kind stores, so that a row of the wrong kind for its
   field does not compile.  */
#define PTS_FIELD(type, member)                                               \
  (offsetof (pts_config, member)                                              \
   + PTS_ZERO_IF (sizeof (((pts_config *)0)->member) == sizeof (type)))

/* The settings table.  The order is docs/settings.md's; each meaning is
   one line of Markdown there (no '|', no newline).  */
const pts_setting pts_settings[] = {
  {
      .name = "POCL_PTHREAD_SCHEDULE",
      .kind = PTS_SETTING_SCHEDULE,
      .def = WGD_SCHED_STATIC,
      .accepted = "static, guided",
      .field = PTS_FIELD (wgd_schedule, schedule),
      .meaning
      = "`static`: one contiguous block of work-groups per thread, claimed "
        "in ranges sized by time (at most half of what the block holds), "
        "with takeover of unstarted blocks and stealing of back halves, and "
        "a latch that makes threads give back what they hold when another "
        "runs out, so that a launch ends within sum / threads + twice its "
        "dearest work-group whatever the costs. `guided`: PoCL's "
        "previous rule, kept exactly: chunks of min(limit, ceil(remaining "
        "/ n), remaining) work-groups, limit = 32 n, or 256 n while more "
        "than 256 n\u00b2 remain, n = the number of threads of the whole "
        "device. Read once, "
        "when the device is first initialised. Case and surrounding blanks "
        "are ignored; any other value prints one warning naming the value "
        "and the accepted ones, and `static` is used.",
  },
  {
      .name = "POCL_AFFINITY",
      .kind = PTS_SETTING_SWITCH,
      .def = 0,
      .accepted = "0, 1",
      .field = PTS_FIELD (bool, affinity),
      .meaning
      = "`1`: pin each worker thread to one CPU of those the process may run "
        "on when the device is created (what `sched_getaffinity` returns, so "
        "`taskset`, cgroups and Julia's own pinning are respected), spread "
        "over the NUMA nodes by the rule below. `0` or unset: no pinning. "
        "Other values: one warning, `0` is used.",
  },
  {
      .name = "POCL_PTHREAD_SPIN_US",
      .kind = PTS_SETTING_UINT,
      .def = PTS_SPIN_US_DEFAULT,
      .max = PTS_SPIN_US_MAX,
      .accepted = PTS_UINT_ACCEPTED (PTS_SPIN_US_MAX),
      .field = PTS_FIELD (unsigned, spin_us),
      .meaning
      = "The most, in microseconds, an idle worker keeps watching for new "
        "work before it sleeps, and a host thread in `clFinish` or "
        "`clWaitForEvents` watches for completion before it sleeps. Waking a "
        "sleeping thread takes tens of microseconds (up to a millisecond in "
        "a VM), most of the cost of a small launch; spinning costs CPU time. "
        "Each thread adapts how long it spins, up to this: it doubles after "
        "a wait that a spin this long would have caught and halves after a "
        "longer one. A spinner never yields the CPU to other programs (that "
        "waited out their time slice, milliseconds), and one that finds it "
        "lost its CPU for a while sleeps at once, so that a futex wake-up "
        "reaches it; so does one that shares its CPU with a busy worker, "
        "or with a thread it just woke, after 2 us, leaving the CPU to it. "
        "`0` turns spinning off. Other values: one warning, the default is "
        "used.",
  },
  {
      .name = "POCL_PTHREAD_HOST_GROUPS",
      .kind = PTS_SETTING_UINT,
      .def = PTS_HOST_GROUPS_DEFAULT,
      .max = PTS_HOST_GROUPS_MAX,
      .accepted = PTS_UINT_ACCEPTED (PTS_HOST_GROUPS_MAX),
      .def_text = "any size on one NUMA node, else 64",
      .field = PTS_FIELD (unsigned, host_groups),
      .meaning
      = "An application thread waiting in `clFinish` or `clWaitForEvents` "
        "runs work-groups of the launches it waits for that have at most "
        "this many work-groups, next to the workers: a launch of one "
        "work-group then needs no worker and no wake-up, and a big one gets "
        "the waiting thread's CPU too. Larger launches are left to the "
        "workers. Unset: launches of any size where the device's threads "
        "are all on one NUMA node (or the node of a CPU is not known), and "
        "of at most 64 work-groups where they span several, so that a big "
        "launch's static blocks, and the pages they first touch, stay with "
        "the threads the placement put them on; a number applies on every "
        "machine. The work-groups run on a stack of the "
        "driver's, as big as a worker's, so any thread runs them, a "
        "coroutine or a thread with a small stack too (x86-64 and AArch64; "
        "elsewhere only a thread whose own stack has room for a kernel, as "
        "much as a worker's); the thread's floating-point "
        "environment is restored afterwards. Markers and barriers it waits "
        "for it completes itself. `0` turns all of it off. Other values: "
        "one warning, the default is used.",
  },
  {
      .name = "POCL_PTHREAD_HOST_SHARE_US",
      .kind = PTS_SETTING_UINT,
      .def = PTS_HOST_SHARE_US_DEFAULT,
      .max = PTS_HOST_SHARE_US_MAX,
      .accepted = PTS_UINT_ACCEPTED (PTS_HOST_SHARE_US_MAX),
      .field = PTS_FIELD (unsigned, host_share_us),
      .meaning
      = "When an application thread runs a launch it waits for (see "
        "`POCL_PTHREAD_HOST_GROUPS`), it first runs work-groups alone, "
        "looking at the clock after 1, 2, 4, ... of them, and shares the "
        "launch with the workers once the work-groups left would take "
        "longer than this many microseconds at the cost of those run since "
        "the previous look (a part shorter than 1 us, whose cost the looks "
        "themselves blur, decides nothing unless it took longer than this): "
        "waking a worker costs about as much as a launch of 64 trivial "
        "work-groups, so such a launch never wakes anybody, nor does one of "
        "1024 on the machines we measured. For work-groups "
        "of equal cost, the workers start at most twice this late (or 2 us), "
        "and two work-groups. A launch of a kernel the thread ran before "
        "under `static` is shared before any of its work-groups runs when "
        "all of them would take longer than twice this at the cost per "
        "work-group measured then. `0` "
        "shares at once. Other values: one warning, the default is used.",
  },
  {
      .name = "POCL_PTHREAD_HOST_GRACE_US",
      .kind = PTS_SETTING_UINT,
      .def = PTS_HOST_GRACE_US_DEFAULT,
      .max = PTS_HOST_GRACE_US_MAX,
      .accepted = PTS_UINT_ACCEPTED (PTS_HOST_GRACE_US_MAX),
      .field = PTS_FIELD (unsigned, host_grace_us),
      .meaning
      = "A launch an application thread enqueues that it may run itself "
        "(see `POCL_PTHREAD_HOST_GROUPS`) is left to that thread for this "
        "many microseconds: a worker takes it only then, unless a thread "
        "waits for something else first, so the thread's `clFinish` or "
        "`clWaitForEvents` finds it still queued. Markers and barriers "
        "likewise. A launch nobody waits for in that time starts this "
        "late. The worker spins meanwhile, so with "
        "`POCL_PTHREAD_SPIN_US=0` there is no grace. `0` leaves nothing to "
        "the thread. Other values: one warning, the default is used.",
  },
  {
      .name = "POCL_PTHREAD_STATS",
      .kind = PTS_SETTING_SWITCH,
      .def = 0,
      .accepted = "0, 1",
      .field = PTS_FIELD (bool, stats),
      .meaning
      = "`1`: when the device is released (or at exit, if no work is "
        "running then; else one line says so, and the workers keep running "
        "for destructors that still enqueue), print to stderr one "
        "line per schedule that had launches or joins, of `key=value` fields "
        "separated by blanks, e.g. `pocl: pthread stats: schedule=static "
        "launches=1 work-groups=1024 home=1020 takeovers=0 steals=2 "
        "cross-node=0 claims=40 gave-back=0 hungry=0 joins=3 "
        "fruitless-joins=0 host=0 threads=4`. The keys: "
        "`schedule` (its name), `launches`, `work-groups`, `home` "
        "(work-groups run by their home thread, the thread whose static "
        "block holds them; for `guided`, the thread the static split would "
        "have given them), `takeovers` (whole-block takeovers), `steals` "
        "(half-steals), `cross-node` (takeovers and steals that crossed NUMA "
        "nodes), `claims` (ranges of work-groups handed out, each one "
        "read-modify-write), `gave-back` (ranges whose unstarted rest went "
        "back to their block, because a thread found nothing to claim, or "
        "because an application thread that ran a launch alone shared it, "
        "see `POCL_PTHREAD_HOST_SHARE_US`), "
        "`hungry` (claims that found nothing while ranges were held), "
        "`joins`, `fruitless-joins` (a thread joined a launch and "
        "found nothing to claim), `host` (work-groups run by application "
        "threads waiting in `clFinish` or `clWaitForEvents`, see "
        "`POCL_PTHREAD_HOST_GROUPS`; they count in `work-groups`, "
        "`takeovers` and `steals` too) and `threads` (the threads of the "
        "pool); "
        "look fields up by key, not by position. Other values: one warning, "
        "`0` is used.",
  },
  {
      .name = "POCL_PTHREAD_SKIP_CLAIMED",
      .kind = PTS_SETTING_SWITCH,
      .def = 1,
      .accepted = "0, 1",
      .field = PTS_FIELD (bool, skip_claimed),
      .meaning
      = "For measurements only. `1`: threads looking for work skip launches "
        "whose work-groups are all claimed, and do not join again a launch "
        "they joined in vain. `0`: they join such launches, as PoCL's driver "
        "did, so that `POCL_PTHREAD_STATS` shows what the skip saves. Other "
        "values: one warning, `1` is used.",
  },
  {
      .name = "POCL_PTHREAD_STEAL",
      .kind = PTS_SETTING_SWITCH,
      .def = 1,
      .accepted = "0, 1",
      .field = PTS_FIELD (bool, steal),
      .meaning
      = "For tests and measurements. `1`: a thread whose block is empty "
        "takes over unstarted blocks and steals halves of others (the static "
        "schedule as described above). `0`: each thread runs exactly its own "
        "static block and nothing else, so a slow or descheduled thread "
        "delays the whole launch; `guided` is not affected. Other values: "
        "one warning, `1` is used.",
  },
};

const unsigned pts_num_settings
    = sizeof (pts_settings) / sizeof (pts_settings[0]);

/* pts_config.set has a bit per row.  */
_Static_assert (sizeof (pts_settings) / sizeof (pts_settings[0])
                    <= 8 * sizeof (unsigned),
                "more rows than bits in pts_config.set");

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

const pts_setting *
pts_setting_find (const char *name)
{
  for (unsigned i = 0; i < pts_num_settings; ++i)
    if (strcmp (pts_settings[i].name, name) == 0)
      return &pts_settings[i];
  return NULL;
}

bool
pts_setting_parse (const pts_setting *s, const char *value, unsigned *out)
{
  switch (s->kind)
    {
    case PTS_SETTING_SWITCH:
      {
        bool b;
        if (!pts_parse_switch (value, &b))
          return false;
        *out = b;
        return true;
      }
    case PTS_SETTING_SCHEDULE:
      {
        wgd_schedule w;
        if (!wgd_parse_schedule (value, &w))
          return false;
        *out = (unsigned)w;
        return true;
      }
    case PTS_SETTING_UINT:
      return pts_parse_uint (value, s->max, out);
    }
  return false;
}

void
pts_setting_value_text (const pts_setting *s, unsigned v, char *buf,
                        size_t size)
{
  if (s->kind == PTS_SETTING_SCHEDULE)
    snprintf (buf, size, "%s", wgd_schedule_name ((wgd_schedule)v));
  else
    snprintf (buf, size, "%u", v);
}

void
pts_setting_default_text (const pts_setting *s, char *buf, size_t size)
{
  if (s->def_text != NULL)
    snprintf (buf, size, "%s", s->def_text);
  else
    pts_setting_value_text (s, s->def, buf, size);
}

unsigned
pts_setting_get (const pts_config *c, const pts_setting *s)
{
  const char *p = (const char *)c + s->field;
  switch (s->kind)
    {
    case PTS_SETTING_SWITCH:
      return *(const bool *)p;
    case PTS_SETTING_SCHEDULE:
      return (unsigned)*(const wgd_schedule *)p;
    case PTS_SETTING_UINT:
      return *(const unsigned *)p;
    }
  return 0;
}

static void
setting_store (pts_config *c, const pts_setting *s, unsigned v)
{
  char *p = (char *)c + s->field;
  switch (s->kind)
    {
    case PTS_SETTING_SWITCH:
      *(bool *)p = v != 0;
      break;
    case PTS_SETTING_SCHEDULE:
      *(wgd_schedule *)p = (wgd_schedule)v;
      break;
    case PTS_SETTING_UINT:
      *(unsigned *)p = v;
      break;
    }
}

void
pts_config_read (pts_config *c, char *(*getenv_fn) (const char *))
{
  memset (c, 0, sizeof (*c));
  for (unsigned i = 0; i < pts_num_settings; ++i)
    {
      const pts_setting *s = &pts_settings[i];
      const char *value = getenv_fn (s->name);
      unsigned v = s->def;
      if (value != NULL && !pts_setting_parse (s, value, &v))
        {
          char used[128];
          pts_setting_default_text (s, used, sizeof (used));
          warn_bad_value (s->name, value, s->accepted, used);
          v = s->def;
        }
      else if (value != NULL)
        c->set |= 1u << i;
      setting_store (c, s, v);
    }
}

bool
pts_config_is_set (const pts_config *c, const char *name)
{
  const pts_setting *s = pts_setting_find (name);
  return s != NULL && (c->set & (1u << (unsigned)(s - pts_settings))) != 0;
}

/* The values column of row s: the accepted values with the default first
   and marked, or the range and the default.  */
static void
markdown_values (FILE *out, const pts_setting *s)
{
  char def[128];
  pts_setting_default_text (s, def, sizeof (def));
  if (s->kind == PTS_SETTING_UINT)
    {
      if (s->def_text != NULL)
        fprintf (out, "`0` .. `%u`, default: %s", s->max, def);
      else
        fprintf (out, "`0` .. `%u`, default `%s`", s->max, def);
      return;
    }
  fprintf (out, "`%s` (default)", def);
  /* The others, in the order of the accepted text ("0, 1").  */
  for (const char *a = s->accepted; *a != '\0';)
    {
      size_t len = strcspn (a, ",");
      if (len != strlen (def) || strncmp (a, def, len) != 0)
        fprintf (out, ", `%.*s`", (int)len, a);
      a += len;
      while (*a == ',' || *a == ' ')
        ++a;
    }
}

void
pts_settings_markdown (FILE *out)
{
  fputs ("| variable | values | meaning |\n|---|---|---|\n", out);
  for (unsigned i = 0; i < pts_num_settings; ++i)
    {
      const pts_setting *s = &pts_settings[i];
      fprintf (out, "| `%s` | ", s->name);
      markdown_values (out, s);
      fprintf (out, " | %s |\n", s->meaning);
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
