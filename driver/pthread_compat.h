/* pthread_compat.h - what differs, for this driver, between the PoCL
   versions it builds against (7.1, 7.2, main), in one place, so that the
   rest of the driver is one source for all of them.

   The switches are set by driver/CMakeLists.txt from the PoCL tree being
   built, by looking for the feature itself, not at a version number: a
   packaged PoCL may be a fork with backports (Julia's 7.1.3 was one).

   POCL_STEAL_INIT_COMMON_DEV_I
       pocl_cpu_init_common takes the device's index (7.2 and later: it
       feeds cl_khr_device_uuid, so that each device of the driver gets a
       UUID of its own).
   POCL_STEAL_FAILED_DEPENDENCY
       struct _cl_event has `failed_dependency`, which PoCL's core sets
       on a command whose wait list holds an event that had already
       failed when the command was enqueued (main).  Such a command must
       fail, not run: no notify comes for a dependency that finished
       before the command existed.

   Layering: PoCL's headers only; the device glue (pthread_device.c)
   uses it.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_COMPAT_H
#define POCL_STEAL_PTHREAD_COMPAT_H

#include <stdbool.h>

#include "common_utils.h"
#include "pocl_cl.h"

/* pocl_cpu_init_common for the device with index dev_i of this driver.  */
static inline cl_int
pt_compat_cpu_init_common (cl_device_id device, unsigned dev_i)
{
#ifdef POCL_STEAL_INIT_COMMON_DEV_I
  return pocl_cpu_init_common (device, dev_i);
#else
  (void)dev_i;
  return pocl_cpu_init_common (device);
#endif
}

/* Whether PoCL recorded that one of ev's dependencies failed before ev's
   command was submitted (always false where PoCL does not record it:
   there a failed dependency reaches the driver through notify).  Called
   with ev locked.  */
static inline bool
pt_compat_dependency_failed (cl_event ev)
{
#ifdef POCL_STEAL_FAILED_DEPENDENCY
  return ev->failed_dependency != 0;
#else
  (void)ev;
  return false;
#endif
}

#endif /* POCL_STEAL_PTHREAD_COMPAT_H */
