/* pthread_pool.c - the pool's queues and the idle workers' sleep/wake
   hand-off; see pthread_pool.h.

   THE HAND-OFF, stated once (tests/model/pool_wake.pml checks it for small
   cases; each step below cites the rule it relies on):

   P1 (search and flag under one lock hold)  A worker searches the queues
      and, finding nothing, sets its `spinning` or `sleeping` flag without
      releasing the pool lock in between.  Every push appends under the
      same lock.  So a push is either before the search (which finds it)
      or after the flag is set (and the pusher sees it).
   P2 (kicking is unflagging)  A pusher that leaves its work to a spinner
      takes that spinner: it clears the spinner's `spinning` flag and bumps
      its own `kick` counter under the lock.  The spinner read `kick` under
      the lock before dropping it, so it sees the change, retakes the lock
      and searches again.  A taken spinner is no longer counted as idle, so
      the next push takes another worker: one idle worker answers one push.
      Nobody else's `kick` changes, so pushes for other sub-devices never
      renew a spin.
   P3 (waking is marking)  A waker clears the sleeper's `sleeping` flag
      under the lock and signals it after unlocking (signalling under the
      lock would make the woken thread wait for the signaller's lock).  The
      sleeper waits in a loop while the flag is set, so a signal that comes
      before its wait, or a spurious wake-up, changes nothing.
   P4 (shutdown)  pt_pool_shutdown sets `shutdown` under the lock, kicks
      every worker (cutting spins short) and marks every sleeper woken;
      every worker checks `shutdown` under the lock before it waits.
   P5 (a worker takes what it was woken for)  A worker woken or kicked for
      a command records it (`woken_for`) and, while that command is still
      queued, takes it before any other command or launch.  So a command
      whose pusher took worker w is run by w or by a worker that searched
      before w (P1), never left queued because w took another device's
      command instead.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_pool.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "pocl_util.h"
#include "utlist.h"

#include "pthread_spin.h"

cl_int
pt_pool_init (pt_pool *p, unsigned num_threads, uint64_t spin_ns,
              bool oversubscribed, bool skip_claimed)
{
  memset (p, 0, sizeof (*p));
  p->num_threads = num_threads > 0 ? num_threads : 1;
  p->spin_ns = spin_ns;
  p->oversubscribed = oversubscribed;
  p->skip_claimed = skip_claimed;
  size_t bytes = p->num_threads * sizeof (pt_idle);
  p->idle = pocl_aligned_malloc (WGD_CACHELINE, bytes);
  if (p->idle == NULL)
    return CL_OUT_OF_HOST_MEMORY;
  memset (p->idle, 0, bytes);
  for (unsigned i = 0; i < p->num_threads; ++i)
    pthread_cond_init (&p->idle[i].wake, NULL);
  pthread_mutex_init (&p->lock, NULL);
  /* relaxed: the pool is published to the workers by pthread_create.  */
  for (unsigned i = 0; i < p->num_threads; ++i)
    atomic_init (&p->idle[i].kick, 0);
  return CL_SUCCESS;
}

void
pt_pool_destroy (pt_pool *p)
{
  if (p->idle == NULL)
    return;
  for (unsigned i = 0; i < p->num_threads; ++i)
    pthread_cond_destroy (&p->idle[i].wake);
  pocl_aligned_free (p->idle);
  p->idle = NULL;
  pthread_mutex_destroy (&p->lock);
}

void
pt_pool_device_threads (const pt_pool *p, cl_device_id dev, unsigned *first,
                        unsigned *count)
{
  unsigned f = 0, n = p->num_threads;
  if (dev != NULL && dev->parent_device != NULL)
    {
      /* core_start counts from the root device, also for sub-sub-devices. */
      f = dev->core_start;
      n = dev->core_count;
    }
  if (f >= p->num_threads)
    f = p->num_threads - 1;
  if (n == 0 || n > p->num_threads - f)
    n = p->num_threads - f;
  *first = f;
  *count = n;
}

static bool
serves (const pt_pool *p, unsigned index, cl_device_id dev)
{
  unsigned first, count;
  pt_pool_device_threads (p, dev, &first, &count);
  return index >= first && index < first + count;
}

/* P2: tells a spinning worker to look again.  Under the pool lock.
   relaxed: the spinner that sees it takes the lock before looking.  */
static void
kick (pt_pool *p, unsigned index)
{
  atomic_fetch_add_explicit (&p->idle[index].kick, 1, memory_order_relaxed);
}

static void
wake_signal (pt_pool *p, unsigned index)
{
  pthread_cond_signal (&p->idle[index].wake);
}

