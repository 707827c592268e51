/* pthread_pool.c - the worker threads of the pthread device.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_pool.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "pocl_util.h"
#include "utlist.h"

#include "pthread_kernel.h"
#include "pthread_placement.h"
#include "pthread_spin.h"

/* Workers run kernels' work-group functions on their own stack; PoCL sizes
   its stack-size check (HOST_CPU_ENABLE_STACK_SIZE_CHECK) from this.  */
#define WORKER_STACK_SIZE (8u << 20)

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
serves (const pt_pool *p, const pt_worker *w, cl_device_id dev)
{
  unsigned first, count;
  pt_pool_device_threads (p, dev, &first, &count);
  return w->index >= first && w->index < first + count;
}

/* Marks an idle worker as woken.  Call with the pool lock held, and
   signal it with wake_signal() after dropping the lock: a worker that
   wakes must take the lock, so signalling under it makes the worker wait
   for the signaller, and the signaller pay for the futex call while
   everybody else waits for the lock.  */
static void
wake_mark (pt_worker *w)
{
  w->sleeping = false;
}

static void
wake_signal (pt_worker *w)
{
  pthread_cond_signal (&w->wake);
}

/* Tells spinning workers that something was pushed.  Under the pool lock;
   relaxed: a spinner that sees it takes the lock before looking.  */
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
  pt_worker *woken = NULL;

  pthread_mutex_lock (&p->lock);
  DL_APPEND (p->commands, cmd);
  announce_work (p);
  /* One worker suffices for a command: a spinning one will see it, else
     wake a sleeping one.  If none of the device's workers is idle, the
     busy ones look at the queue before they go to sleep.  */
  bool spinner = false;
  for (unsigned i = 0; i < count && !spinner; ++i)
    spinner = p->workers[first + i].spinning;
  for (unsigned i = 0; i < count && !spinner; ++i)
    {
      pt_worker *w = &p->workers[first + i];
      if (w->sleeping)
        {
          wake_mark (w);
          woken = w;
          break;
        }
    }
  pthread_mutex_unlock (&p->lock);
  if (woken != NULL)
    wake_signal (woken);
}

void
pt_pool_push_launch (pt_pool *p, pt_launch *l)
{
  pthread_mutex_lock (&p->lock);
  l->seq = ++p->launch_seq;
  DL_APPEND (p->launches, l);
  announce_work (p);
  pthread_mutex_unlock (&p->lock);
}

void
pt_pool_wake_helpers (pt_pool *p, pt_launch *l, unsigned n)
{
  pt_worker *woken[PT_WAKE_FAN_OUT];
  unsigned k = 0;
  uint64_t groups = l->dispatch->num_groups;
  if (n > PT_WAKE_FAN_OUT)
    n = PT_WAKE_FAN_OUT;

  pthread_mutex_lock (&p->lock);
  /* Idle workers whose blocks hold work-groups, in block order: with fewer
     work-groups than threads, only the first blocks do.  Spinning ones are
     on their way already.  */
  for (unsigned i = 0; i < l->num_threads && i < groups && n > 0; ++i)
    if (p->workers[l->first_thread + i].spinning)
      --n;
  for (unsigned i = 0; i < l->num_threads && i < groups && k < n; ++i)
    {
      pt_worker *w = &p->workers[l->first_thread + i];
      if (w->sleeping)
        {
          wake_mark (w);
          woken[k++] = w;
        }
    }
  pthread_mutex_unlock (&p->lock);
  for (unsigned i = 0; i < k; ++i)
    wake_signal (woken[i]);
}

void
pt_pool_unlink_launch (pt_pool *p, pt_launch *l)
{
  pthread_mutex_lock (&p->lock);
  DL_DELETE (p->launches, l);
  pthread_mutex_unlock (&p->lock);
}

/* A launch of w's device with work-groups left, or NULL.  Under the lock. */
static pt_launch *
find_launch (pt_pool *p, pt_worker *w)
{
  pt_launch *l;
  DL_FOREACH (p->launches, l)
  {
    if (w->index < l->first_thread
        || w->index >= l->first_thread + l->num_threads)
      continue;
    /* The remaining_wgs skip: a launch whose work-groups are all claimed
       is finishing; joining it would only find nothing to do.  Its last
       claimer is about to take it out of the list.  The count can lag
       behind the blocks (a claimer preempted between its CAS and its
       subtraction), so a worker that joined a launch in vain does not
       join it again: it would spin on the pool lock until the claimer
       runs.  */
    if (p->config.skip_claimed
        && (wgd_unclaimed (l->dispatch) == 0 || l->seq == w->gave_up_seq))
      continue;
    return l;
  }
  return NULL;
}

