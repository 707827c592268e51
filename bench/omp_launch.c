/* omp_launch.c - the floor a thread pool can reach for a stream of small
   parallel loops: libgomp's `omp parallel for schedule(static)` over G
   empty iterations, launched back to back, as cl_launch does with kernels.
   With --stores, each iteration does what one of cl_launch's work-groups
   does, 64 stores of one uint to consecutive elements of a buffer of
   G x 64: the fair floor for the same work.  Prints the median over
   batches of the time per loop, in microseconds.

   Usage: omp_launch --groups G [--stores] [--launches N] [--batches B]
   (threads: OMP_NUM_THREADS; pinning and waiting: OMP_PROC_BIND,
   OMP_PLACES, OMP_WAIT_POLICY)

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"

int
main (int argc, char **argv)
{
  long groups = 64;
  int launches = 100, batches = 30, stores = 0;
  for (int i = 1; i < argc; ++i)
    {
      if (!strcmp (argv[i], "--groups") && i + 1 < argc)
        groups = atol (argv[++i]);
      else if (!strcmp (argv[i], "--stores"))
        stores = 1;
      else if (!strcmp (argv[i], "--launches") && i + 1 < argc)
        launches = atoi (argv[++i]);
      else if (!strcmp (argv[i], "--batches") && i + 1 < argc)
        batches = atoi (argv[++i]);
      else
        {
          fprintf (stderr,
                   "usage: %s --groups G [--stores] [--launches N] "
                   "[--batches B]\n",
                   argv[0]);
          return 2;
        }
    }
  if (groups < 1 || launches < 1 || batches < 1)
    return 2;
  double *t = malloc (batches * sizeof (double));
  /* What the kernel writes: 64 work-items per group, one uint each.  */
  uint32_t *out
      = stores ? calloc ((size_t)groups * 64, sizeof (uint32_t)) : NULL;
  if (t == NULL || (stores && out == NULL))
    return 2;
  for (int b = -1; b < batches; ++b)
    {
      double t0 = bench_now_us ();
      for (int l = 0; l < launches; ++l)
        {
          if (stores)
            {
              /* Each group's 64 stores may be vectorised, as PoCL
                 vectorises a work-group's work-items; the barrier keeps
                 the compiler from merging groups into one memset.  */
#pragma omp parallel for schedule(static)
              for (long g = 0; g < groups; ++g)
                {
                  for (int i = 0; i < 64; ++i)
                    out[g * 64 + i] = 1u;
                  __asm__ __volatile__ ("" ::: "memory");
                }
            }
          else
            {
#pragma omp parallel for schedule(static)
              for (long g = 0; g < groups; ++g)
                __asm__ __volatile__ ("" ::: "memory"); /* empty */
            }
        }
      if (b >= 0)
        t[b] = (bench_now_us () - t0) / launches;
    }
  printf ("groups=%ld stores=%d threads=%d launches=%d batches=%d "
          "median_us=%.3f\n",
          groups, stores, omp_get_max_threads (), launches, batches,
          bench_median (t, batches));
  free (t);
  free (out);
  return 0;
}
