/* pthread_placement.h - where the pthread device's threads run with
   POCL_AFFINITY=1, and the affinity domains of a range of them.
   Independent of PoCL.

   The placement is a pure function of the allowed CPUs (with their NUMA
   node, shared caches, physical core and SMT rank) and the number of
   threads.  It divides the threads level by level, node, L4, L3, L2 cache
   and core, each group of CPUs getting threads in proportion to how many
   allowed CPUs it has (largest remainder; with at least as many threads
   as groups, every group gets one), and numbers them in that order:
     - consecutive thread indices stay on one node, and within it on one
       cache, so a thread's static block and the pages it first touches
       stay on that node, and a node or a cache is a range of consecutive
       threads: a sub-device, and an affinity domain (pt_split_by_domain);
     - with at most one thread per core of a cache, no two threads share a
       core: physical cores come before their SMT siblings;
     - with more threads than allowed CPUs, each node's threads wrap around
       its CPUs, all of them once before any twice (the caller warns).

   pt_machine_read() gets the allowed set and topology of this process
   (sched_getaffinity, libnuma for nodes when available, sysfs for cores
   and caches); Linux only, elsewhere it returns NULL and the threads run
   unpinned.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_PLACEMENT_H
#define POCL_STEAL_PTHREAD_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

/* Cache levels 1 to 4 (data or unified caches).  */
#define PT_CACHE_LEVELS 4

typedef struct
{
  int cpu;  /* the OS's CPU number */
  int node; /* NUMA node */
  int core; /* physical core, unique on the machine */
  int smt;  /* rank among the core's hardware threads, 0 first */
  /* cache[k - 1]: which level-k cache the CPU uses, unique on the
     machine, 1 or more; 0 where unknown (no such cache, or no sysfs), so
     that a zero-initialised pt_cpu has no cache information.  */
  int cache[PT_CACHE_LEVELS];
} pt_cpu;

/* Affinity domains, in the order in which OpenCL's NEXT_PARTITIONABLE
   looks at them.  */
typedef enum
{
  PT_DOMAIN_NUMA,
  PT_DOMAIN_L4,
  PT_DOMAIN_L3,
  PT_DOMAIN_L2,
  PT_DOMAIN_L1,
  PT_NUM_DOMAINS
} pt_domain;

/* Places nthreads threads on the ncpus allowed CPUs: cpu_of[t] and
   node_of[t] for each thread t.  Returns true if a CPU got more than one
   thread.  ncpus and nthreads must be at least 1.  */
bool pt_place (const pt_cpu *cpus, unsigned ncpus, unsigned nthreads,
               int *cpu_of, int *node_of);

/* The domains known on every one of the ncpus CPUs, as a bit mask of
   (1 << pt_domain): NUMA always (a machine without NUMA information is
   one node), a cache level when every CPU has one.  */
unsigned pt_domains_known (const pt_cpu *cpus, unsigned ncpus);

/* Splits the threads [begin, end) (thread t on CPU cpu_of[t], one of the
   ncpus CPUs) into the runs of consecutive threads whose CPUs share the
   domain: writes the first thread and the number of threads of each run
   to starts[] and counts[] (room for end - begin entries) and returns
   the number of runs.  Returns 0 when the domain is not known on these
   CPUs or when one domain's threads are not consecutive (then the range
   cannot be split into one sub-device per domain).  */
unsigned pt_split_by_domain (const pt_cpu *cpus, unsigned ncpus,
                             const int *cpu_of, unsigned begin, unsigned end,
                             pt_domain domain, unsigned *starts,
                             unsigned *counts);

/* The domains, as a bit mask of (1 << pt_domain), that split the threads
   [begin, end) into two runs or more (pt_split_by_domain): the domains
   along which a device of those threads can be partitioned.  A range that
   lies within one domain of a kind (one run) is not split by it: a
   partition into one sub-device equal to its parent is no partition, and
   offering it would let a walk that partitions the first sub-device again
   recurse for ever.  */
unsigned pt_splitting_domains (const pt_cpu *cpus, unsigned ncpus,
                               const int *cpu_of, unsigned begin,
                               unsigned end);

/* The first domain, in pt_domain's order, of pt_splitting_domains;
   PT_NUM_DOMAINS if none splits [begin, end).  */
pt_domain pt_next_partitionable (const pt_cpu *cpus, unsigned ncpus,
                                 const int *cpu_of, unsigned begin,
                                 unsigned end);

/* The CPUs among the ncpus that share with CPU `home` every domain in
   `domains` (a bit mask of (1 << pt_domain)), in the order of cpus[],
   home included: written to out[] (room for ncpus entries), their number
   returned; 0 if home is not one of the CPUs.  Domains not known on
   every CPU (pt_domains_known) are left out, so no domains at all give
   every CPU.  What a thread of a domain's sub-device may run on.  */
unsigned pt_domain_cpus (const pt_cpu *cpus, unsigned ncpus, int home,
                         unsigned domains, int *out);

/* The CPUs this process may run on, with their topology, in a malloc'ed
   array.  Sets *numa_known to false (and every node to 0) when NUMA
   information is not available: built without libnuma, or libnuma says
   NUMA is not available.  Returns NULL if the allowed set cannot be read.
 */
pt_cpu *pt_machine_read (unsigned *ncpus, bool *numa_known);

#endif /* POCL_STEAL_PTHREAD_PLACEMENT_H */
