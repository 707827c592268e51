/* pthread_stack.h - running a function on a stack the driver owns.

   An application thread that waits for a small launch runs its
   work-groups itself (pthread_host.h).  A kernel needs as much stack as
   a worker gives it, and the thread's own stack may be smaller (a thread
   made with a 256 KiB stack, musl's 128 KiB default) or not its own at
   all (a coroutine, a Julia task, a fiber), of a size nobody can tell.
   So the thread runs the work-groups on a stack of the driver's, as big
   as a worker's, and comes back to its own when they are done.
   Independent of PoCL.

   THE SWITCH, stated once (tests/dispatch/test_stack.c checks each):

   K1 (a call, not a context)  pt_stack_run calls fn on the stack and
      returns when fn returns: the switch is nested like any call, so
      nothing is saved but the frame pointer, and nothing is resumed but
      the caller.  No system call: the signal mask, the floating-point
      environment and the thread's identity are the caller's throughout
      (swapcontext would make a system call for the mask on each switch).
   K2 (the frame chain goes on)  The switch keeps the caller's stack
      pointer in the frame pointer register and says so in its unwind
      table (CFI), so an unwinder, a debugger or a profiler that stops in
      fn walks from fn's frames into the caller's frames on the old
      stack, and a backtrace ends where the thread's own ends.
   K3 (a guard below)  The stack is a private anonymous mapping with an
      inaccessible page at its low end: a kernel that overflows it faults
      there, as it would at a worker's guard page, instead of writing
      over other memory.
   K4 (signals)  A signal that arrives during fn runs its handler on the
      driver's stack (there is room: as much as a worker has), or on the
      thread's alternate stack where the handler asks for one
      (SA_ONSTACK): the kernel switches to that one whenever the stack
      pointer is outside it, which it is.  The mask is not touched, so no
      signal is blocked, lost or delayed.
   K5 (sanitizers)  Under AddressSanitizer the switch is announced both
      ways with the fiber hooks (__sanitizer_start_switch_fiber and
      __sanitizer_finish_switch_fiber), so that ASan knows which stack is
      current: its stack checks and its fake stacks (use-after-return
      detection) then follow the switch.  ThreadSanitizer needs nothing:
      its shadow call stack follows calls, not the stack pointer, and the
      thread stays the same thread (its fibers are for code that switches
      between logical threads, which K1 rules out).

   Where there is no switch for the architecture (PT_STACK_SWITCH 0),
   pt_stack_make fails with ENOTSUP and callers keep to the thread's own
   stack.  x86-64 and AArch64 have one.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_STACK_H
#define POCL_STEAL_PTHREAD_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__aarch64__)
#define PT_STACK_SWITCH 1
#else
#define PT_STACK_SWITCH 0
#endif

#ifdef __GNUC__
#pragma GCC visibility push(hidden)
#endif

/* A stack of the driver's: the mapping (guard page included) and the
   usable part above the guard.  All zero: none.  */
typedef struct
{
  void *map;
  size_t map_size;
  uintptr_t lo, hi; /* the usable part: [lo, hi) */
} pt_stack;

/* Maps a stack with `size` usable bytes (rounded up to pages) and a guard
   page below them (K3).  Returns 0, or an errno value: ENOTSUP where the
   architecture has no switch, ENOMEM and the like from mmap.  */
int pt_stack_make (pt_stack *s, size_t size);

/* Unmaps s (nothing if it is none) and makes it none.  Not while a thread
   runs on it.  */
void pt_stack_free (pt_stack *s);

/* Runs fn (arg) on s and returns when fn returns (K1).  s is made, and
   no thread runs on it.  */
void pt_stack_run (pt_stack *s, void (*fn) (void *), void *arg);

/* Whether address p lies in s's usable part: for tests and assertions.  */
static inline bool
pt_stack_holds (const pt_stack *s, const void *p)
{
  return (uintptr_t)p >= s->lo && (uintptr_t)p < s->hi;
}

#ifdef __GNUC__
#pragma GCC visibility pop
#endif

#endif /* POCL_STEAL_PTHREAD_STACK_H */
