/* pthread_pool.c - the pool's queues and the idle workers' sleep/wake
   hand-off; see pthread_pool.h.

   THE HAND-OFF, stated once (tests/model/pool_wake.pml checks it for small
   cases; each step below cites the rule it relies on):

   P1 (search and flag under one lock hold)  A worker searches the queues
      and, finding nothing, sets its `spinning` or `sleeping` flag without
      releasing the pool lock in between.  Every push appends and bumps
      work_seq under the same lock.  So a push is either before the search
      (which finds it) or after the flag is set (and the pusher sees it).
   P2 (a spinner looks again after any push)  A spinner reads work_seq
      under the lock, before dropping it; every later push changes it, and
      the spinner then retakes the lock and searches again.  So a push that
      wakes nobody because a spinner is there is looked at by that spinner.
   P3 (waking is marking)  A waker clears the sleeper's `sleeping` flag
      under the lock and signals it after unlocking (signalling under the
      lock would make the woken thread wait for the signaller's lock).  The
      sleeper waits in a loop while the flag is set, so a signal that comes
      before its wait, or a spurious wake-up, changes nothing.
   P4 (shutdown)  pt_pool_shutdown sets `shutdown` under the lock, bumps
      work_seq (cutting spins short) and marks every sleeper woken; every
      worker checks `shutdown` under the lock before it waits.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_pool.h"

#include <stdlib.h>
#include <string.h>

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
  atomic_init (&p->work_seq, 0);
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

/* P3: marks an idle worker as woken.  Call with the pool lock held, and
   signal it with wake_signal() after dropping the lock.  */
static void
wake_mark (pt_pool *p, unsigned index)
{
  p->idle[index].sleeping = false;
}

static void
wake_signal (pt_pool *p, unsigned index)
{
  pthread_cond_signal (&p->idle[index].wake);
}

/* P1, P2: tells spinning workers that something was pushed.  Under the
   pool lock.  relaxed: a spinner that sees it takes the lock before
   looking.  */
static void
announce_work (pt_pool *p)
{
  atomic_fetch_add_explicit (&p->work_seq, 1, memory_order_relaxed);
}

void
pt_pool_push_command (pt_pool *p, _cl_command_node *cmd)
{
  unsigned first, count;
  pt_pool_device_threads (p, cmd->device, &first, &count);
  unsigned woken = p->num_threads;

  pthread_mutex_lock (&p->lock);
  DL_APPEND (p->commands, cmd);
  announce_work (p);
  /* One worker suffices for a command: a spinning one will see it (P2),
     else wake a sleeping one (P3).  If none of the device's workers is
     idle, the busy ones search the queue before they go idle (P1).  */
  bool spinner = false;
  for (unsigned i = 0; i < count && !spinner; ++i)
    spinner = p->idle[first + i].spinning;
  for (unsigned i = 0; i < count && !spinner; ++i)
    if (p->idle[first + i].sleeping)
      {
        wake_mark (p, first + i);
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
  DL_APPEND (p->launches, l);
  announce_work (p);
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
  /* Idle workers that would find work of their own, in thread order.
     Spinning ones are on their way already (P2).  */
  for (unsigned i = 0; i < l->num_threads && n > 0; ++i)
    if (p->idle[l->first_thread + i].spinning
        && wgd_thread_has_work (l->dispatch, i))
      --n;
  for (unsigned i = 0; i < l->num_threads && k < n; ++i)
    {
      unsigned index = l->first_thread + i;
      if (p->idle[index].sleeping && wgd_thread_has_work (l->dispatch, i))
        {
          wake_mark (p, index);
          woken[k++] = index;
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
      /* Nothing for us.  First watch for pushes a while (P1, P2): pushers
         see us spinning and leave us to find their work; we search again,
         under the lock, when anything was pushed and when the spin ends.  */
      if (!spun && p->spin_ns > 0)
        {
          /* relaxed: see announce_work.  */
          uint64_t seen
              = atomic_load_explicit (&p->work_seq, memory_order_relaxed);
          me->spinning = true;
          pthread_mutex_unlock (&p->lock);
          spun = !pt_spin_until_changed (&p->work_seq, seen, p->spin_ns,
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

void
pt_pool_shutdown (pt_pool *p)
{
  pthread_mutex_lock (&p->lock);
  p->shutdown = true;
  announce_work (p); /* P4: cuts spins short */
  for (unsigned i = 0; i < p->num_threads; ++i)
    wake_mark (p, i);
  pthread_mutex_unlock (&p->lock);
  for (unsigned i = 0; i < p->num_threads; ++i)
    wake_signal (p, i);
}
