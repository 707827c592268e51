/* test_placement.c - the POCL_AFFINITY placement on made-up machines, and
   reading this machine.

   Placement: 2 nodes x 32 CPUs with SMT, 4 uneven nodes, holes in the
   allowed set, 1 CPU, more threads than CPUs, sub-device ranges; and this
   machine (also under `taskset -c 0`, the test placement_taskset).
   Affinity domains of thread ranges: NUMA, L3, L2, L1 on 2 nodes with an
   L3 per 4 cores and SMT; L2s shared by 4, 2 and 1 CPUs on 4 uneven
   nodes, with holes; no cache information; an L3 shared by two nodes;
   ranges that start inside a domain, threads that do not keep a domain
   together, and the next partitionable domain of a device, a node, a
   cache and a core.  The CPUs a domain sub-device's thread binds to
   without POCL_AFFINITY (pt_domain_cpus): one domain, nested domains, an
   L3 shared by two nodes, an unknown domain, none.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "pthread_placement.h"

#define MAXT 256

typedef struct
{
  int cpu[MAXT];
  int node[MAXT];
  bool shared;
} placement;

static placement
place (const pt_cpu *cpus, unsigned n, unsigned threads)
{
  placement p;
  memset (&p, 0, sizeof (p));
  p.shared = pt_place (cpus, n, threads, p.cpu, p.node);
  return p;
}

static const pt_cpu *
find (const pt_cpu *cpus, unsigned n, int cpu)
{
  for (unsigned i = 0; i < n; ++i)
    if (cpus[i].cpu == cpu)
      return &cpus[i];
  return NULL;
}

/* Properties every placement has.  */
static void
check_general (const char *what, const pt_cpu *cpus, unsigned n,
               unsigned threads, const placement *p)
{
  int nodes_max = 0;
  for (unsigned i = 0; i < n; ++i)
    if (cpus[i].node + 1 > nodes_max)
      nodes_max = cpus[i].node + 1;
  unsigned per_node[64] = { 0 }, cpus_per_node[64] = { 0 }, used[1024] = { 0 };
  for (unsigned i = 0; i < n; ++i)
    cpus_per_node[cpus[i].node]++;
  for (unsigned t = 0; t < threads; ++t)
    {
      const pt_cpu *c = find (cpus, n, p->cpu[t]);
      CHECK (c != NULL, "%s: thread %u on CPU %d, not allowed", what, t,
             p->cpu[t]);
      if (c == NULL)
        return;
      CHECK (c->node == p->node[t], "%s: thread %u: node %d, CPU's is %d",
             what, t, p->node[t], c->node);
      CHECK (t == 0 || p->node[t] >= p->node[t - 1],
             "%s: thread %u on node %d after node %d: not consecutive", what,
             t, p->node[t], p->node[t - 1]);
      per_node[c->node]++;
      used[c->cpu]++;
    }
  unsigned nodes_with_cpus = 0;
  for (int k = 0; k < nodes_max; ++k)
    nodes_with_cpus += cpus_per_node[k] > 0;
  for (int k = 0; k < nodes_max; ++k)
    {
      if (cpus_per_node[k] == 0)
        continue;
      double fair = (double)threads * cpus_per_node[k] / n;
      CHECK (per_node[k] + 1.0 >= fair && per_node[k] <= fair + 1.0 + 1e-9,
             "%s: node %d got %u threads, its share is %.2f", what, k,
             per_node[k], fair);
      if (threads >= nodes_with_cpus)
        CHECK (per_node[k] > 0, "%s: node %d got no thread", what, k);
    }
  if (threads <= n)
    {
      CHECK (!p->shared, "%s: %u threads on %u CPUs reported as shared", what,
             threads, n);
      for (unsigned i = 0; i < n; ++i)
        CHECK (used[cpus[i].cpu] <= 1, "%s: CPU %d got %u threads", what,
               cpus[i].cpu, used[cpus[i].cpu]);
    }
  else
    CHECK (p->shared, "%s: %u threads on %u CPUs not reported as shared", what,
           threads, n);
}

/* 2 nodes x 16 cores x 2 SMT, numbered as Linux does on such a machine:
   0-15 node 0, 16-31 node 1, then their siblings 32-47 and 48-63.  */
