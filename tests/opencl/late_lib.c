/* late_lib.c - a module that cl_lifecycle late loads with dlopen after
   setting up OpenCL, so that glibc runs its destructor after PoCL's (the
   objects loaded last are finalised last): the destructor calls the
   function the program gave it, which makes a launch.  That is what a
   plugin or language runtime loaded late does when it releases its
   OpenCL work at exit.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <stddef.h>

void late_lib_arm (void (*fn) (void));

static void (*late_fn) (void);

void
late_lib_arm (void (*fn) (void))
{
  late_fn = fn;
}

static void __attribute__ ((destructor))
late_lib_fini (void)
{
  if (late_fn != NULL)
    late_fn ();
}