/* The oldest command w may run, removed from the queue, or NULL.  Under the
   lock.  The whole queue is searched: commands of other sub-devices may
   stand in front.  */
static _cl_command_node *
take_command (pt_pool *p, pt_worker *w)
{
  _cl_command_node *cmd;
  DL_FOREACH (p->commands, cmd)
  {
    if (serves (p, w, cmd->device))
      {
        DL_DELETE (p->commands, cmd);
        return cmd;
      }
  }
  return NULL;
}

static void
run_command (pt_pool *p, pt_worker *w, _cl_command_node *cmd)
{
  if (cmd->type == CL_COMMAND_NDRANGE_KERNEL)
    pt_kernel_run_command (p, w, cmd);
  else
    pocl_exec_command (cmd);
}

static void
warn (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fputs ("pocl: warning: ", stderr);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
}

/* Pins the calling worker to its CPU; warns once if that fails and runs
   on unpinned.  */
static void
pin_self (pt_pool *p, pt_worker *w)
{
#ifdef __linux__
  static atomic_flag warned = ATOMIC_FLAG_INIT;
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (p->cpu_of[w->index], &set);
  int err = pthread_setaffinity_np (pthread_self (), sizeof (set), &set);
  /* relaxed: a flag for printing once, nothing else hangs on it.  */
  if (err != 0
      && !atomic_flag_test_and_set_explicit (&warned, memory_order_relaxed))
    warn ("POCL_AFFINITY=1: could not pin a thread to CPU %d (%s); the "
          "threads run unpinned\n",
          p->cpu_of[w->index], strerror (err));
#else
  (void)p;
  (void)w;
#endif
}

static void *
worker_main (void *arg)
{
  pt_worker *w = arg;
  pt_pool *p = w->pool;

  /* A name for top, gdb and the tests: "pocl-cpu-<index>".  */
#ifdef __linux__
  char name[16];
  snprintf (name, sizeof (name), "pocl-cpu-%u", w->index);
  pthread_setname_np (pthread_self (), name);
#endif
  if (p->cpu_of != NULL)
    pin_self (p, w);

#ifdef POCL_DEBUG_MESSAGES
  if (pocl_get_bool_option ("POCL_DUMP_TASK_GRAPHS", 0) == 1)
    pocl_dump_dot_task_graph_wait ();
#endif

  /* Whether this idle spell already had its spin: then it sleeps.  */
  bool spun = false;
  pthread_mutex_lock (&p->lock);
  while (!p->shutdown)
    {
      pt_launch *l = find_launch (p, w);
      if (l != NULL)
        {
          /* relaxed: the list holds a reference while l is linked, and we
             hold the lock that guards the list, so l cannot be freed under
             us; the lock orders the rest.  */
          atomic_fetch_add_explicit (&l->refs, 1, memory_order_relaxed);
          uint64_t seq = l->seq; /* l may be gone after participating */
          pthread_mutex_unlock (&p->lock);
          bool worked = pt_launch_participate (p, w, l);
          pthread_mutex_lock (&p->lock);
          if (!worked)
            w->gave_up_seq = seq;
          spun = false;
          continue;
        }
      _cl_command_node *cmd = take_command (p, w);
      if (cmd != NULL)
        {
          pthread_mutex_unlock (&p->lock);
          run_command (p, w, cmd);
          pthread_mutex_lock (&p->lock);
          spun = false;
          continue;
        }
      /* Nothing for us.  First watch for pushes a while (pthread_spin.h):
         pushers see us spinning and leave us to find their work; we look
         again, under the lock, when anything was pushed and when the
         spin ends.  */
      if (!spun && p->spin_ns > 0)
        {
          uint64_t seen
              = atomic_load_explicit (&p->work_seq, memory_order_relaxed);
          w->spinning = true;
          pthread_mutex_unlock (&p->lock);
          spun = !pt_spin_until_changed (&p->work_seq, seen, p->spin_ns,
                                         p->oversubscribed);
          pthread_mutex_lock (&p->lock);
          w->spinning = false;
          continue;
        }
      /* Then sleep until someone hands us work.  A push always takes the
         lock, so it cannot slip in between our search and the wait.  */
      spun = false;
      w->sleeping = true;
      while (w->sleeping && !p->shutdown)
        pthread_cond_wait (&w->wake, &p->lock);
      w->sleeping = false;
    }
  pthread_mutex_unlock (&p->lock);
  return NULL;
}

