/* pthread_placement.h - where the pthread device's threads run with
   POCL_AFFINITY=1.  Independent of PoCL.

   The placement is a pure function of the allowed CPUs (with their NUMA
   node, physical core and SMT rank) and the number of threads:
     - every node that has allowed CPUs gets threads, in proportion to how
       many allowed CPUs it has (largest remainder), and consecutive thread
       indices stay on one node, so a thread's static block and the pages
       it first touches stay on that node, and a sub-device (a range of
       consecutive threads) stays together;
     - within a node, physical cores come before their SMT siblings;
     - with more threads than allowed CPUs, each node's threads wrap around
       its CPUs (the caller warns once).

   pt_machine_read() gets the allowed set and topology of this process
   (sched_getaffinity, libnuma for nodes when available, sysfs for cores);
   Linux only, elsewhere it returns NULL and the threads run unpinned.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_PLACEMENT_H
#define POCL_STEAL_PTHREAD_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct
{
  int cpu;  /* the OS's CPU number */
  int node; /* NUMA node */
  int core; /* physical core, unique on the machine */
  int smt;  /* rank among the core's hardware threads, 0 first */
} pt_cpu;

/* Places nthreads threads on the ncpus allowed CPUs: cpu_of[t] and
   node_of[t] for each thread t.  Returns true if a CPU got more than one
   thread.  ncpus and nthreads must be at least 1.  */
bool pt_place (const pt_cpu *cpus, unsigned ncpus, unsigned nthreads,
               int *cpu_of, int *node_of);

/* The CPUs this process may run on, with their topology, in a malloc'ed
   array.  Sets *numa_known to false (and every node to 0) when NUMA
   information is not available: built without libnuma, or libnuma says
   NUMA is not available.  Returns NULL if the allowed set cannot be read.
 */
pt_cpu *pt_machine_read (unsigned *ncpus, bool *numa_known);

#endif /* POCL_STEAL_PTHREAD_PLACEMENT_H */
