/* failure.c - commands that fail: a kernel whose work-group reaches
   unreachable code (PoCL's execution_failed flag), and commands waiting on
   a failed event.  None of them may hang, the failure must reach the
   event, and the queue must go on running later commands correctly.

   Run with POCL_WORK_GROUP_METHOD=cbs: that work-item loop (PoCL uses it
   for kernels with barriers) turns `unreachable` into a store to
   execution_failed; the work-item loops remove the block instead.

   With the argument "already-failed", also commands enqueued when an
   event of their wait list has failed already: PoCL marks them (main's
   failed_dependency) and the device must fail them without running them.
   The failed event is a user event, or a launch; a launch waiting on such
   a command fails too and runs no work-item.
   PoCL 7.1 and 7.2 have no such mark and run them, so this case is only
   for a PoCL that has it.

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

/* A launch of the count kernel over hits[0..n) waiting on `failed`, an
   event that has failed already, and one waiting on that launch: both must
   fail (or be refused at enqueue) and the kernel must not run.  */
static void
check_already_failed (cltest_env *e, cl_mem hits, size_t n, cl_event failed,
                      const char *what)
{
  cl_int err;
  cl_kernel count = cltest_kernel (e, "count");
  CL_OK (clSetKernelArg (count, 0, sizeof (hits), &hits));
  cl_uint zero = 0;
  CL_OK (clEnqueueFillBuffer (e->q, hits, &zero, sizeof (zero), 0,
                              n * sizeof (cl_uint), 0, NULL, NULL));
  CL_OK (clFinish (e->q));
  cl_event launched = NULL, next = NULL;
  err = clEnqueueNDRangeKernel (e->q, count, 1, NULL, &n, NULL, 1, &failed,
                                &launched);
  CHECK (
      err == CL_SUCCESS || err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
      "a launch waiting on %s: clEnqueueNDRangeKernel returned %d", what, err);
  if (err == CL_SUCCESS)
    {
      err = clEnqueueNDRangeKernel (e->q, count, 1, NULL, &n, NULL, 1,
                                    &launched, &next);
      CHECK (err == CL_SUCCESS
                 || err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
             "a launch waiting on that launch: clEnqueueNDRangeKernel "
             "returned %d",
             err);
    }
  clFinish (e->q);
  cl_int s1 = launched ? event_status (launched) : -1;
  cl_int s2 = next ? event_status (next) : -1;
  cl_uint *host = malloc (n * sizeof (cl_uint));
  CL_OK (clEnqueueReadBuffer (e->q, hits, CL_TRUE, 0, n * sizeof (cl_uint),
                              host, 0, NULL, NULL));
  size_t ran = 0;
  for (size_t i = 0; i < n; ++i)
    ran += host[i] != 0;
  free (host);
  printf ("waiting on %s: launch status %d, next launch status %d, %zu "
          "work-items ran\n",
          what, s1, s2, ran);
  CHECK (s1 < 0, "a launch waiting on %s has status %d", what, s1);
  CHECK (s2 < 0, "a launch waiting on that launch has status %d", s2);
  CHECK (ran == 0, "%zu work-items of launches waiting on %s ran", ran, what);
  if (launched)
    CL_OK (clReleaseEvent (launched));
  if (next)
    CL_OK (clReleaseEvent (next));
  CL_OK (clReleaseKernel (count));
  check_queue_still_works (e, what);
}

int
main (int argc, char **argv)
{
  cl_int err;
  cltest_env e;
  int already_failed = argc > 1 && strcmp (argv[1], "already-failed") == 0;
  if (argc > 1 && !already_failed)
    {
      fprintf (stderr, "usage: %s [already-failed]\n", argv[0]);
      return 2;
    }
  cltest_open (&e, fail_source, NULL);
  cl_kernel k = cltest_kernel (&e, "fail_group");
  const size_t groups = 256, local = 8, n = groups * local;
  cl_mem hits
      = cltest_buffer (&e, CL_MEM_READ_WRITE, n * sizeof (cl_uint), NULL);
  CL_OK (clSetKernelArg (k, 0, sizeof (hits), &hits));

  /* 1. One work-group of a launch fails: the launch's event fails, and a
     command that waits on it fails too, instead of running or hanging.
     The launch is held back by a user event until the dependent command
     is enqueued.  Without it, the launch may fail before the dependent is
     enqueued, and PoCL 7.1 and 7.2 then drop the dependency (an event
     that failed already makes no sync; see part 3) and run the dependent:
     that is PoCL's doing, not the driver's, and made this check flaky.  */
  for (cl_uint bad = 0; bad < groups; bad += 85)
    {
      cl_uint zero = 0;
      CL_OK (clEnqueueFillBuffer (e.q, hits, &zero, sizeof (zero), 0,
                                  n * sizeof (cl_uint), 0, NULL, NULL));
      CL_OK (clSetKernelArg (k, 1, sizeof (bad), &bad));
      cl_event gate = clCreateUserEvent (e.ctx, &err);
      CL_OK (err);
      cl_event launched, dependent;
      CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &n, &local, 1, &gate,
                                     &launched));
      cl_uint pattern = 7;
      CL_OK (clEnqueueFillBuffer (e.q, hits, &pattern, sizeof (pattern), 0,
                                  n * sizeof (cl_uint), 1, &launched,
                                  &dependent));
      CL_OK (clSetUserEventStatus (gate, CL_COMPLETE));
      CL_OK (clReleaseEvent (gate));
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
  check_queue_still_works (&e, "a failed user event");

  /* 3. Commands enqueued after their dependency failed: a failed user
     event and a launch that failed.  */
  if (already_failed)
    {
      check_already_failed (&e, hits, n, user, "a user event failed before");
      check_already_failed (&e, hits, n, launched,
                            "a launch that failed before");
    }
  CL_OK (clReleaseEvent (user));
  CL_OK (clReleaseEvent (launched));
  CL_OK (clReleaseEvent (after));

  CL_OK (clReleaseMemObject (hits));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return cltest_finish ("cl_failure");
}