/* Takes idle worker `index` for work (for command cmd, or NULL for a
   launch), under the pool lock: a spinner is kicked and no longer counts
   as spinning (P2); a sleeper is marked woken (P3), and true says that
   the caller must signal it with wake_signal() after dropping the lock.
   Either way it records what it was taken for (P5).  */
static bool
take_idle (pt_pool *p, unsigned index, _cl_command_node *cmd)
{
  pt_idle *w = &p->idle[index];
  w->woken_for = cmd;
  if (w->spinning)
    {
      w->spinning = false;
      kick (p, index);
      return false;
    }
  w->sleeping = false;
  return true;
}

static inline bool
is_idle (const pt_pool *p, unsigned index)
{
  return p->idle[index].spinning || p->idle[index].sleeping;
}

void
pt_pool_push_command (pt_pool *p, _cl_command_node *cmd)
{
  unsigned first, count;
  pt_pool_device_threads (p, cmd->device, &first, &count);
  unsigned woken = p->num_threads;

  pthread_mutex_lock (&p->lock);
  DL_APPEND (p->commands, cmd);
  /* One worker suffices for a command: take one idle worker of the
     device, spinning or asleep (P2, P3).  If none is idle, the busy ones
     search the queue before they go idle (P1).  */
  for (unsigned i = 0; i < count; ++i)
    if (is_idle (p, first + i))
      {
        if (take_idle (p, first + i, cmd))
          woken = first + i;
        break;
      }
  pthread_mutex_unlock (&p->lock);
  if (woken < p->num_threads)
    wake_signal (p, woken);
}

void
pt_pool_push_launch (pt_pool *p, pt_pool_launch *l)
{
  /* relaxed: l is published to the workers by the pool lock below.  */
  atomic_store_explicit (&l->refs, 2, memory_order_relaxed);
  pthread_mutex_lock (&p->lock);
  l->seq = ++p->launch_seq;
  l->wake_cursor = 0;
  DL_APPEND (p->launches, l);
  /* Nobody is kicked: the pusher joins the launch and wakes helpers
     (pt_pool_wake_helpers); busy workers search before going idle (P1).  */
  pthread_mutex_unlock (&p->lock);
}

void
pt_pool_wake_helpers (pt_pool *p, pt_pool_launch *l, unsigned n)
{
  unsigned woken[PT_WAKE_FAN_OUT];
  unsigned k = 0;
  if (n > PT_WAKE_FAN_OUT)
    n = PT_WAKE_FAN_OUT;

  pthread_mutex_lock (&p->lock);
  /* Idle workers that would find work of their own, spinning or asleep:
     each one taken answers one wake-up (P2, P3).  In thread order from
     where the launch's previous wake-up stopped: a worker looked at once
     is never looked at again for this launch, so all the joiners together
     look at each worker at most once, not each joiner at every worker.
     Nothing is lost by not looking again: a worker that was busy, or
     became idle after the cursor passed it, searches the launch list
     before it goes idle (P1) and joins by itself.  */
  unsigned taken = 0;
  while (l->wake_cursor < l->num_threads && taken < n)
    {
      unsigned i = l->wake_cursor++;
      unsigned index = l->first_thread + i;
      if (is_idle (p, index) && wgd_thread_has_work (l->dispatch, i))
        {
          if (take_idle (p, index, NULL))
            woken[k++] = index;
          ++taken;
        }
    }
  pthread_mutex_unlock (&p->lock);
  for (unsigned i = 0; i < k; ++i)
    wake_signal (p, woken[i]);
}

void
pt_pool_unlink_launch (pt_pool *p, pt_pool_launch *l)
{
  pthread_mutex_lock (&p->lock);
  DL_DELETE (p->launches, l);
  pthread_mutex_unlock (&p->lock);
  /* The list's reference; the caller holds another, so this is never the
     last.  */
  pt_pool_launch_release (l);
}

bool
pt_pool_launch_release (pt_pool_launch *l)
{
  /* acq_rel: everything a holder did with l happens before the free by
     whoever drops the last reference.  */
  return atomic_fetch_sub_explicit (&l->refs, 1, memory_order_acq_rel) == 1;
}

/* A launch of worker `index`'s device with work-groups left, or NULL.
   Under the lock.  */
static pt_pool_launch *
find_launch (pt_pool *p, unsigned index, uint64_t gave_up_seq)
{
  pt_pool_launch *l;
  DL_FOREACH (p->launches, l)
  {
    if (index < l->first_thread || index >= l->first_thread + l->num_threads)
      continue;
    /* The skip: a launch whose work-groups are all claimed is finishing;
       joining it would only find nothing to do.  Its last claimer is
       about to take it out of the list.  The count can lag behind the
       blocks (W5 of wg_dispatch.c), so a worker that joined a launch in
       vain does not join it again: it would spin on the pool lock until
       the claimer runs.  */
    if (p->skip_claimed
        && (wgd_unclaimed (l->dispatch) == 0 || l->seq == gave_up_seq))
      continue;
    return l;
  }
  return NULL;
}

