/* pthread_host.h - application threads that wait for the device's
   commands run work-groups of them.

   A thread in clFinish or clWaitForEvents (the device's join and
   wait_event operations) would otherwise only wait while a worker is told
   about the command, runs it and tells it back.  Before it waits, it
   takes part itself (pt_host_help):
     - a ready NDRange command it waits for that no worker has taken yet:
       it runs it as guest 0 of the launch, claiming before the launch is
       published, so that a launch of one work-group (or whose first
       block is one work-group) needs no worker and no wake-up at all;
       it takes over the block below that of the worker taken for the
       command (P6 of pthread_pool.c), which runs its own, or the last
       block when none was taken, so that from one launch to the next the
       same work-groups run on the same threads;
       then it runs work-groups alone while the rest looks cheaper than a
       wake-up (rule S1, pthread_share.h), and once it does not, the
       workers are woken as for any launch and take the rest; out of
       work-groups, it waits a little for theirs, so that it completes
       the launch itself (rule S3);
     - a ready marker or barrier it waits for that no worker has taken
       yet: it completes it, which is all a worker would do;
     - else a published launch it waits for with work-groups left and a
       free guest: it joins it.
   A worker leaves such a command, enqueued by the thread that then waits
   for it, to that thread for POCL_PTHREAD_HOST_GRACE_US (P6 of
   pthread_pool.c), so that the thread finds it still queued: a worker
   that took it at once would cost the hand-offs both ways.  A thread
   that waits without running anything ends those graces
   (pt_pool_end_graces): the command may be in front of what it waits
   for.
   Only launches of at most POCL_PTHREAD_HOST_GROUPS work-groups (0 turns
   this off, markers and barriers included), so that a big launch's static
   blocks, and the pages they first touch, stay with the threads the
   placement put them on; unset, of any size where the device's threads
   are all on one NUMA node, where no such placement is at stake and a
   thread waiting for a big launch would otherwise spin on a CPU a worker
   needs (or sleep, B5 of pthread_spin.h, and wait for the completion's
   wake-up): it runs a share of it instead, counted busy once the launch
   is published, so that no more helpers are woken than fit beside it
   (pt_workers.host_groups, P8 of pthread_pool.c).  Not those of a
   sub-device made by affinity domain, whose work-groups keep to its
   domain's CPUs (pthread_worker.h).

   Where the work-groups' stack is: on x86-64 and AArch64, a stack of the
   driver's, one per application thread, as big as a worker's, with a
   guard page (pthread_stack.h), made on the thread's first help and
   freed with its buffers.  So any thread runs small launches, whatever
   stack it runs on itself: a thread made with a small stack, a coroutine,
   a Julia task.  Elsewhere, or where that stack cannot be mapped, only a
   thread whose own stack has room for a kernel (as much as the workers
   give one: the device's work_group_stack_size) runs them, which is
   unknown, so no, on threads that run on another stack than their own.
   Markers and barriers need no stack: any waiting thread completes them.

   What the thread's own state sees: its floating-point environment
   (rounding, flush-to-zero, which kernels set for themselves) is restored
   after it ran work-groups; it runs them with its own local memory and
   printf buffer (made on first use, freed when the workers stop and when
   the thread exits); its
   signal mask and handlers are not touched: kernels for this device are
   compiled with PoCL's division sanitizer (run_sanitize_divrem_pass), so
   integer division by zero does not trap on any thread.

   Layering: pthread_device calls this; this calls pthread_worker (for the
   workers' environment), pthread_kernel, pthread_pool and pthread_stack.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_HOST_H
#define POCL_STEAL_PTHREAD_HOST_H

#include <stdbool.h>

#include "pocl_cl.h"

#include "pthread_worker.h"

#ifdef __GNUC__
#pragma GCC visibility push(hidden)
#endif

/* Runs work-groups of what the calling application thread waits for:
   commands of queue cq (ev NULL) or the command of event ev.  stack_need:
   the stack a work-group may use (the device's work_group_stack_size).
   Returns true if it ran something (the caller then checks again whether
   it still has to wait), false if there was nothing it may run.  */
bool pt_host_help (pt_workers *s, size_t stack_need, cl_command_queue cq,
                   cl_event ev);

/* Whether the calling application thread may take cmd when it waits for
   it, as far as it can tell before: host runs are on, and cmd is a
   marker or a barrier, or it has a stack with room for a kernel (the
   driver's, or its own with stack_need free, as for pt_host_help).  A command
   it enqueues is then left to it a while (P6 of pthread_pool.c).  */
bool pt_host_may_take (const pt_workers *s, const _cl_command_node *cmd,
                       size_t stack_need);

/* Frees the buffers of every application thread that ran work-groups (a
   printf buffer as big as a worker's, and local memory), as the workers'
   own go when they stop; a thread's next help makes them again.  Called
   when the workers stop.  */
void pt_host_release_buffers (void);

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif /* POCL_STEAL_PTHREAD_HOST_H */
