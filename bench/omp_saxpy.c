/* omp_saxpy.c - the OpenMP reference for cl_saxpy: the arrays initialised
   and then updated by `parallel for schedule(static)` loops, threads
   pinned by the runtime (OMP_PROC_BIND, OMP_PLACES).  Prints the median
   bandwidth in GB/s.

   Usage: omp_saxpy N [REPS]

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <omp.h>
#include <stdio.h>

#include "bench_util.h"

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: %s N [REPS]\n", argv[0]);
      return 2;
    }
  long n = atol (argv[1]);
  int reps = argc > 2 ? atoi (argv[2]) : 10;
  if (n < 1 || reps < 1)
    return 2;
  float *x = malloc (n * sizeof (float)), *y = malloc (n * sizeof (float));
  if (!x || !y)
    return 1;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i)
    {
      x[i] = 1.0f;
      y[i] = 2.0f;
    }
  double *gbs = malloc ((reps + 1) * sizeof (double));
  for (int r = 0; r <= reps; ++r)
    {
      double t0 = bench_now_us ();
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; ++i)
        y[i] = 0.5f * x[i] + y[i];
      gbs[r] = 3.0 * n * sizeof (float) / ((bench_now_us () - t0) * 1e3);
    }
  printf ("n=%ld threads=%d reps=%d median_gbs=%.2f check=%.1f\n", n,
          omp_get_max_threads (), reps, bench_median (gbs + 1, reps),
          (double)y[n / 2]);
  free (gbs);
  free (x);
  free (y);
  return 0;
}