/* The oldest command worker `index` may run, removed from the queue, or
   NULL.  Under the lock.  The whole queue is searched: commands of other
   sub-devices may stand in front.  */
static _cl_command_node *
take_command (pt_pool *p, unsigned index)
{
  _cl_command_node *cmd;
  DL_FOREACH (p->commands, cmd)
  {
    if (serves (p, index, cmd->device))
      {
        DL_DELETE (p->commands, cmd);
        return cmd;
      }
  }
  return NULL;
}

/* Command cmd, removed from the queue, if it is still there (P5), else
   NULL.  Under the lock.  Compares pointers only: cmd may be gone.  */
static _cl_command_node *
take_this_command (pt_pool *p, const _cl_command_node *cmd)
{
  _cl_command_node *c;
  DL_FOREACH (p->commands, c)
  {
    if (c == cmd)
      {
        DL_DELETE (p->commands, c);
        return c;
      }
  }
  return NULL;
}

bool
pt_pool_wait (pt_pool *p, unsigned index, uint64_t gave_up_seq, pt_work *out)
{
  pt_idle *me = &p->idle[index];
  /* Whether this idle spell already had its spin: then it sleeps.  */
  bool spun = false;
  out->command = NULL;
  out->launch = NULL;

  pthread_mutex_lock (&p->lock);
  while (!p->shutdown)
    {
      /* P5: what we were woken for first, if it is still queued.  */
      _cl_command_node *mine = me->woken_for;
      me->woken_for = NULL;
      if (mine != NULL)
        {
          out->command = take_this_command (p, mine);
          if (out->command != NULL)
            break;
        }
      pt_pool_launch *l = find_launch (p, index, gave_up_seq);
      if (l != NULL)
        {
          /* relaxed: the list holds a reference while l is linked, and we
             hold the lock that guards the list, so l cannot be freed under
             us; the lock orders the rest.  */
          atomic_fetch_add_explicit (&l->refs, 1, memory_order_relaxed);
          out->launch = l;
          break;
        }
      out->command = take_command (p, index);
      if (out->command != NULL)
        break;
      /* Nothing for us.  First watch our kick counter a while (P1, P2):
         a pusher that takes us bumps it; we search again, under the lock,
         when it changed and when the spin ends.  */
      if (!spun && p->spin_ns > 0)
        {
          /* relaxed: see kick.  */
          uint64_t seen
              = atomic_load_explicit (&me->kick, memory_order_relaxed);
          me->spinning = true;
          pthread_mutex_unlock (&p->lock);
          spun = !pt_spin_until_changed (&me->kick, seen, p->spin_ns,
                                         p->oversubscribed);
          pthread_mutex_lock (&p->lock);
          me->spinning = false;
          continue;
        }
      /* Then sleep until someone hands us work (P1, P3).  */
      spun = false;
      me->sleeping = true;
      while (me->sleeping && !p->shutdown)
        pthread_cond_wait (&me->wake, &p->lock);
      me->sleeping = false;
    }
  bool running = !p->shutdown;
  pthread_mutex_unlock (&p->lock);
  return running;
}

bool
pt_pool_when_idle (pt_pool *p, void (*fn) (void *), void *arg,
                   unsigned wait_ms)
{
  /* Polled: this is for exit, where a worker that just completed the last
     event is a moment away from its idle loop.  */
  for (unsigned waited_us = 0;; waited_us += 200)
    {
      pthread_mutex_lock (&p->lock);
      bool idle = p->commands == NULL && p->launches == NULL;
      for (unsigned i = 0; i < p->num_threads && idle; ++i)
        idle = is_idle (p, i);
      if (idle)
        fn (arg);
      pthread_mutex_unlock (&p->lock);
      if (idle)
        return true;
      if (waited_us >= wait_ms * 1000u)
        return false;
      struct timespec pause = { 0, 200 * 1000 };
      nanosleep (&pause, NULL);
    }
}

void
pt_pool_shutdown (pt_pool *p)
{
  pthread_mutex_lock (&p->lock);
  p->shutdown = true;
  for (unsigned i = 0; i < p->num_threads; ++i)
    {
      kick (p, i); /* P4: cuts spins short */
      p->idle[i].sleeping = false;
    }
  pthread_mutex_unlock (&p->lock);
  for (unsigned i = 0; i < p->num_threads; ++i)
    wake_signal (p, i);
}
