/* pthread_placement.c - thread placement for POCL_AFFINITY=1; see the
   header for the rule.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_placement.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBNUMA
#include <numa.h>
#endif

static int
by_node_smt_core (const void *a, const void *b)
{
  const pt_cpu *x = a, *y = b;
  if (x->node != y->node)
    return x->node < y->node ? -1 : 1;
  if (x->smt != y->smt)
    return x->smt < y->smt ? -1 : 1;
  if (x->core != y->core)
    return x->core < y->core ? -1 : 1;
  return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

bool
pt_place (const pt_cpu *cpus, unsigned ncpus, unsigned nthreads, int *cpu_of,
          int *node_of)
{
  pt_cpu *sorted = malloc (ncpus * sizeof (pt_cpu));
  unsigned *first = malloc ((ncpus + 1) * sizeof (unsigned));
  unsigned *quota = calloc (ncpus, sizeof (unsigned));
  unsigned long long *rest = calloc (ncpus, sizeof (unsigned long long));
  if (!sorted || !first || !quota || !rest)
    {
      /* No memory for the nice placement: thread t on allowed CPU t mod n,
         still within the allowed set.  */
      for (unsigned t = 0; t < nthreads; ++t)
        {
          cpu_of[t] = cpus[t % ncpus].cpu;
          node_of[t] = cpus[t % ncpus].node;
        }
      free (sorted);
      free (first);
      free (quota);
      free (rest);
      return nthreads > ncpus;
    }
  memcpy (sorted, cpus, ncpus * sizeof (pt_cpu));
  qsort (sorted, ncpus, sizeof (pt_cpu), by_node_smt_core);

  /* Nodes: runs of equal node in the sorted array.  */
  unsigned nodes = 0;
  for (unsigned i = 0; i < ncpus; ++i)
    if (i == 0 || sorted[i].node != sorted[i - 1].node)
      first[nodes++] = i;
  first[nodes] = ncpus;

  /* Largest-remainder shares of nthreads in proportion to the CPUs.  */
  unsigned given = 0;
  for (unsigned n = 0; n < nodes; ++n)
    {
      unsigned long long share
          = (unsigned long long)nthreads * (first[n + 1] - first[n]);
      quota[n] = (unsigned)(share / ncpus);
      rest[n] = share % ncpus;
      given += quota[n];
    }
  while (given < nthreads)
    {
      unsigned best = 0;
      for (unsigned n = 1; n < nodes; ++n)
        if (rest[n] > rest[best])
          best = n;
      quota[best]++;
      rest[best] = 0;
      given++;
    }
  /* Every node gets a thread when there are enough threads: a small node
     rounded down to nothing would be left out of "spread over the nodes".
     The thread comes from the node with the most.  */
  if (nthreads >= nodes)
    for (unsigned n = 0; n < nodes; ++n)
      if (quota[n] == 0)
        {
          unsigned most = 0;
          for (unsigned m = 1; m < nodes; ++m)
            if (quota[m] > quota[most])
              most = m;
          quota[most]--;
          quota[n]++;
        }

  unsigned t = 0;
  bool shared = false;
  for (unsigned n = 0; n < nodes; ++n)
    {
      unsigned count = first[n + 1] - first[n];
      if (quota[n] > count)
        shared = true;
      for (unsigned j = 0; j < quota[n]; ++j, ++t)
        {
          const pt_cpu *c = &sorted[first[n] + j % count];
          cpu_of[t] = c->cpu;
          node_of[t] = c->node;
        }
    }

  free (sorted);
  free (first);
  free (quota);
  free (rest);
  return shared;
}

/* Reads a small integer from a sysfs file; -1 if it cannot.  */
static __attribute__ ((unused)) int
read_int (const char *path)
{
  FILE *f = fopen (path, "r");
  int v = -1;
  if (f == NULL)
    return -1;
  if (fscanf (f, "%d", &v) != 1)
    v = -1;
  fclose (f);
  return v;
}

/* Rank of cpu in its core's sibling list ("0,32" or "0-1"); 0 if
   unknown.  */
static __attribute__ ((unused)) int
smt_rank (int cpu)
{
  char path[128], buf[256];
  snprintf (path, sizeof (path),
            "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
            cpu);
  FILE *f = fopen (path, "r");
  if (f == NULL)
    return 0;
  if (fgets (buf, sizeof (buf), f) == NULL)
    buf[0] = '\0';
  fclose (f);
  int rank = 0;
  char *p = buf;
  while (*p)
    {
      char *end;
      long lo = strtol (p, &end, 10), hi = lo;
      if (end == p)
        break;
      p = end;
      if (*p == '-')
        {
          hi = strtol (p + 1, &end, 10);
          p = end;
        }
      for (long c = lo; c <= hi; ++c)
        {
          if (c == cpu)
            return rank;
          ++rank;
        }
      if (*p == ',')
        ++p;
      else
        break;
    }
  return 0;
}

pt_cpu *
pt_machine_read (unsigned *ncpus, bool *numa_known)
{
#ifndef __linux__
  /* The allowed set and the topology are read the Linux way.  */
  (void)ncpus;
  *numa_known = false;
  return NULL;
#else
  cpu_set_t set;
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof (set), &set) != 0)
    return NULL;
  unsigned n = (unsigned)CPU_COUNT (&set);
  if (n == 0)
    return NULL;
  pt_cpu *cpus = calloc (n, sizeof (pt_cpu));
  if (cpus == NULL)
    return NULL;

  *numa_known = false;
#ifdef HAVE_LIBNUMA
  *numa_known = numa_available () >= 0;
#endif

  unsigned k = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && k < n; ++cpu)
    {
      if (!CPU_ISSET (cpu, &set))
        continue;
      char path[128];
      pt_cpu *c = &cpus[k++];
      c->cpu = cpu;
      c->node = 0;
#ifdef HAVE_LIBNUMA
      if (*numa_known)
        {
          int node = numa_node_of_cpu (cpu);
          c->node = node >= 0 ? node : 0;
        }
#endif
      snprintf (path, sizeof (path),
                "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
      int core = read_int (path);
      snprintf (path, sizeof (path),
                "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
                cpu);
      int package = read_int (path);
      /* Unknown topology: every CPU is a core of its own.  */
      c->core = core < 0 ? cpu : (package < 0 ? 0 : package) * 65536 + core;
      c->smt = core < 0 ? 0 : smt_rank (cpu);
    }
  *ncpus = k;
  return cpus;
#endif
}