static void
free_workers (pt_pool *p, unsigned n)
{
  for (unsigned i = 0; i < n; ++i)
    {
      pthread_cond_destroy (&p->workers[i].wake);
      pocl_aligned_free (p->workers[i].local_mem);
      pocl_aligned_free (p->workers[i].printf_buffer);
    }
  pocl_aligned_free (p->workers);
  p->workers = NULL;
  free (p->cpu_of);
  free (p->node_of);
  p->cpu_of = p->node_of = NULL;
}

/* POCL_AFFINITY=1: where each worker goes (pthread_placement.h).  Warns,
   once each, when the topology is unknown or when there are more threads
   than allowed CPUs; never fails: without a placement the threads simply
   run unpinned.  */
static void
place_workers (pt_pool *p)
{
  unsigned ncpus = 0;
  bool numa_known = false;
  pt_cpu *cpus = pt_machine_read (&ncpus, &numa_known);
  if (cpus == NULL)
    {
#ifdef __linux__
      warn ("POCL_AFFINITY=1: could not read the CPUs this process may run "
            "on; the threads run unpinned\n");
#else
      warn ("POCL_AFFINITY=1 is supported on Linux only; the threads run "
            "unpinned\n");
#endif
      return;
    }
  if (!numa_known)
    warn ("POCL_AFFINITY=1: NUMA topology unknown (%s); placing the threads "
          "as if on one node\n",
#ifdef HAVE_LIBNUMA
          "libnuma reports NUMA as unavailable"
#else
          "built without libnuma"
#endif
    );
  p->cpu_of = malloc (p->num_threads * sizeof (int));
  p->node_of = malloc (p->num_threads * sizeof (int));
  if (p->cpu_of == NULL || p->node_of == NULL)
    {
      free (p->cpu_of);
      free (p->node_of);
      p->cpu_of = p->node_of = NULL;
      free (cpus);
      return;
    }
  if (pt_place (cpus, ncpus, p->num_threads, p->cpu_of, p->node_of))
    warn ("POCL_AFFINITY=1: %u threads on %u allowed CPUs; some CPUs run "
          "more than one thread\n",
          p->num_threads, ncpus);
  bool one_node = true;
  for (unsigned i = 1; i < p->num_threads; ++i)
    one_node &= p->node_of[i] == p->node_of[0];
  if (one_node)
    {
      free (p->node_of);
      p->node_of = NULL;
    }
  free (cpus);
}

/* Stops workers [0, n), collects their statistics and frees everything. */
static void
stop_workers (pt_pool *p, unsigned n,
              pts_sched_stats totals[PTS_NUM_SCHEDULES])
{
  pthread_mutex_lock (&p->lock);
  p->shutdown = true;
  announce_work (p); /* cuts spins short */
  for (unsigned i = 0; i < n; ++i)
    {
      wake_mark (&p->workers[i]);
      wake_signal (&p->workers[i]);
    }
  pthread_mutex_unlock (&p->lock);
  for (unsigned i = 0; i < n; ++i)
    {
      pthread_join (p->workers[i].thread, NULL);
      if (totals != NULL)
        pts_add (totals, &p->workers[i].stats);
    }
  free_workers (p, p->num_threads);
  pthread_mutex_destroy (&p->lock);
}

#ifdef ENABLE_SIGFPE_HANDLER
/* PoCL ignores SIGFPE (integer division by zero in a kernel) on the
   threads in a list that has a fixed size (2048 in 7.1), is not bounds-
   checked and never shrinks.  Workers are started afresh each time PoCL
   shuts the device down and brings it back (POCL_ENABLE_UNINIT), so
   registering every new worker would overrun it after enough rounds.
   glibc mostly hands a new thread the pthread_t of a joined one, so each
   value is registered once, and no more than SIGFPE_BUDGET in all, well
   under PoCL's size.  Only touched in pt_pool_start, which PoCL calls
   under its device lock.  */
