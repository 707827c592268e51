/* load.c - many host threads, many launches, mixed sizes, both kinds of
   queue.

   Usage: cl_load [HOST_THREADS [LAUNCHES]]   (default 8 x 500)

   Every host thread has its own queue on one shared context and launches
   a kernel that adds one to each of its work-items' counters, without
   atomics, so a launch that ran a work-item twice, lost one, or overlapped
   a launch it was ordered after shows up as a wrong count.  Sizes are drawn
   from 1 to 10^5 work-groups.  Even threads use an in-order queue with one
   buffer; odd threads an out-of-order queue with two buffers, each launch
   waiting (event wait list) on the previous launch on the same buffer, so
   two chains run at once in one queue.  The host keeps the expected counts
   and checks every counter at the end.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <pthread.h>
#include <stdint.h>

#include "cltest.h"

static const char *load_source = "__kernel void add_one (__global uint *c)\n"
                                 "{\n"
                                 "  c[get_global_id (0)] += 1;\n"
                                 "}\n";

/* Work-group counts drawn from, with one work-item per group so the count
   of groups is what the dispatcher sees.  */
static const size_t sizes[] = { 1, 2, 3, 7, 64, 65, 1000, 4097, 100000 };
#define NSIZES (sizeof (sizes) / sizeof (sizes[0]))
#define MAX_GROUPS 100000

static cl_context ctx;
static cl_device_id dev;
static cl_program prog;
static unsigned launches;

typedef struct
{
  unsigned index;
  int failures;
  pthread_t thread;
} host_thread;

static uint32_t
next_random (uint32_t *state)
{
  /* xorshift32: deterministic per thread, so a failure can be re-run.  */
  *state ^= *state << 13;
  *state ^= *state >> 17;
  *state ^= *state << 5;
  return *state;
}

static void *
host_main (void *arg)
{
  host_thread *h = arg;
  const int out_of_order = h->index % 2 == 1;
  const unsigned nbuf = out_of_order ? 2 : 1;
  cl_int err;
  cl_queue_properties props[]
      = { CL_QUEUE_PROPERTIES,
          out_of_order ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, 0 };
  cl_command_queue q
      = clCreateCommandQueueWithProperties (ctx, dev, props, &err);
  CL_OK (err);
  cl_kernel k[2];
  cl_mem buf[2];
  cl_event last[2] = { NULL, NULL };
  cl_uint *expect[2];
  cl_uint zero = 0;
  for (unsigned b = 0; b < nbuf; ++b)
    {
      k[b] = clCreateKernel (prog, "add_one", &err);
      CL_OK (err);
      buf[b] = clCreateBuffer (ctx, CL_MEM_READ_WRITE,
                               MAX_GROUPS * sizeof (cl_uint), NULL, &err);
      CL_OK (err);
      CL_OK (clSetKernelArg (k[b], 0, sizeof (cl_mem), &buf[b]));
      CL_OK (clEnqueueFillBuffer (q, buf[b], &zero, sizeof (zero), 0,
                                  MAX_GROUPS * sizeof (cl_uint), 0, NULL,
                                  &last[b]));
      expect[b] = calloc (MAX_GROUPS, sizeof (cl_uint));
    }

  uint32_t rng = 2463534242u + h->index * 7919u;
  for (unsigned i = 0; i < launches; ++i)
    {
      const unsigned b = i % nbuf;
      /* Mostly small launches, as in a stream of kernels; a big one now
         and then.  */
      size_t n = sizes[next_random (&rng) % NSIZES];
      size_t local = 1;
      cl_event done;
      CL_OK (clEnqueueNDRangeKernel (q, k[b], 1, NULL, &n, &local,
                                     out_of_order ? 1 : 0,
                                     out_of_order ? &last[b] : NULL, &done));
      CL_OK (clReleaseEvent (last[b]));
      last[b] = done;
      for (size_t j = 0; j < n; ++j)
        expect[b][j]++;
      /* Flush now and then so that the workers start before the queue is
         long, and wait now and then so that it does not grow without
         bound.  */
      if (i % 16 == 15)
        CL_OK (clFlush (q));
      if (i % 128 == 127)
        CL_OK (clWaitForEvents (1, &last[b]));
    }

  cl_uint *got = malloc (MAX_GROUPS * sizeof (cl_uint));
  for (unsigned b = 0; b < nbuf; ++b)
    {
      CL_OK (clEnqueueReadBuffer (q, buf[b], CL_TRUE, 0,
                                  MAX_GROUPS * sizeof (cl_uint), got, 1,
                                  &last[b], NULL));
      size_t wrong = 0, first = 0;
      for (size_t j = 0; j < MAX_GROUPS; ++j)
        if (got[j] != expect[b][j] && wrong++ == 0)
          first = j;
      if (wrong)
        {
          fprintf (stderr,
                   "FAIL: host thread %u (%s queue), buffer %u: %zu wrong "
                   "counters, first [%zu] = %u, want %u\n",
                   h->index, out_of_order ? "out-of-order" : "in-order", b,
                   wrong, first, got[first], expect[b][first]);
          h->failures++;
        }
      CL_OK (clReleaseEvent (last[b]));
      CL_OK (clReleaseKernel (k[b]));
      CL_OK (clReleaseMemObject (buf[b]));
      free (expect[b]);
    }
  free (got);
  CL_OK (clReleaseCommandQueue (q));
  return NULL;
}

int
main (int argc, char **argv)
{
  unsigned nthreads = argc > 1 ? (unsigned)atoi (argv[1]) : 8;
  launches = argc > 2 ? (unsigned)atoi (argv[2]) : 500;
  if (nthreads < 1 || nthreads > 64 || launches < 1)
    {
      fprintf (stderr, "usage: cl_load [HOST_THREADS 1..64 [LAUNCHES]]\n");
      return 2;
    }
  cl_int err;
  dev = cltest_cpu_device (NULL);
  ctx = clCreateContext (NULL, 1, &dev, NULL, NULL, &err);
  CL_OK (err);
  prog = cltest_build (ctx, dev, load_source, NULL);

  host_thread *hosts = calloc (nthreads, sizeof (host_thread));
  for (unsigned t = 0; t < nthreads; ++t)
    {
      hosts[t].index = t;
      if (pthread_create (&hosts[t].thread, NULL, host_main, &hosts[t]) != 0)
        {
          fprintf (stderr, "cannot start host thread %u\n", t);
          return 1;
        }
    }
  for (unsigned t = 0; t < nthreads; ++t)
    {
      pthread_join (hosts[t].thread, NULL);
      CHECK (hosts[t].failures == 0, "host thread %u had %d failure(s)", t,
             hosts[t].failures);
    }
  printf ("%u host threads x %u launches (sizes 1..%d groups), in-order and "
          "out-of-order queues\n",
          nthreads, launches, MAX_GROUPS);
  free (hosts);
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseContext (ctx));
  return cltest_finish ("cl_load");
}
