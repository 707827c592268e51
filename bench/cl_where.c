/* cl_where.c - which thread ran which work-group, launch after launch.

   Runs LAUNCHES balanced launches of G work-groups and records, per
   work-group, the address of a __local variable: every CPU worker of PoCL
   (ours and stock) has its own local memory, so the address names the
   thread.  Threads are numbered by their address order.  Prints the
   fraction of work-groups that ran on the same thread as in the previous
   launch and, with --map FILE, writes "launch group thread" lines for a
   picture.

   Usage: cl_where [--groups G] [--launches L] [--spins S] [--map FILE]

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "../tests/opencl/cltest.h"

static const char *source
    = "__kernel void where (__global ulong *owner, __global float *sink,\n"
      "                     uint spins)\n"
      "{\n"
      "  __local int marker;\n"
      "  float acc = get_global_id (0);\n"
      "  for (uint i = 0; i < spins; ++i)\n"
      "    acc = acc * 0.999f + 1.0f;\n"
      "  sink[get_global_id (0)] = acc;\n"
      "  if (get_local_id (0) == 0)\n"
      "    owner[get_group_id (0)] = (ulong)&marker;\n"
      "}\n";

static int
cmp_u64 (const void *a, const void *b)
{
  cl_ulong x = *(const cl_ulong *)a, y = *(const cl_ulong *)b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  size_t groups = 256;
  int launches = 10;
  cl_uint spins = 20000;
  const char *map = NULL;
  for (int i = 1; i < argc; ++i)
    {
      if (!strcmp (argv[i], "--groups") && i + 1 < argc)
        groups = strtoul (argv[++i], NULL, 10);
      else if (!strcmp (argv[i], "--launches") && i + 1 < argc)
        launches = atoi (argv[++i]);
      else if (!strcmp (argv[i], "--spins") && i + 1 < argc)
        spins = (cl_uint)strtoul (argv[++i], NULL, 10);
      else if (!strcmp (argv[i], "--map") && i + 1 < argc)
        map = argv[++i];
      else
        {
          fprintf (stderr,
                   "usage: %s [--groups G] [--launches L] [--spins S] "
                   "[--map FILE]\n",
                   argv[0]);
          return 2;
        }
    }
  if (groups == 0 || launches < 2)
    return 2;
  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_kernel k = cltest_kernel (&e, "where");
  size_t local = 4, global = groups * local;
  cl_mem owner = cltest_buffer (&e, CL_MEM_WRITE_ONLY,
                                groups * sizeof (cl_ulong), NULL);
  cl_mem sink = cltest_buffer (&e, CL_MEM_WRITE_ONLY,
                               global * sizeof (cl_float), NULL);
  CL_OK (clSetKernelArg (k, 0, sizeof (owner), &owner));
  CL_OK (clSetKernelArg (k, 1, sizeof (sink), &sink));
  CL_OK (clSetKernelArg (k, 2, sizeof (spins), &spins));

  cl_ulong *all = malloc (launches * groups * sizeof (cl_ulong));
  for (int l = 0; l < launches; ++l)
    {
      CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &global, &local, 0, NULL,
                                     NULL));
      CL_OK (clEnqueueReadBuffer (e.q, owner, CL_TRUE, 0,
                                  groups * sizeof (cl_ulong), all + l * groups,
                                  0, NULL, NULL));
    }
  size_t same = 0, compared = 0;
  for (int l = 1; l < launches; ++l)
    for (size_t g = 0; g < groups; ++g, ++compared)
      same += all[l * groups + g] == all[(l - 1) * groups + g];
  /* Distinct addresses, sorted: thread numbers.  */
  size_t n = launches * groups;
  cl_ulong *sorted = malloc (n * sizeof (cl_ulong));
  memcpy (sorted, all, n * sizeof (cl_ulong));
  qsort (sorted, n, sizeof (cl_ulong), cmp_u64);
  size_t distinct = 0;
  for (size_t i = 0; i < n; ++i)
    if (i == 0 || sorted[i] != sorted[i - 1])
      sorted[distinct++] = sorted[i];
  if (map)
    {
      FILE *f = fopen (map, "w");
      if (f == NULL)
        {
          perror (map);
          return 1;
        }
      for (int l = 0; l < launches; ++l)
        for (size_t g = 0; g < groups; ++g)
          {
            cl_ulong *p = bsearch (&all[l * groups + g], sorted, distinct,
                                   sizeof (cl_ulong), cmp_u64);
            fprintf (f, "%d %zu %zu\n", l, g, (size_t)(p - sorted));
          }
      fclose (f);
    }
  printf ("groups=%zu launches=%d threads_seen=%zu same_as_previous=%.4f\n",
          groups, launches, distinct, (double)same / (double)compared);
  free (all);
  free (sorted);
  CL_OK (clReleaseMemObject (owner));
  CL_OK (clReleaseMemObject (sink));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return 0;
}
