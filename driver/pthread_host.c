/* pthread_host.c - application threads that wait for the device's
   commands run work-groups of them; see pthread_host.h.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_host.h"

#include <fenv.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#else
#define HAVE_MXCSR 0
#endif

#include "common.h"
#include "pocl_util.h"
#include "utlist.h"

#include "pthread_kernel.h"
#include "pthread_pool.h"
#include "pthread_stack.h"

/* Stack the driver's own frames may use between the check and the
   work-group function: PoCL's argument set-up and ours.  */
#define HOST_STACK_MARGIN (64u << 10)

/* What one application thread runs work-groups with.  Made on its first
   help; its buffers (local memory, and a printf buffer as big as a
   worker's: 16 MiB by default) and its stack (as big as a worker's, where
   the architecture has a switch: pthread_stack.h) are made with it, freed
   when the workers stop (pt_host_release_buffers) and made again on the
   next help, as the workers' own are; all of it is freed when the thread
   exits (the key's destructor).  */
typedef struct host_runner
{
  pt_runner runner;
  size_t local_mem_size; /* 0: no buffers */
  size_t printf_buffer_size;
  pt_stack stack;    /* none: not made yet, or no switch here */
  bool stack_failed; /* pt_stack_make failed: the thread's own stack */
  struct host_runner *prev, *next; /* in `runners`, under runners_lock */
} host_runner;

static pthread_key_t runner_key;
static pthread_once_t runner_key_once = PTHREAD_ONCE_INIT;
/* Every application thread's runner, for pt_host_release_buffers.  */
static pthread_mutex_t runners_lock = PTHREAD_MUTEX_INITIALIZER;
static host_runner *runners;

/* Under runners_lock.  */
static void
buffers_free (host_runner *h)
{
  pocl_aligned_free (h->runner.local_mem);
  pocl_aligned_free (h->runner.printf_buffer);
  h->runner.local_mem = h->runner.printf_buffer = NULL;
  h->local_mem_size = h->printf_buffer_size = 0;
  /* No thread runs on it: the workers stop when PoCL releases the device,
     once no context is left, so nobody waits for a command of it; and a
     thread that exits runs nothing.  */
  pt_stack_free (&h->stack);
  h->stack_failed = false;
}

static void
runner_free (void *p)
{
  host_runner *h = p;
  if (h == NULL)
    return;
  pthread_mutex_lock (&runners_lock);
  DL_DELETE (runners, h);
  buffers_free (h);
  pthread_mutex_unlock (&runners_lock);
  free (h);
}

void
pt_host_release_buffers (void)
{
  pthread_mutex_lock (&runners_lock);
  host_runner *h;
  DL_FOREACH (runners, h)
  buffers_free (h);
  pthread_mutex_unlock (&runners_lock);
}

static void
runner_key_make (void)
{
  pthread_key_create (&runner_key, runner_free);
}

/* The calling thread's runner for env's sizes, with its buffers, or NULL
   (out of memory).  */
static host_runner *
host_runner_get (const pt_kernel_env *env)
{
  pthread_once (&runner_key_once, runner_key_make);
  host_runner *h = pthread_getspecific (runner_key);
  /* Read without the lock: pt_host_release_buffers runs when the workers
     stop, when PoCL releases the device, which it does only once no
     context is left, so no thread waits for a command of it here.  */
  if (h != NULL && h->local_mem_size == env->local_mem_size
      && h->printf_buffer_size == env->printf_buffer_size)
    return h;
  if (h == NULL)
    {
      h = calloc (1, sizeof (*h));
      if (h == NULL)
        return NULL;
      pthread_mutex_lock (&runners_lock);
      DL_APPEND (runners, h);
      pthread_mutex_unlock (&runners_lock);
      pthread_setspecific (runner_key, h);
    }
  pthread_mutex_lock (&runners_lock);
  buffers_free (h);
  h->runner.local_mem
      = pocl_aligned_malloc (MAX_EXTENDED_ALIGNMENT, env->local_mem_size);
  h->runner.printf_buffer
      = pocl_aligned_malloc (MAX_EXTENDED_ALIGNMENT, env->printf_buffer_size);
  bool ok = h->runner.local_mem != NULL && h->runner.printf_buffer != NULL;
  if (ok)
    {
      h->local_mem_size = env->local_mem_size;
      h->printf_buffer_size = env->printf_buffer_size;
    }
  else
    buffers_free (h);
  pthread_mutex_unlock (&runners_lock);
  return ok ? h : NULL;
}

/* Makes h's stack, as big as a worker's, if it has none; whether it has
   one.  Where there is no switch, or the mapping failed once, the thread
   keeps to its own stack (stack_fits) until the workers stop.  */
static bool
host_stack_get (host_runner *h, size_t size)
{
  if (h->stack.map != NULL)
    return true;
  if (h->stack_failed)
    return false;
  if (pt_stack_make (&h->stack, size) != 0)
    h->stack_failed = true;
  return !h->stack_failed;
}

/* The calling thread's own stack, as pthread_getattr_np tells it, found
   once per thread (for the main thread glibc reads /proc to tell it).  */
static __thread uintptr_t stack_lo, stack_hi;
static __thread bool stack_known, stack_unknown;

/* Whether the calling thread may run a work-group here: the stack it runs
   on now is its own, and has `need` bytes free below this frame.  */
