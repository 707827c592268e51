/* common.h (test stub) - PoCL's driver helpers; the pool needs none of
   them, so this is empty, and it exists only because pthread_pool.c
   includes it.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_STUB_COMMON_H
#define POCL_STEAL_STUB_COMMON_H

#include "pocl_cl.h"

#endif /* POCL_STEAL_STUB_COMMON_H */
