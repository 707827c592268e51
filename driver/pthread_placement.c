/* pthread_placement.c - thread placement for POCL_AFFINITY=1 and affinity
   domains; see the header for the rule.

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

/* The levels the threads are divided by, outermost first; the CPUs of a
   core follow, by SMT rank.  */
enum
{
  LEVEL_NODE = PT_DOMAIN_NUMA,
  LEVEL_L4 = PT_DOMAIN_L4,
  LEVEL_L3 = PT_DOMAIN_L3,
  LEVEL_L2 = PT_DOMAIN_L2,
  LEVEL_CORE, /* the core, below its caches; not a domain */
  NUM_LEVELS
};

/* The key of a CPU in a domain; 0 for a cache level it has no
   information on.  */
static int
domain_key (const pt_cpu *c, pt_domain domain)
{
  switch (domain)
    {
    case PT_DOMAIN_NUMA:
      return c->node;
    case PT_DOMAIN_L4:
      return c->cache[3];
    case PT_DOMAIN_L3:
      return c->cache[2];
    case PT_DOMAIN_L2:
      return c->cache[1];
    default:
      return c->cache[0];
    }
}

static int
level_key (const pt_cpu *c, int level)
{
  return level == LEVEL_CORE ? c->core : domain_key (c, (pt_domain)level);
}

