/* lifecycle.c - objects released while work is in flight, process exit
   with kernels queued, and contexts created and released many times.

   Usage:
     cl_lifecycle inflight        release the kernel, program, buffer and
                                  queue while 200 launches are queued; the
                                  launches still all run, nothing hangs
     cl_lifecycle exit            exit() with long kernels queued and
                                  running (the kernel is built first);
                                  the process ends, status 0
     cl_lifecycle exit-compiling  exit() while a worker is building the
                                  kernel (POCL_CACHE_DIR must be empty:
                                  check_exit_compiling.sh): after one
                                  build (local size 32) to the end, the
                                  program launches with local size 64,
                                  waits until that build's directory
                                  appears in the cache, then exits; the
                                  process ends, status 0
     cl_lifecycle late MODULE     a launch from the destructor of MODULE
                                  (late_lib.c), loaded with dlopen after
                                  OpenCL is set up, so that it is
                                  finalised after PoCL: the launch still
                                  runs, exactly once, and the process ends
                                  with status 0.  With POCL_PTHREAD_STATS=1
                                  the driver prints its statistics from a
                                  destructor; it must not stop the workers
                                  that such a launch needs (check_late.sh
                                  checks the order)
     cl_lifecycle cycles N [MAX_HEAP_GROWTH_KIB]
                                  N rounds of context, queue, program,
                                  kernel, buffer, one checked launch,
                                  release everything, and (with
                                  POCL_ENABLE_UNINIT=1) clUnloadPlatform-
                                  Compiler, which makes PoCL shut the
                                  device down and start it again: the
                                  process's thread count must come back to
                                  where it was after the first rounds, and
                                  the heap in use may grow by at most
                                  MAX_HEAP_GROWTH_KIB (default 4096), the
                                  resident memory (freed memory
                                  returned with malloc_trim) by 4 times
                                  that

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <dlfcn.h>
#include <glob.h>
#include <malloc.h>
#include <stdint.h>
#include <unistd.h>

#include "count_kernel.h"

static const char *slow_source
    = "__kernel void slow (__global uint *out, uint rounds)\n"
      "{\n"
      "  uint x = get_global_id (0);\n"
      "  for (uint i = 0; i < rounds; ++i)\n"
      "    x = x * 1664525u + 1013904223u;\n"
      "  out[get_global_id (0)] = x;\n"
      "}\n";

/* Bytes the program has allocated with malloc and not freed, in all
   arenas: a leak shows here, while resident memory also moves with how
   the allocator keeps freed memory.  */
static long
heap_in_use_kib (void)
{
  struct mallinfo2 mi = mallinfo2 ();
  return (long)((mi.uordblks + mi.hblkhd) / 1024);
}

/* A field of /proc/self/status ("Threads", "VmRSS"), or -1.  */
static long
proc_status (const char *field)
{
  FILE *f = fopen ("/proc/self/status", "r");
  if (f == NULL)
    return -1;
  char line[256];
  size_t len = strlen (field);
  long value = -1;
  while (fgets (line, sizeof (line), f))
    if (strncmp (line, field, len) == 0 && line[len] == ':')
      {
        value = strtol (line + len + 1, NULL, 10);
        break;
      }
  fclose (f);
  return value;
}

static int
run_inflight (void)
{
  enum
  {
    LAUNCHES = 200,
    N = 4096
  };
  cltest_env e;
  cltest_open (&e, count_source, COUNT_OPTIONS);
  cl_kernel k = cltest_kernel (&e, "count");
  cl_uint zero = 0;
  cl_mem hits
      = cltest_buffer (&e, CL_MEM_READ_WRITE, N * sizeof (cl_uint), NULL);
  CL_OK (clEnqueueFillBuffer (e.q, hits, &zero, sizeof (zero), 0,
                              N * sizeof (cl_uint), 0, NULL, NULL));
  CL_OK (clSetKernelArg (k, 0, sizeof (hits), &hits));
  size_t global = N, local = 16;
  for (int i = 0; i < LAUNCHES; ++i)
    CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &global, &local, 0, NULL,
                                   NULL));
  cl_uint *host = malloc (N * sizeof (cl_uint));
  cl_event read_done;
  CL_OK (clEnqueueReadBuffer (e.q, hits, CL_FALSE, 0, N * sizeof (cl_uint),
                              host, 0, NULL, &read_done));
  /* Everything but the read's event goes now, with the launches queued or
     running; PoCL keeps what they use alive until they are done.  */
  CL_OK (clReleaseKernel (k));
  CL_OK (clReleaseProgram (e.prog));
  CL_OK (clReleaseMemObject (hits));
  CL_OK (clFlush (e.q));
  CL_OK (clReleaseCommandQueue (e.q));
  CL_OK (clWaitForEvents (1, &read_done));
  cl_int status;
  CL_OK (clGetEventInfo (read_done, CL_EVENT_COMMAND_EXECUTION_STATUS,
                         sizeof (status), &status, NULL));
  CHECK (status == CL_COMPLETE, "the read ended with status %d", status);
  size_t wrong = 0;
  for (size_t i = 0; i < N; ++i)
    wrong += host[i] != LAUNCHES;
  CHECK (wrong == 0, "%zu of %d counters are not %d (first: %u)", wrong, N,
         LAUNCHES, host[0]);
  printf ("released kernel, program, buffer and queue with %d launches in "
          "flight: all ran\n",
          LAUNCHES);
  CL_OK (clReleaseEvent (read_done));
  CL_OK (clReleaseContext (e.ctx));
  free (host);
  return cltest_finish ("cl_lifecycle inflight");
}

