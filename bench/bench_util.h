/* bench_util.h - timing and small helpers for the benchmarks.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_BENCH_UTIL_H
#define POCL_STEAL_BENCH_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline double
bench_now_us (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static inline int
bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Median of n values (sorts them).  */
static inline double
bench_median (double *v, int n)
{
  qsort (v, n, sizeof (double), bench_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The cost of work-group g of G under a profile, in inner iterations:
   linear (grows with the index), band (the middle fifth 16x dearer),
   period (every T-th group 4x dearer), flat.  base: the flat cost.  */
static inline uint32_t
bench_cost (const char *profile, uint64_t g, uint64_t G, unsigned T,
            uint32_t base)
{
  switch (profile[0])
    {
    case 'l': /* linear: 0 .. 2 base, mean base */
      return (uint32_t)(2.0 * base * (double)(g + 1) / (double)G);
    case 'b': /* band: the middle fifth costs 16x */
      return (g >= 2 * G / 5 && g < 3 * G / 5) ? 16 * base : base;
    case 'p': /* period = thread count: every T-th group costs 4x */
      return (T > 0 && g % T == 0) ? 4 * base : base;
    default: /* flat */
      return base;
    }
}

#endif /* POCL_STEAL_BENCH_UTIL_H */
