/* affinity.c - where the pthread device's worker threads may run.

   Creates the device, runs a kernel (checking its result), then reads
   /proc/self/task/<tid>/{comm,status} of the workers ("pocl-cpu-<i>"):
     pinned:   each worker is allowed exactly one CPU, of those this
               process was allowed (taskset, cgroups); distinct CPUs while
               there are enough of them; with one allowed CPU, all on it;
     unpinned: each worker may run on every CPU the process may.

   Usage: affinity pinned|unpinned

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <dirent.h>
#include <sched.h>

#include "count_kernel.h"

/* Parses "0-3,5" into a cpu_set_t.  */
static void
parse_list (const char *s, cpu_set_t *set)
{
  CPU_ZERO (set);
  while (*s)
    {
      char *end;
      long lo = strtol (s, &end, 10), hi = lo;
      if (end == s)
        break;
      s = end;
      if (*s == '-')
        {
          hi = strtol (s + 1, &end, 10);
          s = end;
        }
      for (long c = lo; c <= hi && c < CPU_SETSIZE; ++c)
        CPU_SET (c, set);
      if (*s == ',')
        ++s;
      else
        break;
    }
}

int
main (int argc, char **argv)
{
  if (argc != 2
      || (strcmp (argv[1], "pinned") != 0
          && strcmp (argv[1], "unpinned") != 0))
    {
      fprintf (stderr, "usage: %s pinned|unpinned\n", argv[0]);
      return 2;
    }
  int pinned = strcmp (argv[1], "pinned") == 0;
  cpu_set_t allowed;
  sched_getaffinity (0, sizeof (allowed), &allowed);
  int nallowed = CPU_COUNT (&allowed);

  cltest_env e;
  cltest_open (&e, count_source, COUNT_OPTIONS);
  cl_uint cus = cltest_compute_units (e.dev);
  count_job j;
  count_job_init (&j, e.ctx, e.prog, 4096);
  count_job_enqueue (&j, e.q, 16);
  CL_OK (clFinish (e.q));
  CHECK (count_job_wrong (&j) == 0, "the kernel ran wrong");

  unsigned workers = 0;
  cpu_set_t used;
  CPU_ZERO (&used);
  DIR *d = opendir ("/proc/self/task");
  struct dirent *ent;
  while (d && (ent = readdir (d)) != NULL)
    {
      char path[512], comm[64] = "", line[512];
      snprintf (path, sizeof (path), "/proc/self/task/%s/comm", ent->d_name);
      FILE *f = fopen (path, "r");
      if (f == NULL)
        continue;
      if (fgets (comm, sizeof (comm), f) == NULL)
        comm[0] = '\0';
      fclose (f);
      if (strncmp (comm, "pocl-cpu-", 9) != 0)
        continue;
      comm[strcspn (comm, "\n")] = '\0';
      snprintf (path, sizeof (path), "/proc/self/task/%s/status", ent->d_name);
      f = fopen (path, "r");
      cpu_set_t set;
      CPU_ZERO (&set);
      char list[256] = "";
      while (f && fgets (line, sizeof (line), f))
        if (strncmp (line, "Cpus_allowed_list:", 18) == 0)
          {
            snprintf (list, sizeof (list), "%s",
                      line + 18 + strspn (line + 18, " \t"));
            list[strcspn (list, "\n")] = '\0';
            parse_list (list, &set);
          }
      if (f)
        fclose (f);
      ++workers;
      cpu_set_t outside;
      CPU_XOR (&outside, &set, &allowed);
      CPU_AND (&outside, &outside, &set);
      printf ("%s: CPUs %s\n", comm, list);
      CHECK (CPU_COUNT (&outside) == 0, "%s may run outside the allowed set",
             comm);
      if (pinned)
        {
          CHECK (CPU_COUNT (&set) == 1, "%s is not pinned to one CPU (%s)",
                 comm, list);
          CPU_OR (&used, &used, &set);
        }
      else
        CHECK (CPU_EQUAL (&set, &allowed),
               "%s is restricted (%s) although POCL_AFFINITY is off", comm,
               list);
    }
  if (d)
    closedir (d);
  CHECK (workers == cus, "found %u workers, the device has %u compute units",
         workers, cus);
  if (pinned)
    {
      unsigned distinct = (unsigned)CPU_COUNT (&used);
      unsigned want = cus < (cl_uint)nallowed ? cus : (unsigned)nallowed;
      CHECK (distinct == want, "%u workers on %u distinct CPUs, want %u",
             workers, distinct, want);
      printf ("%u workers pinned to %u distinct CPUs of %d allowed\n", workers,
              distinct, nallowed);
    }
  count_job_release (&j);
  cltest_close (&e);
  return cltest_finish ("affinity");
}