static void
two_nodes_smt (void)
{
  pt_cpu m[64];
  for (int c = 0; c < 64; ++c)
    {
      int core = c % 32;
      m[c] = (pt_cpu){ c, core / 16, core, c / 32 };
    }
  static const unsigned counts[] = { 1, 2, 4, 16, 32, 33, 64, 100 };
  for (unsigned i = 0; i < sizeof (counts) / sizeof (counts[0]); ++i)
    {
      unsigned T = counts[i];
      placement p = place (m, 64, T);
      char what[64];
      snprintf (what, sizeof (what), "2x16x2, %u threads", T);
      check_general (what, m, 64, T, &p);
      /* Cores before siblings: with up to 32 threads, no SMT sibling.  */
      if (T <= 32)
        for (unsigned t = 0; t < T; ++t)
          CHECK (p.cpu[t] < 32, "%s: thread %u on sibling CPU %d", what, t,
                 p.cpu[t]);
    }
  placement p = place (m, 64, 4);
  CHECK (p.cpu[0] == 0 && p.cpu[1] == 1 && p.cpu[2] == 16 && p.cpu[3] == 17,
         "2x16x2, 4 threads: CPUs %d %d %d %d, want 0 1 16 17", p.cpu[0],
         p.cpu[1], p.cpu[2], p.cpu[3]);
  p = place (m, 64, 64);
  CHECK (p.cpu[0] == 0 && p.cpu[1] == 32 && p.cpu[2] == 1 && p.cpu[31] == 47
             && p.cpu[32] == 16 && p.cpu[33] == 48,
         "2x16x2, 64 threads: core by core, each core's siblings together, "
         "node by node");
  printf (
      "2 nodes x 16 cores x 2 SMT: checked; 4 threads on CPUs 0 1 16 17\n");
}

/* 4 nodes of 8, 4, 2 and 2 CPUs.  */
static void
uneven_nodes (void)
{
  pt_cpu m[16];
  static const int node_of[16]
      = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3 };
  for (int c = 0; c < 16; ++c)
    m[c] = (pt_cpu){ c, node_of[c], c, 0 };
  for (unsigned T = 1; T <= 40; ++T)
    {
      char what[64];
      snprintf (what, sizeof (what), "4 uneven nodes, %u threads", T);
      placement p = place (m, 16, T);
      check_general (what, m, 16, T, &p);
    }
  placement p = place (m, 16, 8);
  int per[4] = { 0 };
  for (int t = 0; t < 8; ++t)
    per[p.node[t]]++;
  CHECK (per[0] == 4 && per[1] == 2 && per[2] == 1 && per[3] == 1,
         "4 uneven nodes, 8 threads: %d %d %d %d per node, want 4 2 1 1",
         per[0], per[1], per[2], per[3]);
  printf ("4 uneven nodes (8, 4, 2, 2 CPUs): 8 threads as %d %d %d %d\n",
          per[0], per[1], per[2], per[3]);
}

/* Allowed set with holes: CPUs 1, 3, 4, 7, 9 of one node.  */
static void
holes (void)
{
  pt_cpu m[5];
  static const int cpu[5] = { 9, 3, 1, 7, 4 }; /* in no order */
  for (int i = 0; i < 5; ++i)
    m[i] = (pt_cpu){ cpu[i], 0, cpu[i], 0 };
  placement p = place (m, 5, 5);
  check_general ("holes, 5 threads", m, 5, 5, &p);
  CHECK (p.cpu[0] == 1 && p.cpu[1] == 3 && p.cpu[2] == 4 && p.cpu[3] == 7
             && p.cpu[4] == 9,
         "holes: CPUs %d %d %d %d %d, want 1 3 4 7 9", p.cpu[0], p.cpu[1],
         p.cpu[2], p.cpu[3], p.cpu[4]);
  p = place (m, 5, 12);
  check_general ("holes, 12 threads", m, 5, 12, &p);
  printf ("holes in the allowed set: only allowed CPUs, in order\n");
}

static void
one_cpu (void)
{
  pt_cpu m[1] = { { 1, 0, 1, 0 } };
  placement p = place (m, 1, 4);
  check_general ("1 CPU, 4 threads", m, 1, 4, &p);
  for (int t = 0; t < 4; ++t)
    CHECK (p.cpu[t] == 1, "1 CPU: thread %d on CPU %d", t, p.cpu[t]);
  printf ("1 CPU allowed, 4 threads: all on CPU 1, reported as shared\n");
}

/* More threads than CPUs: 2 nodes of 2; each node's threads wrap around
   its own CPUs.  */
