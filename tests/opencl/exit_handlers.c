/* exit_handlers.c - the driver registers an exit handler per kernel build,
   not per launch.

   The driver makes exit() wait for kernel builds in flight with a handler
   it registers with atexit (pthread_kernel.c, "Kernel builds at exit").
   Every launch passes through that code, but only a real build may
   re-arm the registration: otherwise a program would register one handler
   per launch, and the list of handlers would grow without bound.

   This program interposes __cxa_atexit, which atexit calls (it is
   exported: the executable is linked with ENABLE_EXPORTS, so libraries
   loaded later bind to this definition), and counts registrations.
   After a first launch, which builds the kernel, it makes LAUNCHES more
   launches of the same kernel and size, whose binary PoCL finds in its
   caches, and checks that they registered at most MAX_NEW handlers in
   all (a cache lookup preempted for over a millisecond may re-arm one;
   one per launch is the defect: re-arming on every launch gave 200).

   Usage: cl_exit_handlers [LAUNCHES [MAX_NEW]]   (default 200 and 10)

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cltest.h"

static atomic_ulong registrations;

typedef int (*cxa_atexit_fn) (void (*) (void *), void *, void *);

/* Counts and forwards to the C library's own.  */
int
__cxa_atexit (void (*fn) (void *), void *arg, void *dso)
{
  static _Atomic (cxa_atexit_fn) next;
  cxa_atexit_fn f = atomic_load (&next);
  if (f == NULL)
    {
      f = (cxa_atexit_fn)dlsym (RTLD_NEXT, "__cxa_atexit");
      if (f == NULL)
        abort ();
      atomic_store (&next, f);
    }
  atomic_fetch_add (&registrations, 1);
  return f (fn, arg, dso);
}

static const char *source = "__kernel void fill (__global uint *out)\n"
                            "{\n"
                            "  out[get_global_id (0)] = get_global_id (0);\n"
                            "}\n";

int
main (int argc, char **argv)
{
  unsigned long launches = argc > 1 ? strtoul (argv[1], NULL, 10) : 200;
  unsigned long max_new = argc > 2 ? strtoul (argv[2], NULL, 10) : 10;

  cltest_env e;
  cltest_open (&e, source, NULL);
  cl_kernel k = cltest_kernel (&e, "fill");
  enum
  {
    N = 4096
  };
  cl_mem out
      = cltest_buffer (&e, CL_MEM_WRITE_ONLY, N * sizeof (cl_uint), NULL);
  CL_OK (clSetKernelArg (k, 0, sizeof (out), &out));
  size_t global = N, local = 64;

  /* The first launch builds the work-group function.  */
  CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &global, &local, 0, NULL,
                                 NULL));
  CL_OK (clFinish (e.q));
  unsigned long before = atomic_load (&registrations);
  for (unsigned long i = 0; i < launches; ++i)
    {
      CL_OK (clEnqueueNDRangeKernel (e.q, k, 1, NULL, &global, &local, 0, NULL,
                                     NULL));
      CL_OK (clFinish (e.q));
    }
  unsigned long added = atomic_load (&registrations) - before;
  printf ("exit handlers registered: %lu before, %lu during %lu launches of "
          "a built kernel\n",
          before, added, launches);
  /* The interposition must have worked, or the check below proves
     nothing: the C library and PoCL's own libraries register handlers as
     they start.  */
  CHECK (before > 0,
         "no __cxa_atexit call was seen at all: the interposition failed");
  CHECK (added <= max_new,
         "%lu launches of a built kernel registered %lu exit handlers "
         "(at most %lu expected: one per kernel build)",
         launches, added, max_new);

  cl_uint first = 0;
  CL_OK (clEnqueueReadBuffer (e.q, out, CL_TRUE, 7 * sizeof (cl_uint),
                              sizeof (first), &first, 0, NULL, NULL));
  CHECK (first == 7, "out[7] = %u, expected 7", first);

  CL_OK (clReleaseMemObject (out));
  CL_OK (clReleaseKernel (k));
  cltest_close (&e);
  return cltest_finish ("exit_handlers");
}
