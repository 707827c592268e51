/* pthread_spin.c - bounded busy-waiting; see the header.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_spin.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

uint64_t
pt_now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void
cpu_relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

bool
pt_spin_until_changed (_Atomic uint64_t *counter, uint64_t seen, uint64_t ns,
                       bool yield)
{
  if (ns == 0)
    return false;
  uint64_t deadline = pt_now_ns () + ns;
  for (;;)
    {
      /* Look a few times between clock reads: a read costs more than a
         look.  relaxed: the caller takes a lock before acting on what
         changed, and that lock orders everything else.  */
      for (int i = 0; i < 16; ++i)
        {
          if (atomic_load_explicit (counter, memory_order_relaxed) != seen)
            return true;
          if (yield)
            sched_yield ();
          else
            cpu_relax ();
        }
      if (pt_now_ns () >= deadline)
        return false;
    }
}

unsigned
pt_allowed_cpus (void)
{
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof (set), &set) == 0 && CPU_COUNT (&set) > 0)
    return (unsigned)CPU_COUNT (&set);
#endif
  long online = sysconf (_SC_NPROCESSORS_ONLN);
  return online > 0 ? (unsigned)online : 1;
}

bool
pt_oversubscribed (unsigned threads)
{
  return threads + 1 > pt_allowed_cpus ();
}