/* Sets up e with the kernel "slow" and queues `launches` long launches of
   it (local size 64), flushed, after one one-group launch of local size
   warm_local run to the end: that builds the work-group function for
   warm_local.  */
static void
queue_slow_launches (cltest_env *e, size_t warm_local, int launches)
{
  cltest_open (e, slow_source, NULL);
  cl_kernel k = cltest_kernel (e, "slow");
  const size_t n = 1 << 16;
  cl_mem out
      = cltest_buffer (e, CL_MEM_WRITE_ONLY, n * sizeof (cl_uint), NULL);
  cl_uint rounds = 1;
  CL_OK (clSetKernelArg (k, 0, sizeof (out), &out));
  CL_OK (clSetKernelArg (k, 1, sizeof (rounds), &rounds));
  CL_OK (clEnqueueNDRangeKernel (e->q, k, 1, NULL, &warm_local, &warm_local, 0,
                                 NULL, NULL));
  CL_OK (clFinish (e->q));
  rounds = 20000;
  CL_OK (clSetKernelArg (k, 1, sizeof (rounds), &rounds));
  size_t local = 64;
  for (int i = 0; i < launches; ++i)
    CL_OK (
        clEnqueueNDRangeKernel (e->q, k, 1, NULL, &n, &local, 0, NULL, NULL));
  CL_OK (clFlush (e->q));
}

static int
run_exit (void)
{
  /* The work-group function is built first (the same local size): exit()
     is to meet kernels running, not a build (exit-compiling).  */
  cltest_env e;
  queue_slow_launches (&e, 64, 50);
  /* Let the workers get going, so exit() meets them mid-kernel.  */
  usleep (50 * 1000);
  printf ("exiting with 50 long launches queued\n");
  fflush (stdout);
  exit (0);
}

/* The kernel "slow" with local size 64, as PoCL's kernel cache names the
   directory it creates when it starts building that work-group function
   (after generating it, before the code generation and the link).  */
