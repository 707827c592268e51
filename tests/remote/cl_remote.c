/* cl_remote.c - the client side of tests/remote: an OpenCL program that
   sees two PoCL-R servers (pocld) as two remote devices and checks what
   they run.  check_remote.sh starts the servers and runs each step as its
   own process, POCL_DEVICES=remote and POCL_REMOTE<i>_PARAMETERS naming
   the servers.

   Steps (argv[1]):
     devices CU0 CU1  exactly two devices, with CU0 and CU1 compute units:
                      the servers' POCL_CPU_MAX_CU_COUNT, so the client sees
                      two different machines;
     exactly-once     the exactly-once kernel on each device alone, from
                      one work-group to 4096, then on both at once, then a
                      chain that moves buffers between the two: written on
                      device 0, read and written on device 1, read back on
                      device 0; every result exact;
     uneven           work-groups whose cost grows with their index (the
                      last one 64 times the first), on each device and on
                      both at once; each work-item's result and count
                      exact;
     build-fail       a kernel that does not compile: the build fails with
                      CL_BUILD_PROGRAM_FAILURE and a log, and the same
                      context then builds and runs a good one;
     run-fail         a work-group that reaches unreachable code (the
                      server must run with POCL_WORK_GROUP_METHOD=cbs, as
                      tests/opencl/failure.c explains): the launch ends
                      (PoCL-R 7.2 reports it complete, with stock servers
                      too), and a launch after it on the same queue runs
                      exactly once;
     vanish           a launch of about two seconds on device 0, then
                      "launched" on stdout; the harness kills the process
                      with SIGKILL in the middle of it.
   Every step but vanish ends with "<step>: all checks passed" or the
   failed checks.  Counts of work-groups per device go to stdout as
   "groups DEVICE N", for the harness to compare with the servers'
   POCL_PTHREAD_STATS.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "../opencl/count_kernel.h"

#include <unistd.h>

#define NDEV 2

static cl_platform_id platform;
static cl_device_id devs[NDEV];
static cl_context ctx;
static cl_command_queue queues[NDEV];
static size_t groups_run[NDEV];

/* The remote devices: all devices of the first platform that has any
   (POCL_DEVICES=remote leaves PoCL's platform with only those); fails
   unless there are exactly two.  */
static void
open_devices (void)
{
  cl_uint np = 0, nd = 0;
  cl_platform_id ps[8];
  CL_OK (clGetPlatformIDs (8, ps, &np));
  for (cl_uint i = 0; i < np && i < 8; ++i)
    if (clGetDeviceIDs (ps[i], CL_DEVICE_TYPE_ALL, NDEV, devs, &nd)
            == CL_SUCCESS
        && nd > 0)
      {
        platform = ps[i];
        break;
      }
  if (nd != NDEV)
    {
      fprintf (stderr, "expected %d remote devices, found %u\n", NDEV, nd);
      exit (1);
    }
  cl_int err;
  ctx = clCreateContext (NULL, NDEV, devs, NULL, NULL, &err);
  CL_OK (err);
  for (int d = 0; d < NDEV; ++d)
    {
      queues[d]
          = clCreateCommandQueueWithProperties (ctx, devs[d], NULL, &err);
      CL_OK (err);
    }
}

static void
close_devices (void)
{
  for (int d = 0; d < NDEV; ++d)
    {
      CL_OK (clReleaseCommandQueue (queues[d]));
      printf ("groups %d %zu\n", d, groups_run[d]);
    }
  CL_OK (clReleaseContext (ctx));
}

static void
step_devices (cl_uint cu0, cl_uint cu1)
{
  cl_uint want[NDEV] = { cu0, cu1 };
  for (int d = 0; d < NDEV; ++d)
    {
      char name[256] = "", version[256] = "";
      cl_device_type type = 0;
      CL_OK (clGetDeviceInfo (devs[d], CL_DEVICE_NAME, sizeof (name), name,
                              NULL));
      CL_OK (clGetDeviceInfo (devs[d], CL_DEVICE_VERSION, sizeof (version),
                              version, NULL));
      CL_OK (clGetDeviceInfo (devs[d], CL_DEVICE_TYPE, sizeof (type), &type,
                              NULL));
      cl_uint cus = cltest_compute_units (devs[d]);
      printf ("device %d: %s, %s, %u compute units\n", d, name, version, cus);
      CHECK (cus == want[d], "device %d has %u compute units, not %u", d, cus,
             want[d]);
      CHECK (type & CL_DEVICE_TYPE_CPU, "device %d is not a CPU device", d);
      CHECK (strstr (version, "remote") != NULL
                 || strstr (version, "Remote") != NULL,
             "device %d is not a remote device: %s", d, version);
    }
}

