/* pocl_cl.h (test stub) - the few PoCL types the pool uses, so that
   tests/pool/ can build driver/pthread_pool.c without PoCL.  Only what the
   pool reads is here; the real header has much more.  Written for these
   tests, not taken from PoCL.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_STUB_POCL_CL_H
#define POCL_STEAL_STUB_POCL_CL_H

#include <stdint.h>

typedef int32_t cl_int;

#define CL_SUCCESS 0
#define CL_OUT_OF_HOST_MEMORY (-6)

/* A device as pt_pool_device_threads sees it: a root device has no parent
   and is served by every pool thread; a sub-device by core_count threads
   from core_start, counted from the root.  */
struct _cl_device_id
{
  struct _cl_device_id *parent_device;
  unsigned core_start;
  unsigned core_count;
};
typedef struct _cl_device_id *cl_device_id;

typedef uint32_t cl_command_type;
#define CL_COMMAND_NDRANGE_KERNEL 0x11F0
#define CL_COMMAND_NATIVE_KERNEL 0x11F2
#define CL_COMMAND_MARKER 0x11FE
#define CL_COMMAND_BARRIER 0x1205

/* A launch's work-group counts, all the pool reads of it.  */
struct pocl_context
{
  uint32_t num_groups[3];
};

/* A queued command: the pool links it into its FIFO (prev, next, see
   utlist.h) and reads the device it is for, its type and, of an NDRange
   command, its work-group counts (H1 of pthread_pool.c).  */
typedef struct _cl_command_node _cl_command_node;
struct _cl_command_node
{
  cl_device_id device;
  cl_command_type type;
  union
  {
    struct
    {
      struct pocl_context pc;
    } run;
  } command;
  _cl_command_node *next;
  _cl_command_node *prev;
};

#endif /* POCL_STEAL_STUB_POCL_CL_H */
