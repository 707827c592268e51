/* omp_launch.c - the floor a thread pool can reach for a stream of small
   parallel loops: libgomp's `omp parallel for schedule(static)` over G
   empty iterations, launched back to back, as cl_launch does with kernels.
   Prints the median over batches of the time per loop, in microseconds.

   Usage: omp_launch --groups G [--launches N] [--batches B]
   (threads: OMP_NUM_THREADS)

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "bench_util.h"

int
main (int argc, char **argv)
{
  long groups = 64;
  int launches = 100, batches = 30;
  for (int i = 1; i < argc; ++i)
    {
      if (!strcmp (argv[i], "--groups") && i + 1 < argc)
        groups = atol (argv[++i]);
      else if (!strcmp (argv[i], "--launches") && i + 1 < argc)
        launches = atoi (argv[++i]);
      else if (!strcmp (argv[i], "--batches") && i + 1 < argc)
        batches = atoi (argv[++i]);
      else
        {
          fprintf (stderr,
                   "usage: %s --groups G [--launches N] [--batches B]\n",
                   argv[0]);
          return 2;
        }
    }
  if (groups < 1 || launches < 1 || batches < 1)
    return 2;
  double *t = malloc (batches * sizeof (double));
  for (int b = -1; b < batches; ++b)
    {
      double t0 = bench_now_us ();
      for (int l = 0; l < launches; ++l)
        {
#pragma omp parallel for schedule(static)
          for (long g = 0; g < groups; ++g)
            __asm__ __volatile__ ("" ::: "memory"); /* an empty iteration */
        }
      if (b >= 0)
        t[b] = (bench_now_us () - t0) / launches;
    }
  printf ("groups=%ld threads=%d launches=%d batches=%d median_us=%.3f\n",
          groups, omp_get_max_threads (), launches, batches,
          bench_median (t, batches));
  free (t);
  return 0;
}