/* Counts n work-items in work-groups of `local` on device d, checks each
   ran once.  */
static void
count_on (cl_program prog, int d, size_t n, size_t local)
{
  count_job j;
  count_job_init (&j, ctx, prog, n);
  count_job_enqueue (&j, queues[d], local);
  CL_OK (clFinish (queues[d]));
  size_t bad = count_job_wrong (&j);
  CHECK (bad == 0,
         "device %d, %zu work-items in groups of %zu: %zu ran "
         "other than once",
         d, n, local, bad);
  groups_run[d] += n / local;
  count_job_release (&j);
}

static const char chain_source[]
    = "__kernel void chain_fill (__global uint *x)\n"
      "{\n"
      "  size_t i = get_global_id (0);\n"
      "  x[i] = (uint)i * 2654435761u;\n"
      "}\n"
      "__kernel void chain_mix (__global const uint *x, __global uint *y)\n"
      "{\n"
      "  size_t i = get_global_id (0);\n"
      "  y[i] = x[i] ^ (x[(i + 1) % get_global_size (0)] >> 3);\n"
      "}\n"
      "__kernel void chain_bump (__global uint *y)\n"
      "{\n"
      "  y[get_global_id (0)] += 1u;\n"
      "}\n";

static void
step_exactly_once (void)
{
  cl_program prog = cltest_build_for (ctx, NDEV, devs, count_source, NULL);
  static const size_t shapes[][2]
      = { { 64, 64 }, { 1024, 64 }, { 4096, 64 }, { 65536, 16 } };
  for (int d = 0; d < NDEV; ++d)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
      count_on (prog, d, shapes[s][0], shapes[s][1]);

  /* Both devices at once: each its own launch, enqueued before either is
     waited for.  */
  count_job both[NDEV];
  for (int d = 0; d < NDEV; ++d)
    {
      count_job_init (&both[d], ctx, prog, 16384);
      count_job_enqueue (&both[d], queues[d], 64);
      CL_OK (clFlush (queues[d]));
    }
  for (int d = 0; d < NDEV; ++d)
    {
      CL_OK (clFinish (queues[d]));
      size_t bad = count_job_wrong (&both[d]);
      CHECK (bad == 0,
             "both at once, device %d: %zu work-items ran other "
             "than once",
             d, bad);
      groups_run[d] += 16384 / 64;
      count_job_release (&both[d]);
    }
  CL_OK (clReleaseProgram (prog));

  /* A chain across the devices: fill x on 0, mix x into y on 1, bump y on
     0; the events order them, and PoCL moves x and y between the
     servers.  */
  const size_t n = 1 << 16, local = 64;
  cl_int err;
  prog = cltest_build_for (ctx, NDEV, devs, chain_source, NULL);
  cl_kernel fill = clCreateKernel (prog, "chain_fill", &err);
  CL_OK (err);
  cl_kernel mix = clCreateKernel (prog, "chain_mix", &err);
  CL_OK (err);
  cl_kernel bump = clCreateKernel (prog, "chain_bump", &err);
  CL_OK (err);
  cl_mem x = clCreateBuffer (ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  CL_OK (err);
  cl_mem y = clCreateBuffer (ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  CL_OK (err);
  CL_OK (clSetKernelArg (fill, 0, sizeof x, &x));
  CL_OK (clSetKernelArg (mix, 0, sizeof x, &x));
  CL_OK (clSetKernelArg (mix, 1, sizeof y, &y));
  CL_OK (clSetKernelArg (bump, 0, sizeof y, &y));
  cl_event e[3];
  CL_OK (clEnqueueNDRangeKernel (queues[0], fill, 1, NULL, &n, &local, 0, NULL,
                                 &e[0]));
  CL_OK (clEnqueueNDRangeKernel (queues[1], mix, 1, NULL, &n, &local, 1, &e[0],
                                 &e[1]));
  CL_OK (clEnqueueNDRangeKernel (queues[0], bump, 1, NULL, &n, &local, 1,
                                 &e[1], &e[2]));
  cl_uint *got = malloc (n * 4);
  CL_OK (clEnqueueReadBuffer (queues[0], y, CL_TRUE, 0, n * 4, got, 1, &e[2],
                              NULL));
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    {
      cl_uint xi = (cl_uint)i * 2654435761u;
      cl_uint xn = (cl_uint)((i + 1) % n) * 2654435761u;
      bad += got[i] != ((xi ^ (xn >> 3)) + 1u);
    }
  CHECK (bad == 0, "chain across the devices: %zu of %zu results wrong", bad,
         n);
  groups_run[0] += 2 * n / local;
  groups_run[1] += n / local;
  for (int i = 0; i < 3; ++i)
    CL_OK (clReleaseEvent (e[i]));
  free (got);
  CL_OK (clReleaseMemObject (x));
  CL_OK (clReleaseMemObject (y));
  CL_OK (clReleaseKernel (fill));
  CL_OK (clReleaseKernel (mix));
  CL_OK (clReleaseKernel (bump));
  CL_OK (clReleaseProgram (prog));
}

/* Work-group g loops 64 * (g + 1) times over a hash: the last group costs
   as much as the first 64.  */
static const char uneven_source[]
    = "__kernel void uneven (__global uint *out, __global volatile uint "
      "*hits)\n"
      "{\n"
      "  uint g = get_group_id (0);\n"
      "  uint v = (uint)get_global_id (0);\n"
      "  for (uint k = 0; k < 64u * (g + 1u); ++k)\n"
      "    v = v * 1664525u + 1013904223u;\n"
      "  out[get_global_id (0)] = v;\n"
      "  atomic_inc (&hits[get_global_id (0)]);\n"
      "}\n";

static cl_uint
uneven_expected (size_t i, size_t local)
{
  cl_uint g = (cl_uint)(i / local), v = (cl_uint)i;
  for (cl_uint k = 0; k < 64u * (g + 1u); ++k)
    v = v * 1664525u + 1013904223u;
  return v;
}

typedef struct
{
  cl_kernel k;
  cl_mem out, hits;
  cl_uint *got_out, *got_hits;
} uneven_job;

static void
uneven_enqueue (uneven_job *u, cl_program prog, int d, size_t n, size_t local)
{
  cl_int err;
  cl_uint zero = 0;
  u->k = clCreateKernel (prog, "uneven", &err);
  CL_OK (err);
  u->out = clCreateBuffer (ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  CL_OK (err);
  u->hits = clCreateBuffer (ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  CL_OK (err);
  u->got_out = malloc (n * 4);
  u->got_hits = malloc (n * 4);
  CL_OK (clSetKernelArg (u->k, 0, sizeof u->out, &u->out));
  CL_OK (clSetKernelArg (u->k, 1, sizeof u->hits, &u->hits));
  CL_OK (clEnqueueFillBuffer (queues[d], u->hits, &zero, 4, 0, n * 4, 0, NULL,
                              NULL));
  CL_OK (clEnqueueNDRangeKernel (queues[d], u->k, 1, NULL, &n, &local, 0, NULL,
                                 NULL));
  CL_OK (clEnqueueReadBuffer (queues[d], u->out, CL_FALSE, 0, n * 4,
                              u->got_out, 0, NULL, NULL));
  CL_OK (clEnqueueReadBuffer (queues[d], u->hits, CL_FALSE, 0, n * 4,
                              u->got_hits, 0, NULL, NULL));
  CL_OK (clFlush (queues[d]));
  groups_run[d] += n / local;
}

static void
uneven_check (uneven_job *u, const char *what, size_t n, size_t local)
{
  size_t bad_out = 0, bad_hits = 0;
  for (size_t i = 0; i < n; ++i)
    {
      bad_out += u->got_out[i] != uneven_expected (i, local);
      bad_hits += u->got_hits[i] != 1;
    }
  CHECK (bad_out == 0 && bad_hits == 0,
         "uneven, %s: %zu results wrong, %zu work-items ran other than once",
         what, bad_out, bad_hits);
  free (u->got_out);
  free (u->got_hits);
  CL_OK (clReleaseMemObject (u->out));
  CL_OK (clReleaseMemObject (u->hits));
  CL_OK (clReleaseKernel (u->k));
}

static void
step_uneven (void)
{
  const size_t n = 256 * 16, local = 16;
  cl_program prog = cltest_build_for (ctx, NDEV, devs, uneven_source, NULL);
  uneven_job u[NDEV];
  for (int d = 0; d < NDEV; ++d)
    {
      uneven_enqueue (&u[0], prog, d, n, local);
      CL_OK (clFinish (queues[d]));
      uneven_check (&u[0], d ? "device 1" : "device 0", n, local);
    }
  for (int d = 0; d < NDEV; ++d)
    uneven_enqueue (&u[d], prog, d, n, local);
  for (int d = 0; d < NDEV; ++d)
    {
      CL_OK (clFinish (queues[d]));
      uneven_check (&u[d], "both at once", n, local);
    }
  CL_OK (clReleaseProgram (prog));
}

static void
step_build_fail (void)
{
  static const char *bad = "__kernel void broken (__global uint *x)\n"
                           "{\n"
                           "  x[get_global_id (0)] = no_such_thing;\n"
                           "}\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource (ctx, 1, &bad, NULL, &err);
  CL_OK (err);
  err = clBuildProgram (p, NDEV, devs, NULL, NULL, NULL);
  CHECK (err == CL_BUILD_PROGRAM_FAILURE,
         "a kernel that does not compile: clBuildProgram gave %d, not "
         "CL_BUILD_PROGRAM_FAILURE",
         err);
  /* PoCL-R 7.2 gives the compiler's log for the first device of the
     build only (the others' logs are empty), so the error must be named
     in one of them.  */
  int named = 0;
  for (int d = 0; d < NDEV; ++d)
    {
      char log[16384] = "";
      cl_build_status st = CL_BUILD_SUCCESS;
      CL_OK (clGetProgramBuildInfo (p, devs[d], CL_PROGRAM_BUILD_STATUS,
                                    sizeof st, &st, NULL));
      CL_OK (clGetProgramBuildInfo (p, devs[d], CL_PROGRAM_BUILD_LOG,
                                    sizeof log, log, NULL));
      CHECK (st == CL_BUILD_ERROR,
             "device %d: build status %d, not "
             "CL_BUILD_ERROR",
             d, st);
      named += strstr (log, "no_such_thing") != NULL;
    }
  CHECK (named > 0, "no device's build log names the error");
  CL_OK (clReleaseProgram (p));
  /* The same context goes on.  */
  cl_program good = cltest_build_for (ctx, NDEV, devs, count_source, NULL);
  for (int d = 0; d < NDEV; ++d)
    count_on (good, d, 4096, 64);
  CL_OK (clReleaseProgram (good));
}

static const char fail_source[]
    = "__kernel void fail_group (__global volatile uint *hits, uint bad)\n"
      "{\n"
      "  atomic_inc (&hits[get_global_id (0)]);\n"
      "  barrier (CLK_GLOBAL_MEM_FENCE);\n"
      "  if (get_group_id (0) == bad)\n"
      "    {\n"
      "      printf (\"work-group %u reaches unreachable code\\n\", bad);\n"
      "      __builtin_unreachable ();\n"
      "    }\n"
      "}\n"
      "__kernel void count (__global volatile uint *hits)\n"
      "{\n"
      "  atomic_inc (&hits[get_global_id (0) - get_global_offset (0)]);\n"
      "}\n";

static void
step_run_fail (void)
{
  cl_program prog = cltest_build_for (ctx, NDEV, devs, fail_source, NULL);
  for (int d = 0; d < NDEV; ++d)
    {
      cl_int err;
      const size_t n = 4096, local = 64;
      cl_uint bad = 17;
      cl_kernel k = clCreateKernel (prog, "fail_group", &err);
      CL_OK (err);
      cl_mem hits = clCreateBuffer (ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
      CL_OK (err);
      CL_OK (clSetKernelArg (k, 0, sizeof hits, &hits));
      CL_OK (clSetKernelArg (k, 1, sizeof bad, &bad));
      cl_event ev;
      CL_OK (clEnqueueNDRangeKernel (queues[d], k, 1, NULL, &n, &local, 0,
                                     NULL, &ev));
      err = clWaitForEvents (1, &ev);
      cl_int status = 0;
      CL_OK (clGetEventInfo (ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                             sizeof status, &status, NULL));
      printf ("device %d: failed launch: clWaitForEvents %d, status %d\n", d,
              err, status);
      /* It ends.  Locally the failure reaches the event (a negative
         status, tests/opencl/failure.c); PoCL-R 7.2 reports the launch
         complete to the client, with stock servers as with ours, so only
         the end is checked, and the status is printed.  */
      CHECK (status <= CL_COMPLETE,
             "device %d: the failed launch did not end (status %d)", d,
             status);
      CHECK (err == CL_SUCCESS
                 || err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
             "device %d: clWaitForEvents on the failed launch gave %d", d,
             err);
      CL_OK (clReleaseEvent (ev));
      CL_OK (clReleaseMemObject (hits));
      CL_OK (clReleaseKernel (k));
      groups_run[d] += n / local;
      /* The queue goes on.  */
      count_on (prog, d, 4096, 64);
    }
  CL_OK (clReleaseProgram (prog));
}

/* About two seconds of work on device 0: 64 work-groups of one work-item
   spinning on a hash.  */
static const char spin_source[]
    = "__kernel void spin (__global uint *out, uint rounds)\n"
      "{\n"
      "  uint v = (uint)get_global_id (0);\n"
      "  for (uint k = 0; k < rounds; ++k)\n"
      "    v = v * 1664525u + 1013904223u;\n"
      "  out[get_global_id (0)] = v;\n"
      "}\n";

static void
step_vanish (void)
{
  cl_int err;
  const size_t n = 64, local = 1;
  cl_uint rounds = 1u << 25; /* ~30 ms a work-group at 1 ns a round */
  cl_program prog = cltest_build_for (ctx, 1, devs, spin_source, NULL);
  cl_kernel k = clCreateKernel (prog, "spin", &err);
  CL_OK (err);
  cl_mem out = clCreateBuffer (ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  CL_OK (err);
  CL_OK (clSetKernelArg (k, 0, sizeof out, &out));
  CL_OK (clSetKernelArg (k, 1, sizeof rounds, &rounds));
  cl_event ev;
  CL_OK (clEnqueueNDRangeKernel (queues[0], k, 1, NULL, &n, &local, 0, NULL,
                                 &ev));
  CL_OK (clFlush (queues[0]));
  /* Running, or as near as the client can tell.  */
  for (int i = 0; i < 2000; ++i)
    {
      cl_int status = CL_QUEUED;
      CL_OK (clGetEventInfo (ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                             sizeof status, &status, NULL));
      if (status <= CL_RUNNING)
        break;
      usleep (1000);
    }
  usleep (100000);
  printf ("launched\n");
  fflush (stdout);
  /* The harness kills us now; should it not, end without cleaning up.  */
  sleep (60);
  _exit (2);
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr,
               "usage: %s devices CU0 CU1 | exactly-once | uneven | "
               "build-fail | run-fail | vanish\n",
               argv[0]);
      return 2;
    }
  const char *step = argv[1];
  open_devices ();
  if (!strcmp (step, "devices") && argc == 4)
    step_devices ((cl_uint)atoi (argv[2]), (cl_uint)atoi (argv[3]));
  else if (!strcmp (step, "exactly-once"))
    step_exactly_once ();
  else if (!strcmp (step, "uneven"))
    step_uneven ();
  else if (!strcmp (step, "build-fail"))
    step_build_fail ();
  else if (!strcmp (step, "run-fail"))
    step_run_fail ();
  else if (!strcmp (step, "vanish"))
    step_vanish ();
  else
    {
      fprintf (stderr, "unknown step: %s\n", step);
      return 2;
    }
  close_devices ();
  return cltest_finish (step);
}