static void
oversubscribed (void)
{
  pt_cpu m[4]
      = { { 0, 0, 0, 0 }, { 1, 0, 1, 0 }, { 2, 1, 2, 0 }, { 3, 1, 3, 0 } };
  placement p = place (m, 4, 6);
  check_general ("2x2, 6 threads", m, 4, 6, &p);
  static const int want[6] = { 0, 1, 0, 2, 3, 2 };
  for (int t = 0; t < 6; ++t)
    CHECK (p.cpu[t] == want[t], "2x2, 6 threads: thread %d on %d, want %d", t,
           p.cpu[t], want[t]);
  printf ("more threads than CPUs: wrap within each node\n");
}

/* Sub-devices are ranges of consecutive threads: on 2 nodes of 8, the
   threads of a sub-device of the first or second half share a node.  */
static void
subdevice_ranges (void)
{
  pt_cpu m[16];
  for (int c = 0; c < 16; ++c)
    m[c] = (pt_cpu){ c, c / 8, c, 0 };
  placement p = place (m, 16, 16);
  for (int t = 0; t < 8; ++t)
    CHECK (p.node[t] == 0 && p.node[8 + t] == 1,
           "sub-device halves: thread %d on node %d, %d on node %d", t,
           p.node[t], 8 + t, p.node[8 + t]);
  printf ("sub-device ranges [0,8) and [8,16): one node each\n");
}

/* The runs of [begin, end) in a domain, as "start+count ..." (or "none"
   when it cannot be split), into buf.  */
static const char *
split (const pt_cpu *cpus, unsigned n, const int *cpu_of, unsigned begin,
       unsigned end, pt_domain d, char *buf, size_t size)
{
  unsigned starts[MAXT], counts[MAXT];
  unsigned runs
      = pt_split_by_domain (cpus, n, cpu_of, begin, end, d, starts, counts);
  size_t used = 0;
  buf[0] = '\0';
  if (runs == 0)
    snprintf (buf, size, "none");
  for (unsigned r = 0; r < runs && used < size; ++r)
    used += (size_t)snprintf (buf + used, size - used, "%s%u+%u", r ? " " : "",
                              starts[r], counts[r]);
  return buf;
}

/* pt_domain_cpus as text: the CPU numbers separated by commas, or
   "none".  */
static const char *
domain_cpus (const pt_cpu *cpus, unsigned n, int home, unsigned domains,
             char *buf, size_t size)
{
  int out[MAXT];
  unsigned k = pt_domain_cpus (cpus, n, home, domains, out);
  size_t used = 0;
  buf[0] = '\0';
  if (k == 0)
    snprintf (buf, size, "none");
  for (unsigned i = 0; i < k && used < size; ++i)
    used += (size_t)snprintf (buf + used, size - used, "%s%d", i ? "," : "",
                              out[i]);
  return buf;
}

#define CHECK_DOMAIN_CPUS(what, cpus, n, home, domains, want)                 \
  do                                                                          \
    {                                                                         \
      char _buf[1024];                                                        \
      domain_cpus (cpus, n, home, domains, _buf, sizeof (_buf));              \
      CHECK (strcmp (_buf, want) == 0,                                        \
             "%s: CPUs sharing 0x%x with CPU %d: '%s', want '%s'", what,      \
             (unsigned)(domains), home, _buf, want);                          \
    }                                                                         \
  while (0)

