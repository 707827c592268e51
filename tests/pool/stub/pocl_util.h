/* pocl_util.h (test stub) - the aligned allocation pair the pool uses for
   its idle records, on posix_memalign.  Written for these tests.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_STUB_POCL_UTIL_H
#define POCL_STEAL_STUB_POCL_UTIL_H

#include <stddef.h>
#include <stdlib.h>

/* size bytes aligned to `alignment` (a power of two, at least a pointer's
   size), or NULL; freed with pocl_aligned_free.  */
static inline void *
pocl_aligned_malloc (size_t alignment, size_t size)
{
  void *ptr = NULL;
  if (posix_memalign (&ptr, alignment, size) != 0)
    return NULL;
  return ptr;
}

static inline void
pocl_aligned_free (void *ptr)
{
  free (ptr);
}

#endif /* POCL_STEAL_STUB_POCL_UTIL_H */
