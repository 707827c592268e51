/* host_threads.c - two host threads enqueue to two queues of one device at
   the same time, in-order queues, a mix of launch sizes; every launch is
   checked.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <pthread.h>

#include "count_kernel.h"

typedef struct
{
  cl_context ctx;
  cl_device_id dev;
  cl_program prog;
  unsigned seed;
  size_t bad;
  size_t launches;
} host_thread;

static void *
enqueue_many (void *p)
{
  host_thread *h = p;
  cl_int err;
  cl_command_queue q
      = clCreateCommandQueueWithProperties (h->ctx, h->dev, NULL, &err);
  CL_OK (err);
  static const size_t sizes[] = { 1, 2, 64, 1000, 4096, 65536 };
  for (int i = 0; i < 150; ++i)
    {
      count_job j;
      size_t n = sizes[(i + h->seed) % 6];
      /* A local size PoCL picks, or 1, 2, 4 or 8 where it divides n.  */
      size_t local = (size_t)1 << (i % 4);
      while (n % local != 0)
        local >>= 1;
      count_job_init (&j, h->ctx, h->prog, n);
      count_job_enqueue (&j, q, (i % 3 == 0) ? 0 : local);
      CL_OK (clFinish (q));
      h->bad += count_job_wrong (&j);
      h->launches++;
      count_job_release (&j);
    }
  CL_OK (clReleaseCommandQueue (q));
  return NULL;
}

int
main (void)
{
  cl_device_id dev = cltest_cpu_device (NULL);
  cl_int err;
  cl_context ctx = clCreateContext (NULL, 1, &dev, NULL, NULL, &err);
  CL_OK (err);
  cl_program prog = cltest_build (ctx, dev, count_source, COUNT_OPTIONS);
  host_thread h[2]
      = { { ctx, dev, prog, 0, 0, 0 }, { ctx, dev, prog, 3, 0, 0 } };
  pthread_t t[2];
  for (int i = 0; i < 2; ++i)
    pthread_create (&t[i], NULL, enqueue_many, &h[i]);
  for (int i = 0; i < 2; ++i)
    pthread_join (t[i], NULL);
  for (int i = 0; i < 2; ++i)
    {
      CHECK (h[i].bad == 0, "host thread %d: %zu work-items wrong", i,
             h[i].bad);
      printf ("host thread %d: %zu launches, %s\n", i, h[i].launches,
              h[i].bad ? "WRONG" : "each work-item exactly once");
    }
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseContext (ctx));
  return cltest_finish ("host_threads");
}