static int
slow_kernel_being_built (const char *cache)
{
  char pattern[4096];
  snprintf (pattern, sizeof (pattern), "%s/*/*/slow/64-1-1*", cache);
  glob_t g;
  int found = glob (pattern, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;
  globfree (&g);
  return found;
}

static int
run_exit_compiling (void)
{
  const char *cache = getenv ("POCL_CACHE_DIR");
  CHECK (cache != NULL && !slow_kernel_being_built (cache),
         "exit-compiling needs an empty POCL_CACHE_DIR");
  if (check_failures)
    return cltest_finish ("cl_lifecycle exit-compiling");
  /* A first build, of local size 32, to the end: the code generator's
     static objects exist before the build that exit() meets (the driver
     covers those, not ones that very build constructs first).  */
  cltest_env e;
  queue_slow_launches (&e, 32, 8);
  /* 1 ms polls, for at most 5 minutes (a build takes seconds even on a
     busy machine).  */
  for (unsigned polls = 0; !slow_kernel_being_built (cache); ++polls)
    {
      CHECK (polls < 300 * 1000, "no worker started building the kernel");
      if (check_failures)
        return cltest_finish ("cl_lifecycle exit-compiling");
      usleep (1000);
    }
  printf ("exiting while a worker builds the kernel\n");
  fflush (stdout);
  exit (0);
}

/* cl_lifecycle late: the environment the module's destructor uses.  */
static cltest_env late_env;
static count_job late_job;

static void
late_launch (void)
{
  printf ("late launch from a destructor: starting\n");
  fflush (stdout);
  count_job_enqueue (&late_job, late_env.q, 64);
  CL_OK (clFinish (late_env.q));
  size_t wrong = count_job_wrong (&late_job);
  printf ("late launch from a destructor: %zu of %zu work-items wrong\n",
          wrong, late_job.n);
  fflush (stdout);
  if (wrong != 0)
    _exit (1);
}

static int
run_late (const char *module)
{
  cltest_open (&late_env, count_source, COUNT_OPTIONS);
  count_job_init (&late_job, late_env.ctx, late_env.prog, 4096);
  /* One launch first, so that the workers are running at exit.  */
  count_job_enqueue (&late_job, late_env.q, 64);
  CL_OK (clFinish (late_env.q));
  CHECK (count_job_wrong (&late_job) == 0, "the first launch went wrong");
  /* Loaded after PoCL: finalised after it.  */
  void *h = dlopen (module, RTLD_NOW);
  if (h == NULL)
    {
      fprintf (stderr, "dlopen %s: %s\n", module, dlerror ());
      return 1;
    }
  void (*arm) (void (*) (void))
      = (void (*) (void (*) (void)))dlsym (h, "late_lib_arm");
  CHECK (arm != NULL, "no late_lib_arm in %s", module);
  if (arm != NULL)
    arm (late_launch);
  return cltest_finish ("lifecycle late");
}

/* PoCL shuts the devices down only when no context is left, and the last
   reference to a context can be dropped by a worker a moment after
   clFinish returned (with the command's event), in which case the unload
   just above did nothing.  Before measuring, unload again until the
   workers are gone (fewer threads than `live`).  The bound, 30 s, is
   only there to turn a device that never shuts down into a failure
   rather than a hang; on a busy machine the workers may take a while to
   be scheduled and exit.  */
static void
wait_for_shutdown (cl_platform_id platform, long live)
{
  for (int i = 0; i < 3000 && proc_status ("Threads") >= live; ++i)
    {
      usleep (10 * 1000);
      CL_OK (clUnloadPlatformCompiler (platform));
    }
}

static int
run_cycles (unsigned rounds, long max_heap_growth_kib)
{
  cl_platform_id platform;
  cltest_cpu_device (&platform);
  const unsigned warmup = rounds < 10 ? 1 : 10;
  long threads_warm = -1, rss_warm = -1, live_warm = -1, live = -1;
  long heap_warm = -1;
  const size_t n = 1024;

  for (unsigned r = 0; r < rounds; ++r)
    {
      cltest_env e;
      cltest_open (&e, count_source, COUNT_OPTIONS);
      count_job job;
      count_job_init (&job, e.ctx, e.prog, n);
      count_job_enqueue (&job, e.q, 16);
      CL_OK (clFinish (e.q));
      CHECK (count_job_wrong (&job) == 0, "round %u: counts wrong", r);
      /* Threads while the device is in use: the workers are running.  */
      live = proc_status ("Threads");
      if (r + 1 == warmup)
        live_warm = live;
      count_job_release (&job);
      cltest_close (&e);
      /* With POCL_ENABLE_UNINIT=1, PoCL shuts the devices down here (no
         context left) and starts them again with the next context.  */
      CL_OK (clUnloadPlatformCompiler (platform));
      if (r + 1 == warmup || r + 1 == rounds)
        wait_for_shutdown (platform, live);
      if (r + 1 == warmup)
        {
          threads_warm = proc_status ("Threads");
          malloc_trim (0);
          rss_warm = proc_status ("VmRSS");
          heap_warm = heap_in_use_kib ();
        }
    }
  malloc_trim (0);
  long threads = proc_status ("Threads"), rss = proc_status ("VmRSS");
  long heap = heap_in_use_kib ();
  printf ("%u context rounds: threads in use / after release: %ld / %ld "
          "after %u rounds, %ld / %ld at the end; heap in use %ld KiB -> %ld "
          "KiB (%+ld KiB); resident %ld KiB -> %ld KiB (%+ld KiB)\n",
          rounds, live_warm, threads_warm, warmup, live, threads, heap_warm,
          heap, heap - heap_warm, rss_warm, rss, rss - rss_warm);
  CHECK (threads_warm > 0 && rss_warm > 0, "cannot read /proc/self/status");
  CHECK (live == live_warm, "threads while in use went from %ld to %ld",
         live_warm, live);
  CHECK (threads == threads_warm, "threads after release went from %ld to %ld",
         threads_warm, threads);
  const char *uninit = getenv ("POCL_ENABLE_UNINIT");
  if (uninit != NULL && uninit[0] == '1')
    CHECK (threads < live,
           "the device was shut down, but %ld threads are left of the %ld "
           "running while it was in use",
           threads, live);
  CHECK (heap - heap_warm <= max_heap_growth_kib,
         "the heap in use grew by %ld KiB over %u rounds (at most %ld)",
         heap - heap_warm, rounds - warmup, max_heap_growth_kib);
  /* Resident memory after malloc_trim, which hands back what the
     allocator kept of freed memory (without it, resident memory varies by
     tens of MiB from run to run); it also sees what is not malloc'd, such
     as thread stacks.  */
  CHECK (rss - rss_warm <= 4 * max_heap_growth_kib,
         "resident memory grew by %ld KiB over %u rounds (at most %ld)",
         rss - rss_warm, rounds - warmup, 4 * max_heap_growth_kib);
  return cltest_finish ("cl_lifecycle cycles");
}

int
main (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "inflight") == 0)
    return run_inflight ();
  if (argc >= 2 && strcmp (argv[1], "exit") == 0)
    return run_exit ();
  if (argc >= 2 && strcmp (argv[1], "exit-compiling") == 0)
    return run_exit_compiling ();
  if (argc >= 3 && strcmp (argv[1], "late") == 0)
    return run_late (argv[2]);
  if (argc >= 3 && strcmp (argv[1], "cycles") == 0)
    return run_cycles ((unsigned)atoi (argv[2]),
                       argc >= 4 ? atol (argv[3]) : 4096);
  fprintf (stderr, "usage: cl_lifecycle inflight | exit | exit-compiling | "
                   "late MODULE | cycles N [MAX_HEAP_GROWTH_KIB]\n");
  return 2;
}