#define CHECK_SPLIT(what, cpus, n, p, b, e, d, want)                          \
  do                                                                          \
    {                                                                         \
      char _buf[1024];                                                        \
      split (cpus, n, (p)->cpu, b, e, d, _buf, sizeof (_buf));                \
      CHECK (strcmp (_buf, want) == 0, "%s: [%u, %u) by %s: '%s', want '%s'", \
             what, (unsigned)(b), (unsigned)(e), #d, _buf, want);             \
    }                                                                         \
  while (0)

/* 2 nodes of 8 cores with 2 SMT threads each, an L3 per 4 cores, L2 and
   L1 per core, numbered as Linux does: cores 0-15 are CPUs 0-15, their
   siblings 16-31.  */
static void
domains_two_nodes (void)
{
  pt_cpu m[32];
  for (int c = 0; c < 32; ++c)
    {
      int core = c % 16;
      m[c] = (pt_cpu){ c, core / 8, core, c / 16, { 0 } };
      m[c].cache[0] = m[c].cache[1] = core + 1; /* L1, L2: the core's */
      m[c].cache[2] = (core / 4) * 4 + 1;       /* L3: 4 cores */
    }
  const char *w = "2 nodes, L3 per 4 cores, 32 threads";
  CHECK (pt_domains_known (m, 32)
             == (1u << PT_DOMAIN_NUMA | 1u << PT_DOMAIN_L3 | 1u << PT_DOMAIN_L2
                 | 1u << PT_DOMAIN_L1),
         "%s: domains known 0x%x", w, pt_domains_known (m, 32));
  placement p = place (m, 32, 32);
  check_general (w, m, 32, 32, &p);
  CHECK_SPLIT (w, m, 32, &p, 0, 32, PT_DOMAIN_NUMA, "0+16 16+16");
  CHECK_SPLIT (w, m, 32, &p, 0, 32, PT_DOMAIN_L3, "0+8 8+8 16+8 24+8");
  CHECK_SPLIT (w, m, 32, &p, 8, 16, PT_DOMAIN_L2, "8+2 10+2 12+2 14+2");
  CHECK_SPLIT (w, m, 32, &p, 0, 4, PT_DOMAIN_L1, "0+2 2+2");
  CHECK_SPLIT (w, m, 32, &p, 0, 32, PT_DOMAIN_L4, "none");
  /* A range that starts inside a domain: the runs of what it holds.  */
  CHECK_SPLIT (w, m, 32, &p, 6, 11, PT_DOMAIN_L3, "6+2 8+3");
  /* One domain only means no split: a node is not split by NUMA, an L3
     by NUMA or L3, a core (two SMT threads) by anything.  */
  CHECK_SPLIT (w, m, 32, &p, 0, 16, PT_DOMAIN_NUMA, "0+16");
  CHECK (pt_splitting_domains (m, 32, p.cpu, 0, 32)
                 == (1u << PT_DOMAIN_NUMA | 1u << PT_DOMAIN_L3
                     | 1u << PT_DOMAIN_L2 | 1u << PT_DOMAIN_L1)
             && pt_splitting_domains (m, 32, p.cpu, 0, 16)
                    == (1u << PT_DOMAIN_L3 | 1u << PT_DOMAIN_L2
                        | 1u << PT_DOMAIN_L1)
             && pt_splitting_domains (m, 32, p.cpu, 16, 24)
                    == (1u << PT_DOMAIN_L2 | 1u << PT_DOMAIN_L1)
             && pt_splitting_domains (m, 32, p.cpu, 0, 2) == 0
             && pt_splitting_domains (m, 32, p.cpu, 5, 6) == 0,
         "%s: domains that split the device, a node, an L3, a core, one "
         "thread: 0x%x 0x%x 0x%x 0x%x 0x%x",
         w, pt_splitting_domains (m, 32, p.cpu, 0, 32),
         pt_splitting_domains (m, 32, p.cpu, 0, 16),
         pt_splitting_domains (m, 32, p.cpu, 16, 24),
         pt_splitting_domains (m, 32, p.cpu, 0, 2),
         pt_splitting_domains (m, 32, p.cpu, 5, 6));
  CHECK (pt_next_partitionable (m, 32, p.cpu, 0, 32) == PT_DOMAIN_NUMA
             && pt_next_partitionable (m, 32, p.cpu, 0, 16) == PT_DOMAIN_L3
             && pt_next_partitionable (m, 32, p.cpu, 0, 8) == PT_DOMAIN_L2
             && pt_next_partitionable (m, 32, p.cpu, 0, 2) == PT_NUM_DOMAINS,
         "%s: next partitionable of the device, a node, an L3, a core", w);
  /* Fewer threads than cores: one per core, spread over the L3s.  */
  w = "2 nodes, L3 per 4 cores, 8 threads";
  p = place (m, 32, 8);
  check_general (w, m, 32, 8, &p);
  for (unsigned t = 0; t < 8; ++t)
    CHECK (p.cpu[t] < 16, "%s: thread %u on sibling CPU %d", w, t, p.cpu[t]);
  CHECK_SPLIT (w, m, 32, &p, 0, 8, PT_DOMAIN_L3, "0+2 2+2 4+2 6+2");
  CHECK_SPLIT (w, m, 32, &p, 0, 8, PT_DOMAIN_L2,
               "0+1 1+1 2+1 3+1 4+1 5+1 6+1 7+1");
  /* Threads that do not keep a domain together: no split.  */
  int interleaved[4] = { 0, 4, 1, 5 };
  placement q = p;
  memcpy (q.cpu, interleaved, sizeof (interleaved));
  CHECK_SPLIT ("interleaved L3s", m, 32, &q, 0, 4, PT_DOMAIN_L3, "none");
  /* What a domain sub-device's thread is bound to.  */
  CHECK_DOMAIN_CPUS (w, m, 32, 5, 1u << PT_DOMAIN_NUMA,
                     "0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23");
  CHECK_DOMAIN_CPUS (w, m, 32, 21, 1u << PT_DOMAIN_L3, "4,5,6,7,20,21,22,23");
  CHECK_DOMAIN_CPUS (w, m, 32, 21, 1u << PT_DOMAIN_L2, "5,21");
  /* Nested domains narrow; an unknown one (L4) is left out; none at all
     leave every CPU; a CPU that is not there has none.  */
  CHECK_DOMAIN_CPUS (w, m, 32, 9,
                     1u << PT_DOMAIN_NUMA | 1u << PT_DOMAIN_L3
                         | 1u << PT_DOMAIN_L4,
                     "8,9,10,11,24,25,26,27");
  CHECK_DOMAIN_CPUS (w, m, 32, 9, 1u << PT_DOMAIN_L4,
                     "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,"
                     "21,22,23,24,25,26,27,28,29,30,31");
  CHECK_DOMAIN_CPUS (w, m, 32, 40, 1u << PT_DOMAIN_NUMA, "none");
  printf ("2 nodes x 2 L3 x 4 cores x 2 SMT: NUMA, L3, L2 and L1 ranges and "
          "each domain's CPUs as expected\n");
}

/* 4 nodes whose L2s are shared by different CPU counts: node 0 has 8 CPUs
   with an L2 per 4, node 1 4 with an L2 per 2, nodes 2 and 3 2 CPUs with
   an L2 each; no L3, no L1 information; allowed: all but CPUs 5 and 13
   (holes).  */
static void
domains_uneven (void)
{
  static const int node_of[16]
      = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3 };
  static const int l2_of[16]
      = { 1, 1, 1, 1, 5, 5, 5, 5, 9, 9, 11, 11, 13, 14, 15, 16 };
  pt_cpu all[16], m[14];
  unsigned n = 0;
  for (int c = 0; c < 16; ++c)
    {
      all[c] = (pt_cpu){ c, node_of[c], c, 0, { 0 } };
      all[c].cache[1] = l2_of[c];
    }
  const char *w = "4 uneven nodes, uneven L2s, 16 threads";
  placement p = place (all, 16, 16);
  check_general (w, all, 16, 16, &p);
  CHECK (pt_domains_known (all, 16)
             == (1u << PT_DOMAIN_NUMA | 1u << PT_DOMAIN_L2),
         "%s: domains known 0x%x", w, pt_domains_known (all, 16));
  CHECK_SPLIT (w, all, 16, &p, 0, 16, PT_DOMAIN_NUMA, "0+8 8+4 12+2 14+2");
  CHECK_SPLIT (w, all, 16, &p, 0, 16, PT_DOMAIN_L2,
               "0+4 4+4 8+2 10+2 12+1 13+1 14+1 15+1");
  CHECK_SPLIT (w, all, 16, &p, 0, 16, PT_DOMAIN_L3, "none");
  for (int c = 0; c < 16; ++c)
    if (c != 5 && c != 13)
      m[n++] = all[c];
  w = "4 uneven nodes, uneven L2s, holes at CPUs 5 and 13, 14 threads";
  p = place (m, n, 14);
  check_general (w, m, n, 14, &p);
  CHECK_SPLIT (w, m, n, &p, 0, 14, PT_DOMAIN_NUMA, "0+7 7+4 11+1 12+2");
  CHECK_SPLIT (w, m, n, &p, 0, 14, PT_DOMAIN_L2,
               "0+4 4+3 7+2 9+2 11+1 12+1 13+1");
  CHECK (pt_next_partitionable (m, n, p.cpu, 11, 12) == PT_NUM_DOMAINS
             && pt_next_partitionable (m, n, p.cpu, 0, 7) == PT_DOMAIN_L2,
         "%s: next partitionable of one thread, of node 0", w);
  CHECK_DOMAIN_CPUS (w, m, n, 4, 1u << PT_DOMAIN_NUMA, "0,1,2,3,4,6,7");
  CHECK_DOMAIN_CPUS (w, m, n, 4, 1u << PT_DOMAIN_L2, "4,6,7");
  CHECK_DOMAIN_CPUS (w, m, n, 12, 1u << PT_DOMAIN_NUMA, "12");
  printf ("4 uneven nodes, L2s of 4, 2 and 1 CPUs, with holes: ranges and "
          "each domain's CPUs as expected\n");
}

