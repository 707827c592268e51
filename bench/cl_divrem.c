/* cl_divrem.c - the cost of PoCL's division sanitizer: a kernel doing 16
   integer divisions and remainders per work-item (4 each of signed and
   unsigned /, %), on dividends and divisors read from buffers the host
   fills at run time, so that the compiler can fold none of them, each
   depending on the one before.  With host runs on (POCL_PTHREAD_HOST_GROUPS
   > 0, the default), the driver has PoCL compile every kernel with its
   sanitize-ub-of-div-rem pass, which puts a compare and a select before
   each division (signed ones also guard INT_MIN / -1: two more compares,
   an and and an add); run_bench.py runs this with host runs on and off
   (section 1e, `--only divrem`).  The results are checked against
   the host's once, so that both variants are known to compute the same.
   Prints the median milliseconds per launch, and the CPU time the
   process used per launch (all its threads, the mean over the counted
   launches): on a machine that others use too, waiting for a CPU
   lengthens the first but not the second.

   Usage: cl_divrem N [REPS [LOCAL]]   (N work-items, LOCAL per work-group,
   default 64; REPS launches after one not counted, each waited for)

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "../tests/opencl/cltest.h"

#include "bench_util.h"

#include <stdint.h>
#include <sys/resource.h>

/* The same steps in the kernel and on the host.  |x| <= 2^20, the sum
   at most triples s, and the xor with a remainder keeps it below the
   next power of two, so |s| < 2^28; divisors are 1 .. 1012: no signed
   overflow, no division by zero.  */
#define DIVREM_STEPS(T_INT, T_UINT)                                           \
  T_INT s = x;                                                                \
  T_UINT u = (T_UINT)x;                                                       \
  T_UINT ud = (T_UINT)d;                                                      \
  for (int k = 0; k < 4; ++k)                                                 \
    {                                                                         \
      s += (x + s) / (d + k);                                                 \
      s ^= (x - s) % (d + 2 * k + 1);                                         \
      u += (u + (T_UINT)x) / (ud + (T_UINT)k);                                \
      u ^= (u ^ (T_UINT)x) % (ud + 3 * (T_UINT)k + 1);                        \
    }

#define STR_(...) #__VA_ARGS__
#define STR(...) STR_ (__VA_ARGS__)
#define KERNEL_STEPS STR (DIVREM_STEPS (int, uint))

static const char *source
    = "__kernel void divrem (__global const int *a, __global const int *b,\n"
      "                      __global uint *out)\n"
      "{\n"
      "  size_t i = get_global_id (0);\n"
      "  int x = a[i], d = b[i];\n"
      "  " KERNEL_STEPS "\n"
      "  out[i] = u ^ (uint)s;\n"
      "}\n";

/* User and system time of the whole process so far, in milliseconds.  */
static double
cpu_ms (void)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3
         + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static uint32_t
divrem_host (int x, int d)
{
  DIVREM_STEPS (int32_t, uint32_t)
  return u ^ (uint32_t)s;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: %s N [REPS [LOCAL]]\n", argv[0]);
      return 2;
    }
  size_t n = strtoull (argv[1], NULL, 10);
  int reps = argc > 2 ? atoi (argv[2]) : 10;
  size_t local = argc > 3 ? strtoull (argv[3], NULL, 10) : 64;
  if (local == 0)
    return 2;
  n = (n + local - 1) / local * local;
  if (n == 0 || reps < 1)
    return 2;
  int32_t *a = malloc (n * sizeof (int32_t));
  int32_t *b = malloc (n * sizeof (int32_t));
  uint32_t *out = malloc (n * sizeof (uint32_t));
  if (a == NULL || b == NULL || out == NULL)
    return 1;
  /* A fixed sequence (xorshift), different for every work-item.  */
  uint64_t r = 0x9e3779b97f4a7c15u;
  for (size_t i = 0; i < n; ++i)
    {
      r ^= r << 13;
      r ^= r >> 7;
      r ^= r << 17;
      a[i] = (int32_t)(r % (2u << 20)) - (1 << 20);
      b[i] = 1 + (int32_t)((r >> 32) % 1000);
    }

  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_kernel k = cltest_kernel (&e, "divrem");
  cl_mem da = cltest_buffer (&e, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             n * sizeof (int32_t), a);
  cl_mem db = cltest_buffer (&e, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             n * sizeof (int32_t), b);
  cl_mem dout
      = cltest_buffer (&e, CL_MEM_WRITE_ONLY, n * sizeof (uint32_t), NULL);
  CL_OK (clSetKernelArg (k, 0, sizeof (da), &da));
  CL_OK (clSetKernelArg (k, 1, sizeof (db), &db));
  CL_OK (clSetKernelArg (k, 2, sizeof (dout), &dout));

  double *ms = malloc ((reps + 1) * sizeof (double));
  double cpu0 = 0;
  for (int i = 0; i <= reps; ++i)
    {
      if (i == 1)
        cpu0 = cpu_ms ();
      double t0 = bench_now_us ();
      CL_OK (
          clEnqueueNDRangeKernel (e.q, k, 1, NULL, &n, &local, 0, NULL, NULL));
      CL_OK (clFinish (e.q));
      ms[i] = (bench_now_us () - t0) / 1e3;
      if (i == 0)
        {
          CL_OK (clEnqueueReadBuffer (e.q, dout, CL_TRUE, 0,
                                      n * sizeof (uint32_t), out, 0, NULL,
                                      NULL));
          size_t bad = 0;
          for (size_t j = 0; j < n; ++j)
            bad += out[j] != divrem_host (a[j], b[j]);
          CHECK (bad == 0, "divrem: %zu of %zu results wrong", bad, n);
        }
    }
  double cpu = (cpu_ms () - cpu0) / reps;
  printf ("n=%zu local=%zu reps=%d median_ms=%.3f cpu_ms=%.3f\n", n, local,
          reps, bench_median (ms + 1, reps), cpu);
  free (ms);
  free (a);
  free (b);
  free (out);
  CL_OK (clReleaseMemObject (da));
  CL_OK (clReleaseMemObject (db));
  CL_OK (clReleaseMemObject (dout));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return 0;
}
