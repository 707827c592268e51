/* pthread_spin.h - bounded busy-waiting before sleeping.

   Waking a sleeping thread costs a system call on one side and, on the
   other, the time the kernel (in a VM, the hypervisor) takes to run it
   again: tens of microseconds, sometimes a millisecond.  For a stream of
   small kernel launches that is most of a launch's cost, so idle workers,
   and host threads waiting in clFinish or clWaitForEvents, first watch a
   counter for POCL_PTHREAD_SPIN_US microseconds and only then sleep.
   With more threads than allowed CPUs they yield the CPU between looks
   instead of pausing, so a spinner never holds up a thread with work.
   Independent of PoCL.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_PTHREAD_SPIN_H
#define POCL_STEAL_PTHREAD_SPIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* CLOCK_MONOTONIC, in nanoseconds.  */
uint64_t pt_now_ns (void);

/* Waits until *counter differs from seen, for at most ns nanoseconds.
   Returns true if it changed.  yield: sched_yield between looks (for
   oversubscribed machines) rather than a pause instruction.  */
bool pt_spin_until_changed (_Atomic uint64_t *counter, uint64_t seen,
                            uint64_t ns, bool yield);

/* True when threads (the workers plus one host thread) outnumber the CPUs
   this process may run on: then spinners yield.  */
bool pt_oversubscribed (unsigned threads);

/* The number of CPUs this process may run on (its affinity mask where
   there is one, else the online CPUs); at least 1.  */
unsigned pt_allowed_cpus (void);

#endif /* POCL_STEAL_PTHREAD_SPIN_H */