static int
by_levels (const void *a, const void *b)
{
  const pt_cpu *x = a, *y = b;
  for (int level = 0; level < NUM_LEVELS; ++level)
    {
      int kx = level_key (x, level), ky = level_key (y, level);
      if (kx != ky)
        return kx < ky ? -1 : 1;
    }
  if (x->smt != y->smt)
    return x->smt < y->smt ? -1 : 1;
  return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Largest-remainder shares of q threads over n groups of size[i] CPUs
   (total CPUs in all), into quota[]; with q >= n every group gets one,
   taken from the group with the most.  rest[] is scratch.  */
static void
share_out (const unsigned *size, unsigned n, unsigned total, unsigned q,
           unsigned *quota, unsigned long long *rest)
{
  unsigned given = 0;
  for (unsigned g = 0; g < n; ++g)
    {
      unsigned long long share = (unsigned long long)q * size[g];
      quota[g] = (unsigned)(share / total);
      rest[g] = share % total;
      given += quota[g];
    }
  while (given < q)
    {
      unsigned best = 0;
      for (unsigned g = 1; g < n; ++g)
        if (rest[g] > rest[best])
          best = g;
      quota[best]++;
      rest[best] = 0;
      given++;
    }
  if (q >= n)
    for (unsigned g = 0; g < n; ++g)
      if (quota[g] == 0)
        {
          unsigned most = 0;
          for (unsigned m = 1; m < n; ++m)
            if (quota[m] > quota[most])
              most = m;
          quota[most]--;
          quota[g]++;
        }
}

/* Places q threads, numbered from *t on, on the CPUs s[lo, hi), which
   share every level above `level` (s sorted by by_levels).  Within a node,
   more threads than CPUs go round in turns of one thread per CPU; the
   nodes themselves get their proportional shares first, so that a node's
   threads stay consecutive.  Returns false if it ran out of memory.  */
static bool
place_group (const pt_cpu *s, unsigned lo, unsigned hi, unsigned q, int level,
             int *cpu_of, int *node_of, unsigned *t)
{
  unsigned count = hi - lo;
  if (q > count && level > LEVEL_NODE)
    {
      for (unsigned done = 0; done < q; done += count)
        if (!place_group (s, lo, hi, q - done < count ? q - done : count,
                          level, cpu_of, node_of, t))
          return false;
      return true;
    }
  if (level == NUM_LEVELS)
    {
      /* One core's CPUs, by SMT rank: q <= count here.  */
      for (unsigned j = 0; j < q; ++j, ++*t)
        {
          cpu_of[*t] = s[lo + j].cpu;
          node_of[*t] = s[lo + j].node;
        }
      return true;
    }
  unsigned groups = 0;
  for (unsigned i = lo; i < hi; ++i)
    groups
        += i == lo || level_key (&s[i], level) != level_key (&s[i - 1], level);
  if (groups == 1)
    return place_group (s, lo, hi, q, level + 1, cpu_of, node_of, t);
  unsigned *first = malloc ((groups + 1) * sizeof (unsigned));
  unsigned *size = malloc (groups * sizeof (unsigned));
  unsigned *quota = malloc (groups * sizeof (unsigned));
  unsigned long long *rest = malloc (groups * sizeof (unsigned long long));
  bool ok = first && size && quota && rest;
  if (ok)
    {
      unsigned g = 0;
      for (unsigned i = lo; i < hi; ++i)
        if (i == lo
            || level_key (&s[i], level) != level_key (&s[i - 1], level))
          first[g++] = i;
      first[groups] = hi;
      for (g = 0; g < groups; ++g)
        size[g] = first[g + 1] - first[g];
      share_out (size, groups, count, q, quota, rest);
      for (g = 0; ok && g < groups; ++g)
        ok = place_group (s, first[g], first[g + 1], quota[g], level + 1,
                          cpu_of, node_of, t);
    }
  free (first);
  free (size);
  free (quota);
  free (rest);
  return ok;
}

bool
pt_place (const pt_cpu *cpus, unsigned ncpus, unsigned nthreads, int *cpu_of,
          int *node_of)
{
  pt_cpu *sorted = malloc (ncpus * sizeof (pt_cpu));
  unsigned t = 0;
  if (sorted != NULL)
    {
      memcpy (sorted, cpus, ncpus * sizeof (pt_cpu));
      qsort (sorted, ncpus, sizeof (pt_cpu), by_levels);
      if (!place_group (sorted, 0, ncpus, nthreads, LEVEL_NODE, cpu_of,
                        node_of, &t))
        t = 0;
    }
  if (t != nthreads)
    /* No memory for the nice placement: thread t on allowed CPU t mod n,
       still within the allowed set.  */
    for (t = 0; t < nthreads; ++t)
      {
        cpu_of[t] = cpus[t % ncpus].cpu;
        node_of[t] = cpus[t % ncpus].node;
      }
  free (sorted);
  return nthreads > ncpus;
}

unsigned
pt_domains_known (const pt_cpu *cpus, unsigned ncpus)
{
  unsigned mask = 1u << PT_DOMAIN_NUMA;
  for (int d = PT_DOMAIN_L4; d < PT_NUM_DOMAINS; ++d)
    {
      bool all = ncpus > 0;
      for (unsigned i = 0; i < ncpus; ++i)
        all &= domain_key (&cpus[i], (pt_domain)d) != 0;
      if (all)
        mask |= 1u << d;
    }
  return mask;
}

static const pt_cpu *
cpu_by_number (const pt_cpu *cpus, unsigned ncpus, int cpu)
{
  for (unsigned i = 0; i < ncpus; ++i)
    if (cpus[i].cpu == cpu)
      return &cpus[i];
  return NULL;
}

unsigned
pt_split_by_domain (const pt_cpu *cpus, unsigned ncpus, const int *cpu_of,
                    unsigned begin, unsigned end, pt_domain domain,
                    unsigned *starts, unsigned *counts)
{
  if (begin >= end || !(pt_domains_known (cpus, ncpus) & (1u << domain)))
    return 0;
  unsigned runs = 0;
  int key = 0;
  for (unsigned t = begin; t < end; ++t)
    {
      const pt_cpu *c = cpu_by_number (cpus, ncpus, cpu_of[t]);
      if (c == NULL)
        return 0;
      int k = domain_key (c, domain);
      if (t > begin && k == key)
        {
          counts[runs - 1]++;
          continue;
        }
      /* A new run: its domain must not have had one before.  */
      for (unsigned r = 0; r < runs; ++r)
        {
          const pt_cpu *o = cpu_by_number (cpus, ncpus, cpu_of[starts[r]]);
          if (domain_key (o, domain) == k)
            return 0;
        }
      starts[runs] = t;
      counts[runs] = 1;
      runs++;
      key = k;
    }
  return runs;
}

unsigned
pt_splitting_domains (const pt_cpu *cpus, unsigned ncpus, const int *cpu_of,
                      unsigned begin, unsigned end)
{
  /* One thread is within one domain of every kind.  */
  if (end <= begin + 1)
    return 0;
  unsigned *starts = malloc ((end - begin) * sizeof (unsigned));
  unsigned *counts = malloc ((end - begin) * sizeof (unsigned));
  unsigned mask = 0;
  for (int d = 0; starts && counts && d < PT_NUM_DOMAINS; ++d)
    if (pt_split_by_domain (cpus, ncpus, cpu_of, begin, end, (pt_domain)d,
                            starts, counts)
        >= 2)
      mask |= 1u << d;
  free (starts);
  free (counts);
  return mask;
}

pt_domain
pt_next_partitionable (const pt_cpu *cpus, unsigned ncpus, const int *cpu_of,
                       unsigned begin, unsigned end)
{
  unsigned mask = pt_splitting_domains (cpus, ncpus, cpu_of, begin, end);
  return mask != 0 ? (pt_domain)__builtin_ctz (mask) : PT_NUM_DOMAINS;
}

unsigned
pt_domain_cpus (const pt_cpu *cpus, unsigned ncpus, int home, unsigned domains,
                int *out)
{
  const pt_cpu *h = cpu_by_number (cpus, ncpus, home);
  if (h == NULL)
    return 0;
  /* Only domains known on every CPU: an unknown cache's key is 0 on all
     of them and would match everywhere.  */
  domains &= pt_domains_known (cpus, ncpus);
  unsigned n = 0;
  for (unsigned i = 0; i < ncpus; ++i)
    {
      bool shares = true;
      for (int d = 0; d < PT_NUM_DOMAINS; ++d)
        if (domains & (1u << d))
          shares &= domain_key (&cpus[i], (pt_domain)d)
                    == domain_key (h, (pt_domain)d);
      if (shares)
        out[n++] = cpus[i].cpu;
    }
  return n;
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

/* cache[k - 1] of cpu for its data or unified caches of levels 1 to 4,
   named by the first CPU that shares each (plus one, as 0 is unknown):
   /sys/devices/system/cpu/cpu<N>/cache/index<I>/{level,type,
   shared_cpu_list}.  Left 0 where sysfs has nothing.  */
static __attribute__ ((unused)) void
read_caches (int cpu, int *cache)
{
  for (int i = 0; i < 16; ++i)
    {
      char path[160], type[32] = "";
      snprintf (path, sizeof (path),
                "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
      int level = read_int (path);
      if (level < 0)
        break;
      snprintf (path, sizeof (path),
                "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
      FILE *f = fopen (path, "r");
      if (f != NULL)
        {
          if (fscanf (f, "%31s", type) != 1)
            type[0] = '\0';
          fclose (f);
        }
      if (level < 1 || level > PT_CACHE_LEVELS
          || strcmp (type, "Instruction") == 0)
        continue;
      snprintf (path, sizeof (path),
                "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
                cpu, i);
      int first = read_int (path);
      if (first >= 0)
        cache[level - 1] = first + 1;
    }
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
      read_caches (cpu, c->cache);
    }
  *ncpus = k;
  return cpus;
#endif
}