/* An L3 shared by two NUMA nodes (as with sub-NUMA clustering): the
   CPUs of both domains are those of the node within that L3.  */
static void
domains_cache_across_nodes (void)
{
  pt_cpu m[8];
  for (int c = 0; c < 8; ++c)
    {
      m[c] = (pt_cpu){ c, c / 2, c, 0, { 0 } };
      m[c].cache[2] = (c / 4) * 4 + 1;
    }
  const char *w = "L3 across 2 nodes";
  CHECK_DOMAIN_CPUS (w, m, 8, 5, 1u << PT_DOMAIN_L3, "4,5,6,7");
  CHECK_DOMAIN_CPUS (w, m, 8, 5, 1u << PT_DOMAIN_NUMA, "4,5");
  CHECK_DOMAIN_CPUS (w, m, 8, 5, 1u << PT_DOMAIN_NUMA | 1u << PT_DOMAIN_L3,
                     "4,5");
  printf ("an L3 shared by two nodes: a thread of both domains keeps to its "
          "node\n");
}

/* No cache information (sysfs without caches): NUMA only, one domain per
   node.  */
static void
domains_unknown (void)
{
  pt_cpu m[4] = { { 0, 0, 0, 0, { 0 } },
                  { 1, 0, 1, 0, { 0 } },
                  { 2, 0, 2, 0, { 0 } },
                  { 3, 0, 3, 0, { 0 } } };
  placement p = place (m, 4, 4);
  CHECK (pt_domains_known (m, 4) == 1u << PT_DOMAIN_NUMA,
         "no caches: domains known 0x%x", pt_domains_known (m, 4));
  CHECK_SPLIT ("one node, no caches", m, 4, &p, 0, 4, PT_DOMAIN_NUMA, "0+4");
  CHECK_SPLIT ("one node, no caches", m, 4, &p, 0, 4, PT_DOMAIN_L2, "none");
  /* One node is one NUMA domain: nothing splits it (a partition into one
     sub-device equal to its parent made a conformance walk recurse for
     ever).  */
  CHECK (pt_splitting_domains (m, 4, p.cpu, 0, 4) == 0
             && pt_splitting_domains (m, 4, p.cpu, 1, 3) == 0
             && pt_next_partitionable (m, 4, p.cpu, 0, 4) == PT_NUM_DOMAINS,
         "one node, no caches: splitting domains 0x%x, next %d",
         pt_splitting_domains (m, 4, p.cpu, 0, 4),
         (int)pt_next_partitionable (m, 4, p.cpu, 0, 4));
  CHECK_DOMAIN_CPUS ("one node, no caches", m, 4, 2,
                     1u << PT_DOMAIN_NUMA | 1u << PT_DOMAIN_L2, "0,1,2,3");
  printf ("one node without cache information: one NUMA domain, no cache "
          "domains, nothing splits it\n");
}