static bool
stack_fits (size_t need)
{
  if (!stack_known && !stack_unknown)
    {
      pthread_attr_t a;
      void *addr;
      size_t size;
      if (pthread_getattr_np (pthread_self (), &a) == 0)
        {
          if (pthread_attr_getstack (&a, &addr, &size) == 0)
            {
              stack_lo = (uintptr_t)addr;
              stack_hi = stack_lo + size;
              stack_known = true;
            }
          pthread_attr_destroy (&a);
        }
      stack_unknown = !stack_known;
    }
  if (!stack_known)
    return false;
  /* The frame's address, not a local's: under AddressSanitizer's
     use-after-return check, locals live on a fake stack on the heap,
     which looked like a foreign stack and kept every host run off.  */
  uintptr_t sp = (uintptr_t)__builtin_frame_address (0);
  /* Outside the thread's stack: a coroutine or a Julia task runs on a
     stack of its own, of a size we cannot know.  */
  if (sp <= stack_lo || sp > stack_hi)
    return false;
  return sp - stack_lo >= need + HOST_STACK_MARGIN;
}

typedef struct
{
  cl_command_queue cq;
  cl_event ev;
  uint64_t max_groups;
} wanted;

/* A queued command the thread waits for: a marker or a barrier, or an
   NDRange command small enough (max_groups 0: none, the thread cannot
   run work-groups) and not of a sub-device made by affinity domain,
   whose work-groups must run on its domain's CPUs (pt_device_domains),
   where this thread may not be.  Under the pool lock: queued commands
   are alive.  */
static bool
command_wanted (const _cl_command_node *cmd, void *arg)
{
  const wanted *w = arg;
  cl_event e = cmd->sync.event.event;
  if (w->ev != NULL ? e != w->ev : e->queue != w->cq)
    return false;
  if (pt_pool_command_is_empty (cmd))
    return true;
  return cmd->type == CL_COMMAND_NDRANGE_KERNEL
         && pt_pool_command_groups (cmd) <= w->max_groups
         && pt_device_domains (cmd->device) == 0;
}

/* A published launch the thread waits for, small enough.  Compares the
   tags only (pt_pool_launch).  */
static bool
launch_wanted (const pt_pool_launch *l, void *arg)
{
  const wanted *w = arg;
  if (w->ev != NULL ? l->event != w->ev : l->queue != w->cq)
    return false;
  return l->dispatch->num_groups <= w->max_groups && l->domains == 0;
}

/* Whether the calling thread can run work-groups on some stack: the
   driver's, unless making it failed, or else its own (stack_fits).  */
static bool
host_can_run (size_t stack_need)
{
  if (PT_STACK_SWITCH)
    {
      pthread_once (&runner_key_once, runner_key_make);
      const host_runner *h = pthread_getspecific (runner_key);
      if (h == NULL || !h->stack_failed)
        return true;
    }
  return stack_fits (stack_need);
}

bool
pt_host_may_take (const pt_workers *s, const _cl_command_node *cmd,
                  size_t stack_need)
{
  return s->host_groups > 0
         && (pt_pool_command_is_empty (cmd) || host_can_run (stack_need));
}

/* What runs on the driver's stack: the command, or a share of the
   launch.  */
typedef struct
{
  const pt_kernel_env *env;
  pt_runner *r;
  _cl_command_node *cmd;
  unsigned graced; /* pt_pool_take_command_if */
  pt_pool_launch *l;
  bool ran;
} host_run;

static void
host_run_here (void *arg)
{
  host_run *h = arg;
  if (h->cmd != NULL)
    pt_kernel_host_run (h->env, h->r, h->cmd, h->graced);
  else
    h->ran = pt_launch_host_join (h->env, h->r, h->l);
}

bool
pt_host_help (pt_workers *s, size_t stack_need, cl_command_queue cq,
              cl_event ev)
{
  /* Nothing small queued or listed: wait without taking the pool lock
     (H1 of pthread_pool.c).  Nothing is in a grace either: a command in
     one counts in H1 while queued.  */
  if (!pt_pool_host_work (&s->pool))
    return false;
  /* Work-groups only on a stack with room, the driver's or else the
     thread's own, and with our buffers (out of memory for them: the
     workers run them all).  Markers and barriers need neither.  */
  host_runner *h = host_runner_get (&s->env);
  bool on_own_stack = false;
  if (h != NULL && !host_stack_get (h, s->stack_size))
    {
      on_own_stack = stack_fits (stack_need);
      if (!on_own_stack)
        h = NULL;
    }
  pt_runner *r = h != NULL ? &h->runner : NULL;
  wanted w = { cq, ev, r != NULL ? s->host_groups : 0 };
  unsigned graced;
  _cl_command_node *cmd
      = pt_pool_take_command_if (&s->pool, command_wanted, &w, &graced);
  pt_pool_launch *l = NULL;
  if (cmd == NULL && r != NULL)
    l = pt_pool_join_launch_if (&s->pool, launch_wanted, &w);
  if (cmd == NULL && l == NULL)
    {
      /* About to wait while something small is queued, which may be a
         command a worker leaves to its enqueuer (P6), in front of what we
         wait for: end the graces.  */
      pt_pool_end_graces (&s->pool);
      return false;
    }
  if (cmd != NULL && pt_pool_command_is_empty (cmd))
    {
      /* A marker or a barrier: completing it is all a worker would do,
         and saves the hand-off to one and its wake-up of us.  */
      pocl_exec_command (cmd);
      return true;
    }

  /* Kernels set rounding and flush-to-zero for themselves
     (pocl_cpu_setup_rm_and_ftz): put the application's back.  */
  fenv_t fe;
  fegetenv (&fe);
#if HAVE_MXCSR
  unsigned csr = _mm_getcsr ();
#endif
  host_run run = { &s->env, r, cmd, graced, l, true };
  if (on_own_stack)
    host_run_here (&run);
  else
    pt_stack_run (&h->stack, host_run_here, &run);
  bool ran = run.ran;
#if HAVE_MXCSR
  _mm_setcsr (csr);
#endif
  fesetenv (&fe);
  if (s->config.stats)
    pt_workers_add_host_stats (s, &r->stats);
  return ran;
}
