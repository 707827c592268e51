/* release_order.c - an application may release OpenCL objects in any
   order: here the last reference to a sub-device's queue is an event.

   The program releases its queue on a sub-device, the context and the
   sub-device while it still holds an event of that queue, then releases
   the event.  That last release frees the queue, the queue's context and,
   through the context, the sub-device.  PoCL 7.1's clReleaseCommandQueue
   released the context before it asked the queue's device to free the
   queue's driver data, so it read the freed sub-device; the same happens
   whenever a worker thread drops a finished command's event last (a rare
   crash of cl_subdevices_static).  Run it with freed memory overwritten
   (MALLOC_PERTURB_, without glibc's tcache, as CMakeLists.txt does), so
   that reading freed memory crashes every time instead of once in forty.
   Patch 0006 of the series frees the queue's driver data first; without
   it, this crashes every time.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <stdbool.h>

#include "count_kernel.h"

/* One round: a kernel on a queue of `dev`, everything but its event
   released before the event; `dev` too if it is a sub-device.  */
static void
release_event_last (cl_device_id dev, bool sub, const char *what)
{
  cl_int err;
  cl_context ctx = clCreateContext (NULL, 1, &dev, NULL, NULL, &err);
  CL_OK (err);
  cl_program prog = cltest_build (ctx, dev, count_source, COUNT_OPTIONS);
  cl_command_queue q
      = clCreateCommandQueueWithProperties (ctx, dev, NULL, &err);
  CL_OK (err);
  count_job job;
  count_job_init (&job, ctx, prog, 4096);
  cl_uint zero = 0;
  CL_OK (clEnqueueFillBuffer (q, job.hits, &zero, sizeof (zero), 0,
                              job.n * sizeof (cl_uint), 0, NULL, NULL));
  cl_event ev;
  CL_OK (clEnqueueNDRangeKernel (q, job.kernel, 1, NULL, &job.n, NULL, 0, NULL,
                                 &ev));
  CL_OK (clEnqueueReadBuffer (q, job.hits, CL_TRUE, 0,
                              job.n * sizeof (cl_uint), job.host, 0, NULL,
                              NULL));
  size_t bad = count_job_wrong (&job);
  CHECK (bad == 0, "%s: %zu work-items not run exactly once", what, bad);

  count_job_release (&job);
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseCommandQueue (q));
  CL_OK (clReleaseContext (ctx));
  if (sub)
    CL_OK (clReleaseDevice (dev));
  /* The last reference to the queue, the context and the sub-device.  */
  cl_int status = 0;
  CL_OK (clGetEventInfo (ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                         sizeof (status), &status, NULL));
  CHECK (status == CL_COMPLETE, "%s: the kernel's event is %d", what, status);
  CL_OK (clReleaseEvent (ev));
  printf ("%s: event released after its queue, context and device\n", what);
}

int
main (void)
{
  cl_device_id root = cltest_cpu_device (NULL);
  cl_uint cus = cltest_compute_units (root);
  CHECK (cus >= 2, "need at least 2 compute units, have %u", cus);

  release_event_last (root, false, "root device");
  for (int round = 0; round < 4; ++round)
    {
      cl_device_id subs[2];
      cltest_split_in_two (root, cus, subs);
      CL_OK (clReleaseDevice (subs[1]));
      release_event_last (subs[0], true, "sub-device");
    }
  return cltest_finish ("release_order");
}
