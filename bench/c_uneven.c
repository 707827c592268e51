/* c_uneven.c - the uneven-work benchmark's work in plain C: G work-groups,
   each a loop of bench_cost() iterations, run by
     ceiling   plain pthreads with a perfect split (each thread gets a
               contiguous range of equal total cost, from the known costs):
               what no scheduler can beat;
     omp       OpenMP `parallel for schedule(runtime)`: with libgomp
               OMP_SCHEDULE=static/dynamic/guided, with LLVM's libomp also
               static_steal (the program is built against each runtime).
   Prints the median over repetitions of one pass, in milliseconds.

   Usage: c_uneven ceiling|omp PROFILE G BASE THREADS [REPS]

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_util.h"

static const char *profile;
static uint64_t G;
static uint32_t base;
static unsigned T;
static volatile float sink;

/* The same arithmetic as cl_uneven.c's kernel.  */
static float
work (uint64_t g)
{
  uint32_t n = bench_cost (profile, g, G, T, base);
  float acc = (float)g;
  for (uint32_t i = 0; i < n; ++i)
    acc = acc * 0.999f + 1.0f;
  return acc;
}

typedef struct
{
  uint64_t begin, end;
} range;

static void *
run_range (void *p)
{
  range *r = p;
  float acc = 0;
  for (uint64_t g = r->begin; g < r->end; ++g)
    acc += work (g);
  sink = acc;
  return NULL;
}

static double
ceiling_once (void)
{
  /* Perfect split: cut where the running cost crosses k/T of the total. */
  double total = 0;
  for (uint64_t g = 0; g < G; ++g)
    total += bench_cost (profile, g, G, T, base) + 1;
  range r[256];
  pthread_t th[256];
  double acc = 0;
  uint64_t g = 0;
  for (unsigned t = 0; t < T; ++t)
    {
      r[t].begin = g;
      double target = total * (t + 1) / T;
      while (g < G && (t == T - 1 || acc < target))
        acc += bench_cost (profile, g++, G, T, base) + 1;
      r[t].end = t == T - 1 ? G : g;
    }
  double t0 = bench_now_us ();
  for (unsigned t = 0; t < T; ++t)
    pthread_create (&th[t], NULL, run_range, &r[t]);
  for (unsigned t = 0; t < T; ++t)
    pthread_join (th[t], NULL);
  return (bench_now_us () - t0) / 1000;
}

static double
omp_once (void)
{
#ifdef _OPENMP
  double t0 = bench_now_us ();
  float acc = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : acc)
  for (uint64_t g = 0; g < G; ++g)
    acc += work (g);
  sink = acc;
  return (bench_now_us () - t0) / 1000;
#else
  fprintf (stderr, "built without OpenMP\n");
  exit (2);
#endif
}

int
main (int argc, char **argv)
{
  if (argc < 6)
    {
      fprintf (stderr, "usage: %s ceiling|omp PROFILE G BASE THREADS [REPS]\n",
               argv[0]);
      return 2;
    }
  int ceiling = !strcmp (argv[1], "ceiling");
  profile = argv[2];
  G = strtoull (argv[3], NULL, 10);
  base = (uint32_t)strtoul (argv[4], NULL, 10);
  T = (unsigned)atoi (argv[5]);
  int reps = argc > 6 ? atoi (argv[6]) : 7;
  if (G == 0 || T == 0 || T > 256 || reps < 1)
    return 2;
#ifdef _OPENMP
  if (!ceiling)
    omp_set_num_threads ((int)T);
#endif
  double *t = malloc ((reps + 1) * sizeof (double));
  for (int i = 0; i <= reps; ++i) /* the first is a warm-up */
    t[i] = ceiling ? ceiling_once () : omp_once ();
  printf ("profile=%s groups=%llu threads=%u median_ms=%.3f\n", profile,
          (unsigned long long)G, T, bench_median (t + 1, reps));
  free (t);
  return 0;
}
