/* wakeup_stress.c - no lost wake-ups: several host threads each enqueue
   thousands of one-work-group launches (the case that wakes the fewest
   workers), waiting for each with clFinish or on its event, or only every
   few launches.  A lost wake-up shows as a hang, which the test's timeout
   turns into a failure; every launch's result is checked too.

   Usage: wakeup_stress [HOST_THREADS [LAUNCHES_PER_THREAD]]

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <pthread.h>

#include "cltest.h"

static const char *source = "__kernel void bump (__global uint *x) { "
                            "x[get_global_id (0)] += 1u; }\n";

typedef struct
{
  cl_context ctx;
  cl_device_id dev;
  cl_program prog;
  int index;
  int launches;
  int bad;
} host_thread;

static void *
run (void *p)
{
  host_thread *h = p;
  cl_int err;
  cl_command_queue q
      = clCreateCommandQueueWithProperties (h->ctx, h->dev, NULL, &err);
  CL_OK (err);
  cl_kernel k = clCreateKernel (h->prog, "bump", &err);
  CL_OK (err);
  cl_uint zero = 0;
  cl_mem x = clCreateBuffer (h->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                             sizeof (cl_uint), &zero, &err);
  CL_OK (err);
  CL_OK (clSetKernelArg (k, 0, sizeof (x), &x));
  size_t one = 1;
  for (int i = 0; i < h->launches; ++i)
    {
      cl_event ev;
      CL_OK (clEnqueueNDRangeKernel (q, k, 1, NULL, &one, &one, 0, NULL, &ev));
      switch ((i + h->index) % 3)
        {
        case 0:
          CL_OK (clFinish (q));
          break;
        case 1:
          CL_OK (clWaitForEvents (1, &ev));
          break;
        default: /* let a few pile up */
          if (i % 7 == 0)
            CL_OK (clFlush (q));
          break;
        }
      CL_OK (clReleaseEvent (ev));
    }
  cl_uint got = 0;
  CL_OK (clEnqueueReadBuffer (q, x, CL_TRUE, 0, sizeof (got), &got, 0, NULL,
                              NULL));
  h->bad = got != (cl_uint)h->launches;
  if (h->bad)
    fprintf (stderr, "host thread %d: counter %u after %d launches\n",
             h->index, got, h->launches);
  CL_OK (clReleaseMemObject (x));
  CL_OK (clReleaseKernel (k));
  CL_OK (clReleaseCommandQueue (q));
  return NULL;
}

int
main (int argc, char **argv)
{
  int nthreads = argc > 1 ? atoi (argv[1]) : 4;
  int launches = argc > 2 ? atoi (argv[2]) : 2000;
  if (nthreads < 1 || nthreads > 64 || launches < 1)
    {
      fprintf (stderr, "usage: %s [HOST_THREADS 1..64 [LAUNCHES]]\n", argv[0]);
      return 2;
    }
  cl_device_id dev = cltest_cpu_device (NULL);
  cl_int err;
  cl_context ctx = clCreateContext (NULL, 1, &dev, NULL, NULL, &err);
  CL_OK (err);
  cl_program prog = cltest_build (ctx, dev, source, NULL);
  host_thread h[64];
  pthread_t t[64];
  for (int i = 0; i < nthreads; ++i)
    {
      h[i] = (host_thread){ ctx, dev, prog, i, launches, 0 };
      pthread_create (&t[i], NULL, run, &h[i]);
    }
  int bad = 0;
  for (int i = 0; i < nthreads; ++i)
    {
      pthread_join (t[i], NULL);
      bad += h[i].bad;
    }
  CHECK (bad == 0, "%d host threads saw wrong counts", bad);
  printf ("%d host threads x %d one-work-group launches: all done, "
          "counts right\n",
          nthreads, launches);
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseContext (ctx));
  return cltest_finish ("wakeup_stress");
}