/* This machine: the allowed set, as sched_getaffinity gives it.  */
static void
this_machine (void)
{
  unsigned n = 0;
  bool numa = false;
  pt_cpu *cpus = pt_machine_read (&n, &numa);
  cpu_set_t set;
  CPU_ZERO (&set);
  sched_getaffinity (0, sizeof (set), &set);
  CHECK (cpus != NULL && n == (unsigned)CPU_COUNT (&set),
         "this machine: read %u CPUs, the affinity mask has %d", n,
         CPU_COUNT (&set));
  for (unsigned i = 0; cpus && i < n; ++i)
    CHECK (CPU_ISSET (cpus[i].cpu, &set), "CPU %d is not allowed",
           cpus[i].cpu);
  printf ("this machine: %u allowed CPUs, NUMA %s:", n,
          numa ? "known" : "unknown");
  for (unsigned i = 0; cpus && i < n && i < 16; ++i)
    printf (" %d(node %d core %d smt %d L1 %d L2 %d L3 %d)", cpus[i].cpu,
            cpus[i].node, cpus[i].core, cpus[i].smt, cpus[i].cache[0] - 1,
            cpus[i].cache[1] - 1, cpus[i].cache[2] - 1);
  printf ("\n");
  if (cpus)
    printf ("this machine: domains known 0x%x\n", pt_domains_known (cpus, n));
  free (cpus);
}

int
main (void)
{
  two_nodes_smt ();
  uneven_nodes ();
  holes ();
  one_cpu ();
  oversubscribed ();
  subdevice_ranges ();
  domains_two_nodes ();
  domains_uneven ();
  domains_cache_across_nodes ();
  domains_unknown ();
  this_machine ();
  return check_finish ("placement");
}
