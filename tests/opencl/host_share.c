/* host_share.c - an application thread that runs a launch alone shares it
   with the workers once its rest looks dear (rule S1 of
   driver/pthread_share.h).

   Every worker is first made busy (busy_workers.h), so the launch below
   is the waiting thread's: it takes the command and runs it as guest 0,
   unpublished.  The launch has 64 work-groups of one work-item, of the
   kernel `pair`:
     - the first work-group to start (by order, whichever it is) waits
       until the program lets it go, which it does 20 ms after seeing it
       start, having freed the workers first: so the thread's first look
       at the clock finds a work-group of 20 ms or more and 63 left, far
       above any POCL_PTHREAD_HOST_SHARE_US, and it must publish the
       launch and wake the workers;
     - every later work-group waits until two work-groups have been
       running at once, which needs a second thread in the launch: so if
       the launch is never shared, it never ends; a guard lets them go
       after a minute, and the check fails.
   Then every work-group ran exactly once, and POCL_PTHREAD_STATS' `host`
   is checked by check_host_run.sh to be at least 1 (the first
   work-group) and below 64 (the workers ran some).

   Nothing depends on how fast threads run: a slow machine only makes the
   first look later and the elapsed time longer, which publishes all the
   same; only a failure waits for the guards.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "busy_workers.h"
#include "cltest.h"

#define GROUPS 64

static const char *source = BUSY_WORKERS_SOURCE
    "__kernel void pair (__global volatile int *st,\n"
    "                    __global volatile int *hits)\n"
    "{\n"
    /* st[0]: started, st[1]: running, st[2]: two ran at once,
       st[3]: go (1: the first may end; 2: the guard, all may end).  */
    "  atomic_inc (&hits[get_group_id (0)]);\n"
    "  if (atomic_inc (&st[0]) == 0)\n"
    "    {\n"
    "      while (atomic_add (&st[3], 0) == 0)\n"
    "        ;\n"
    "      return;\n"
    "    }\n"
    "  if (atomic_inc (&st[1]) + 1 >= 2)\n"
    "    atomic_xchg (&st[2], 1);\n"
    "  while (atomic_add (&st[2], 0) == 0 && atomic_add (&st[3], 0) != 2)\n"
    "    ;\n"
    "  atomic_dec (&st[1]);\n"
    "}\n";

/* Host memory the kernel uses directly: the program watches and sets it
   without commands.  */
static _Alignas (64) volatile int st[16];
static _Alignas (64) volatile int hits[GROUPS];
/* The first work-group started while every worker was busy: the waiting
   thread took the launch (else the guard freed the workers).  */
static int host_took;

/* Lets the first work-group go 20 ms after it started, after freeing the
   workers; lets every work-group go after a minute (the guard).  */
static void *
conductor (void *arg)
{
  (void)arg;
  for (int i = 0; i < 60000 && st[0] == 0; ++i)
    usleep (1000);
  host_took = st[0] > 0;
  free_workers ();
  usleep (20000);
  __atomic_store_n (&st[3], 1, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 6000 && st[0] < GROUPS; ++i)
    usleep (10000);
  if (st[0] < GROUPS || !st[2])
    __atomic_store_n (&st[3], 2, __ATOMIC_SEQ_CST);
  return NULL;
}

int
main (void)
{
  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_uint cus = cltest_compute_units (e.dev);
  busy_workers busy;
  busy_workers_start (&busy, &e, cus);

  cl_int err;
  cl_command_queue q
      = clCreateCommandQueueWithProperties (e.ctx, e.dev, NULL, &err);
  CL_OK (err);
  cl_kernel pair = cltest_kernel (&e, "pair");
  cl_mem bst = cltest_buffer (&e, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                              sizeof (st), (void *)st);
  cl_mem bhits = cltest_buffer (&e, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                sizeof (hits), (void *)hits);
  CL_OK (clSetKernelArg (pair, 0, sizeof (bst), &bst));
  CL_OK (clSetKernelArg (pair, 1, sizeof (bhits), &bhits));
  pthread_t t;
  pthread_create (&t, NULL, conductor, NULL);
  size_t g = GROUPS, one = 1;
  CL_OK (clEnqueueNDRangeKernel (q, pair, 1, NULL, &g, &one, 0, NULL, NULL));
  CL_OK (clFinish (q));
  pthread_join (t, NULL);
  CL_OK (clFinish (e.q));

  int wrong = 0;
  for (int i = 0; i < GROUPS; ++i)
    if (hits[i] != 1)
      {
        fprintf (stderr, "work-group %d ran %d times\n", i, hits[i]);
        wrong++;
      }
  printf ("taken by the waiting thread %d, started %d, two at once %d, "
          "guard %d, work-groups not run once %d\n",
          host_took, st[0], st[2], st[3] == 2, wrong);
  CHECK (host_took, "the waiting thread did not run the launch while every "
                    "worker was busy");
  CHECK (st[2] == 1,
         "no two work-groups ran at once: the waiting thread never shared "
         "the launch");
  CHECK (wrong == 0, "%d work-groups did not run exactly once", wrong);

  CL_OK (clReleaseMemObject (bst));
  CL_OK (clReleaseMemObject (bhits));
  CL_OK (clReleaseKernel (pair));
  CL_OK (clReleaseCommandQueue (q));
  busy_workers_release (&busy);
  cltest_close (&e);
  return cltest_finish ("host_share");
}