#define SIGFPE_BUDGET 1024
static pthread_t sigfpe_registered[SIGFPE_BUDGET];
static unsigned sigfpe_count;

static void
ignore_sigfpe_once (pthread_t t)
{
  for (unsigned i = 0; i < sigfpe_count; ++i)
    if (pthread_equal (sigfpe_registered[i], t))
      return;
  if (sigfpe_count == SIGFPE_BUDGET)
    {
      static bool warned;
      if (!warned)
        fprintf (stderr,
                 "pocl: warning: %u worker threads registered with "
                 "PoCL's SIGFPE handler; integer division by zero in a "
                 "kernel on newer workers is no longer caught\n",
                 SIGFPE_BUDGET);
      warned = true;
      return;
    }
  sigfpe_registered[sigfpe_count++] = t;
  pocl_ignore_sigfpe_for_thread (t);
}
#endif

cl_int
pt_pool_start (pt_pool *p, cl_device_id dev, const pts_config *cfg)
{
  memset (p, 0, sizeof (*p));
  p->config = *cfg;
  p->num_threads = dev->max_compute_units > 0 ? dev->max_compute_units : 1;
  /* The margin for aligning local buffers is the one in-tree PoCL uses:
     pocl_setup_kernel_arg_array_with_locals may align each one up.  */
  p->local_mem_size
      = dev->local_mem_size + dev->max_parameter_size * MAX_EXTENDED_ALIGNMENT;
  p->printf_buffer_size = dev->printf_buffer_size;
  pthread_mutex_init (&p->lock, NULL);

  size_t bytes = p->num_threads * sizeof (pt_worker);
  p->workers = pocl_aligned_malloc (WGD_CACHELINE, bytes);
  if (p->workers == NULL)
    {
      pthread_mutex_destroy (&p->lock);
      return CL_OUT_OF_HOST_MEMORY;
    }
  memset (p->workers, 0, bytes);

  for (unsigned i = 0; i < p->num_threads; ++i)
    {
      pt_worker *w = &p->workers[i];
      w->pool = p;
      w->index = i;
      pthread_cond_init (&w->wake, NULL);
      /* Allocated here, first touched by the worker that uses them.  */
      w->local_mem
          = pocl_aligned_malloc (MAX_EXTENDED_ALIGNMENT, p->local_mem_size);
      w->printf_buffer = pocl_aligned_malloc (MAX_EXTENDED_ALIGNMENT,
                                              p->printf_buffer_size);
      if (w->local_mem == NULL || w->printf_buffer == NULL)
        {
          free_workers (p, i + 1);
          pthread_mutex_destroy (&p->lock);
          return CL_OUT_OF_HOST_MEMORY;
        }
    }

  if (p->config.affinity)
    place_workers (p);
  p->spin_ns = (uint64_t)p->config.spin_us * 1000u;
  p->oversubscribed = pt_oversubscribed (p->num_threads);

  pthread_attr_t attr;
  pthread_attr_init (&attr);
  if (pthread_attr_setstacksize (&attr, WORKER_STACK_SIZE) != 0)
    pthread_attr_init (&attr);
  pthread_attr_getstacksize (&attr, &p->stack_size);

  for (unsigned i = 0; i < p->num_threads; ++i)
    {
      pt_worker *w = &p->workers[i];
      int err = pthread_create (&w->thread, &attr, worker_main, w);
      if (err != 0)
        {
          POCL_MSG_ERR ("pthread: could not start worker %u of %u: %s\n", i,
                        p->num_threads, strerror (err));
          pthread_attr_destroy (&attr);
          stop_workers (p, i, NULL);
          return CL_OUT_OF_RESOURCES;
        }
#ifdef ENABLE_SIGFPE_HANDLER
      /* Integer division by zero in a kernel must not kill the process. */
      ignore_sigfpe_once (w->thread);
#endif
    }
  pthread_attr_destroy (&attr);
  return CL_SUCCESS;
}

void
pt_pool_stop (pt_pool *p, pts_sched_stats totals[PTS_NUM_SCHEDULES])
{
  stop_workers (p, p->num_threads, totals);
}
