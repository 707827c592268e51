/* failure.c - commands that fail: a kernel whose work-group reaches
   unreachable code (PoCL's execution_failed flag), and commands waiting on
   a failed event.  None of them may hang, the failure must reach the
   event, and the queue must go on running later commands correctly.

   Run with POCL_WORK_GROUP_METHOD=cbs: that work-item loop (PoCL uses it
   for kernels with barriers) turns `unreachable` into a store to
   execution_failed; the work-item loops remove the block instead.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "count_kernel.h"

static const char *fail_source
    = "__kernel void fail_group (__global volatile uint *hits, uint bad)\n"
      "{\n"
      "  atomic_inc (&hits[get_global_id (0)]);\n"
      /* CBS takes only kernels with barriers.  */
      "  barrier (CLK_GLOBAL_MEM_FENCE);\n"
      "  if (get_group_id (0) == bad)\n"
      "    {\n"
      /* A call the optimiser cannot remove keeps the block, so that
         `unreachable` is still there when PoCL turns it into a failure.  */
      "      printf (\"work-group %u reaches unreachable code\\n\", bad);\n"
      "      __builtin_unreachable ();\n"
      "    }\n"
      "}\n"
      "__kernel void count (__global volatile uint *hits)\n"
      "{\n"
      "  atomic_inc (&hits[get_global_id (0) - get_global_offset (0)]);\n"
      "}\n";

static cl_int
event_status (cl_event ev)
{
  cl_int status;
  CL_OK (clGetEventInfo (ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                         sizeof (status), &status, NULL));
  return status;
}

/* Runs the count kernel over n items on q and checks each ran once.  */
static void
check_queue_still_works (cltest_env *e, const char *after)
{
  count_job j;
  count_job_init (&j, e->ctx, e->prog, 4096);
  count_job_enqueue (&j, e->q, 16);
  CL_OK (clFinish (e->q));
  size_t wrong = count_job_wrong (&j);
  CHECK (wrong == 0, "after %s: %zu work-items did not run exactly once",
         after, wrong);
  count_job_release (&j);
}

int
main (void)
{
  cl_int err;
  cltest_env e;
  cltest_open (&e, fail_source, NULL);
  cl_kernel k = cltest_kernel (&e, "fail_group");
  const size_t groups = 256, local = 8, n = groups * local;
  cl_mem hits
      = cltest_buffer (&e, CL_MEM_READ_WRITE, n * sizeof (cl_uint), NULL);
  CL_OK (clSetKernelArg (k, 0, sizeof (hits), &hits));

  /* 1. One work-group of a launch fails: the launch's event fails, and a
     command that waits on it fails too, instead of running or hanging.  */
  for (cl_uint bad = 0; bad < groups; bad += 85)
    {
      cl_uint zero = 0;
      CL_OK (clEnqueueFillBuffer (e.q, hits, &zero, sizeof (zero), 0,
                                  n * sizeof (cl_uint), 0, NULL, NULL));
      CL_OK (clSetKernelArg (k, 1, sizeof (bad), &bad));
      cl_event launched, dependent;
      CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &n, &local, 0, NULL,
                                     &launched));
      cl_uint pattern = 7;
      CL_OK (clEnqueueFillBuffer (e.q, hits, &pattern, sizeof (pattern), 0,
                                  n * sizeof (cl_uint), 1, &launched,
                                  &dependent));
      err = clFinish (e.q);
      (void)err; /* PoCL may report the failure here too; either is fine.  */
      cl_int s1 = event_status (launched), s2 = event_status (dependent);
      printf ("work-group %u fails: launch status %d, dependent fill "
              "status %d\n",
              bad, s1, s2);
      CHECK (s1 < 0, "the launch with failing group %u has status %d", bad,
             s1);
      CHECK (s2 < 0, "the command waiting on the failed launch has status %d",
             s2);
      CL_OK (clReleaseEvent (launched));
      CL_OK (clReleaseEvent (dependent));
      check_queue_still_works (&e, "a failed launch");
    }

  /* 2. A launch waiting on a user event that is set to an error fails,
     and so does what waits on it; nothing hangs.  */
  cl_event user = clCreateUserEvent (e.ctx, &err);
  CL_OK (err);
  cl_uint none = (cl_uint)groups;
  CL_OK (clSetKernelArg (k, 1, sizeof (none), &none));
  cl_event launched, after;
  CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &n, &local, 1, &user,
                                 &launched));
  CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &n, &local, 1, &launched,
                                 &after));
  CL_OK (clFlush (e.q));
  CL_OK (clSetUserEventStatus (user, -1));
  clFinish (e.q);
  cl_int s1 = event_status (launched), s2 = event_status (after);
  printf ("user event failed: launch status %d, next launch status %d\n", s1,
          s2);
  CHECK (s1 < 0, "a launch waiting on a failed user event has status %d", s1);
  CHECK (s2 < 0, "a launch waiting on that launch has status %d", s2);
  CL_OK (clReleaseEvent (user));
  CL_OK (clReleaseEvent (launched));
  CL_OK (clReleaseEvent (after));
  check_queue_still_works (&e, "a failed user event");

  CL_OK (clReleaseMemObject (hits));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return cltest_finish ("cl_failure");
}
