/* pthread_device.c - the 'cpu' device of PoCL, pocl-steal's version: the
   device-ops table, device set-up and tear-down, and the host side of
   command submission (queues, events, waiting).  Everything that is not
   about running commands comes from PoCL's 'basic' CPU driver.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "common_utils.h"
#include "config.h"
#include "devices.h"
#include "pocl_cl.h"
#include "pocl_util.h"

#include "prototypes.inc"
GEN_PROTOTYPES (pthread)
#include "prototypes.inc"
GEN_PROTOTYPES (basic)

#include "pthread_compat.h"
#include "pthread_config.h"
#include "pthread_host.h"
#include "pthread_pool.h"
#include "pthread_spin.h"
#include "pthread_stats.h"
#include "pthread_worker.h"

/* One set of workers for all 'cpu' devices and their sub-devices, as
   in-tree PoCL.  Started and stopped under PoCL's device lock, which it
   holds while it initialises and releases devices.  */
static pt_workers workers;
static pt_pool *const pool = &workers.pool;

/* What host threads waiting on an event or a queue (clWaitForEvents,
   clFinish) wait with: a counter bumped when it finishes, which they watch
   for a while (pthread_spin.h), then a condition variable.  */
typedef struct
{
  alignas (WGD_CACHELINE) _Atomic uint64_t finished;
  pthread_cond_t cond;
  /* The threads asleep on cond that no notification has counted in the
     pool's `woken` yet, and the CPU the last of them went to sleep on
     (B4 of pthread_spin.h).  Under the object's lock.  */
  unsigned sleepers;
  int sleeper_cpu;
} waitable;

static void
waitable_init (waitable *x)
{
  atomic_init (&x->finished, 0);
  pthread_cond_init (&x->cond, NULL);
  x->sleepers = 0;
  x->sleeper_cpu = -1;
}

/* Sleeps on x's condition variable once, with the object's lock held (as
   pthread_cond_wait): counted in the pool's `woken` from the
   notification that wakes it until it runs (B4).  A notification counts
   every sleeper at once and zeroes `sleepers`, so a sleeper knows it was
   counted when `finished` moved while it slept; one that wakes without a
   notification takes itself out of `sleepers`.  */
static void
waitable_sleep (waitable *x, pocl_lock_t *lock)
{
  /* relaxed: `finished` changes under the object's lock, which we hold
     around both loads.  */
  uint64_t gen = atomic_load_explicit (&x->finished, memory_order_relaxed);
  x->sleepers++;
  x->sleeper_cpu = pt_current_cpu ();
  pthread_cond_wait (&x->cond, lock);
  if (atomic_load_explicit (&x->finished, memory_order_relaxed) != gen)
    pt_pool_woken_add (pool, -1, -1);
  else
    x->sleepers--;
}

/* How long the calling application thread spins before it sleeps in
   clFinish or clWaitForEvents (B3 of pthread_spin.h), set up on its first
   wait.  */
static __thread pt_spin_state host_spin;
static __thread bool host_spin_ready;

/* One wait of an application thread: how its spin ended, and when it
   began (B3).  */
typedef struct
{
  bool spun;
  pt_spin_end end;
  uint64_t start;
} host_wait;

/* Called with the object's lock (*lock) held and the object not finished:
   drops the lock and watches for a notification for a while (B1-B3 of
   pthread_spin.h), then takes the lock again.  The caller then checks the
   object, sleeps on the condition variable if it still has to, and calls
   host_wait_done.  */
static host_wait
waitable_spin (waitable *x, pocl_lock_t *lock)
{
  host_wait w = { false, PT_SPIN_EXPIRED, 0 };
  if (!host_spin_ready)
    {
      pt_spin_init (&host_spin, pool->spin_ns);
      host_spin_ready = true;
    }
  if (x == NULL || pt_spin_budget (&host_spin) == 0)
    return w;
  uint64_t seen = atomic_load_explicit (&x->finished, memory_order_relaxed);
  POCL_UNLOCK (*lock);
  w.spun = true;
  w.end = pt_spin_watch (&x->finished, seen, pt_spin_budget (&host_spin),
                         pt_real_clock (), &w.start, &pool->woken,
                         PT_SPIN_RESULT);
  POCL_LOCK (*lock);
  return w;
}

/* The wait w is over: learn from it how long to spin next time (B3).  */
static void
host_wait_done (const host_wait *w)
{
  if (w->spun)
    pt_spin_learn (&host_spin, pool->spin_ns, w->end, pt_now_ns () - w->start);
}

/* Called with the object's lock held.  relaxed: a watcher takes that lock
   before it looks at the object again.  */
static void
waitable_notify (waitable *x)
{
  atomic_fetch_add_explicit (&x->finished, 1, memory_order_relaxed);
  /* B4: the sleepers are runnable from here until they run.  */
  if (x->sleepers > 0)
    {
      pt_pool_woken_add (pool, (int)x->sleepers, x->sleeper_cpu);
      x->sleepers = 0;
    }
  pthread_cond_broadcast (&x->cond);
}

static unsigned pool_users;
static pts_config config;
static bool config_read;
/* The thread count from the environment, validated
   (pts_config_thread_count); 0: PoCL's count.  */
static unsigned config_threads;

static cl_bool device_available = CL_TRUE;
static cl_bool device_unavailable = CL_FALSE;

/* The last one only where the machine's affinity domains are known.  */
static cl_device_partition_property partition_properties[]
    = { CL_DEVICE_PARTITION_EQUALLY, CL_DEVICE_PARTITION_BY_COUNTS,
        CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN };

/* OpenCL's affinity domains, indexed by pt_domain.  */
static const cl_device_affinity_domain cl_domain_of[PT_NUM_DOMAINS]
    = { CL_DEVICE_AFFINITY_DOMAIN_NUMA, CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
        CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
        CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE };

/* ops->get_affinity_domains: the domains of the device's threads, which
   are consecutive pool threads (pthread_placement.h).  */
static cl_int
pocl_pthread_get_affinity_domains (cl_device_id device,
                                   cl_device_affinity_domain domain,
                                   cl_uint *start, cl_uint *count,
                                   cl_uint *num)
{
  unsigned first, n;
  pt_pool_device_threads (&workers.pool, device, &first, &n);
  for (int d = 0; d < PT_NUM_DOMAINS; ++d)
    if (cl_domain_of[d] == domain)
      return pt_workers_domains (&workers, first, n, (pt_domain)d, start,
                                 count, num)
                 ? CL_SUCCESS
                 : CL_DEVICE_PARTITION_FAILED;
  return CL_DEVICE_PARTITION_FAILED;
}

/* ops->build_hash: PoCL's, marked when kernels are compiled with the
   division sanitizer (pthread_host.h), so that the kernel cache never
   hands a kernel compiled without it to a device that relies on it.  */
char *
pocl_pthread_build_hash (cl_device_id device)
{
  char *hash = pocl_cpu_build_hash (device);
  if (hash != NULL && device->run_sanitize_divrem_pass)
    {
      size_t n = strlen (hash);
      char *more = realloc (hash, n + sizeof ("-divrem"));
      if (more != NULL)
        {
          memcpy (more + n, "-divrem", sizeof ("-divrem"));
          hash = more;
        }
    }
  return hash;
}

/* The stack a work-group may use: what the workers leave a kernel, and
   what an application thread must have free to run one (pthread_host.h).
 */
static size_t
kernel_stack_size (void)
{
  return workers.stack_size / 4 * 3;
}

static cl_int
pool_acquire (cl_device_id device)
{
  if (pool_users == 0)
    {
      cl_int err = pt_workers_start (&workers, device, &config);
      if (err != CL_SUCCESS)
        return err;
    }
  ++pool_users;
  return CL_SUCCESS;
}

static void
pool_release (void)
{
  if (pool_users == 0 || --pool_users > 0)
    return;
  pts_sched_stats totals[WGD_NUM_SCHEDULES];
  memset (totals, 0, sizeof (totals));
  unsigned threads = workers.num_threads;
  pt_workers_stop (&workers, totals);
  pt_host_release_buffers ();
  if (config.stats)
    pts_print (stderr, threads, totals);
}

/* Statistics are printed when the device is released; PoCL releases
   devices only with POCL_ENABLE_UNINIT=1, so otherwise they are printed at
   exit.  The workers keep running: destructors of libraries loaded after
   PoCL run after this one and may still enqueue work (cl_lifecycle_late;
   stopping the workers here made such a launch crash).  The counters are
   read once every worker is idle: a worker that completed the last event
   is a moment away from that when the program exits; work still running
   after a second is reported instead.  */
static void __attribute__ ((destructor))
stats_at_exit (void)
{
  if (!config.stats || pool_users == 0)
    return;
  pts_sched_stats totals[WGD_NUM_SCHEDULES];
  memset (totals, 0, sizeof (totals));
  if (pt_workers_stats_if_idle (&workers, totals, 1000))
    pts_print (stderr, workers.num_threads, totals);
  else
    fprintf (stderr, "pocl: pthread stats: not printed at exit: work was "
                     "still running\n");
}

void
pocl_pthread_init_device_ops (struct pocl_device_ops *ops)
{
  pocl_basic_init_device_ops (ops);

  ops->device_name = "cpu";
  ops->probe = pocl_pthread_probe;
  ops->init = pocl_pthread_init;
  ops->uninit = pocl_pthread_uninit;
  ops->reinit = pocl_pthread_reinit;
  ops->run = pocl_pthread_run;
  ops->submit = pocl_pthread_submit;
  ops->join = pocl_pthread_join;
  ops->flush = pocl_pthread_flush;
  ops->notify = pocl_pthread_notify;
  ops->broadcast = pocl_broadcast;
  ops->wait_event = pocl_pthread_wait_event;
  ops->notify_event_finished = pocl_pthread_notify_event_finished;
  ops->notify_cmdq_finished = pocl_pthread_notify_cmdq_finished;
  ops->update_event = pocl_pthread_update_event;
  ops->free_event_data = pocl_pthread_free_event_data;
  ops->init_queue = pocl_pthread_init_queue;
  ops->free_queue = pocl_pthread_free_queue;
  ops->get_affinity_domains = pocl_pthread_get_affinity_domains;
  ops->build_hash = pocl_pthread_build_hash;
}

unsigned int
pocl_pthread_probe (struct pocl_device_ops *ops)
{
  int count = pocl_device_get_env_count (ops->device_name);
  pocl_cpu_probe ();
  /* POCL_DEVICES may still say "pthread", the driver's old name.  */
  if (count <= 0)
    count = pocl_device_get_env_count ("pthread");
  if (count < 0)
    {
      /* POCL_DEVICES unset: one device, unless the tbb device is built,
         which is then the default CPU device.  */
#ifdef BUILD_TBB
      return 0;
#else
      return 1;
#endif
    }
  return (unsigned)count;
}

cl_int
pocl_pthread_init (unsigned j, cl_device_id device, const char *parameters)
{
  (void)parameters;
  device->data = NULL;
  device->available = &device_unavailable;

  cl_int err = pt_compat_cpu_init_common (device, j);
  if (err != CL_SUCCESS)
    return err;
  pocl_init_dlhandle_cache ();

  if (!config_read)
    {
      pts_config_read (&config, getenv);
      config_threads = pts_config_thread_count (getenv, pt_allowed_cpus ());
      config_read = true;
    }
  if (config_threads > 0)
    device->max_compute_units = config_threads;

  device->max_sub_devices = device->max_compute_units;
  device->num_partition_properties
      = sizeof (partition_properties) / sizeof (partition_properties[0]);
  device->partition_properties = partition_properties;
  device->num_partition_types = 0;
  device->partition_type = NULL;

  err = pool_acquire (device);
  if (err != CL_SUCCESS)
    return err;
  /* The affinity domains the machine has (pthread_placement.h).  */
  device->affinity_domains = 0;
  unsigned known = pt_workers_domains_known (&workers);
  for (int d = 0; d < PT_NUM_DOMAINS; ++d)
    if (known & (1u << d))
      device->affinity_domains |= cl_domain_of[d];
  if (device->affinity_domains == 0)
    device->num_partition_properties--;
#ifdef HOST_CPU_ENABLE_STACK_SIZE_CHECK
  /* Leave a quarter of the worker's stack to the driver itself.  */
  device->work_group_stack_size = kernel_stack_size ();
#endif
  /* Application threads may run work-groups: integer division by zero
     must not trap on them, where PoCL's SIGFPE handler does not apply
     (pthread_host.h).  */
  if (config.host_groups > 0)
    device->run_sanitize_divrem_pass = CL_TRUE;
  device->data = &workers;
  device->available = &device_available;
  return CL_SUCCESS;
}

cl_int
pocl_pthread_uninit (unsigned j, cl_device_id device)
{
  (void)j;
  pool_release ();
  device->data = NULL;
  return CL_SUCCESS;
}

cl_int
pocl_pthread_reinit (unsigned j, cl_device_id device, const char *parameters)
{
  (void)j;
  (void)parameters;
  cl_int err = pool_acquire (device);
  if (err == CL_SUCCESS)
    device->data = &workers;
  return err;
}

void
pocl_pthread_run (void *data, _cl_command_node *cmd)
{
  /* Unused: the workers take commands from the pool's queue.  */
  (void)data;
  (void)cmd;
}

/* Called with the command's event locked.  */
void
pocl_pthread_submit (_cl_command_node *node, cl_command_queue cq)
{
  (void)cq;
  cl_event ev = node->sync.event.event;
  node->state = POCL_COMMAND_READY;
  if (pt_compat_dependency_failed (ev))
    {
      /* An event of its wait list had failed before it was enqueued, so
         no notify will come for it: the command fails now, and so do its
         own dependants.  Failing it takes the queue's lock and the
         event's own, so unlock the event first (PoCL's lock order).  */
      POCL_UNLOCK_OBJ (ev);
      pocl_update_event_failed (CL_FAILED, NULL, 0, ev, NULL);
      return;
    }
  bool ready = pocl_command_is_ready (ev);
  if (ready)
    pocl_update_event_submitted (ev);
  POCL_UNLOCK_OBJ (ev);
  /* Pushed after the unlock: a worker woken on this CPU preempts us at
     once, and its first step (pocl_update_event_running) locks the
     event; pushed under the lock, it went back to sleep on the event's
     mutex until we ran again, and every launch paid two more context
     switches (a lock convoy, seen with perf sched on a busy machine).
     node is still ours until pushed: no worker has seen it, so neither
     it nor its event can complete or go.  */
  if (ready)
    /* Called by the application thread that enqueues node, which may
       then wait for it and run it itself (P6 of pthread_pool.c).  */
    pt_pool_push_command (
        pool, node, pt_host_may_take (&workers, node, kernel_stack_size ()));
}

void
pocl_pthread_flush (cl_device_id device, cl_command_queue cq)
{
  /* Commands are queued to the workers as soon as they are ready.  */
  (void)device;
  (void)cq;
}

/* clFinish: waits until the queue has no commands left.  */
void
pocl_pthread_join (cl_device_id device, cl_command_queue cq)
{
  (void)device;
  waitable *wq = cq->data;
  /* Run what we can of it ourselves first (pthread_host.h).  */
  while (pt_host_help (&workers, kernel_stack_size (), cq, NULL))
    ;
  POCL_LOCK_OBJ (cq);
  host_wait w = { false, PT_SPIN_EXPIRED, 0 };
  if (cq->command_count > 0)
    w = waitable_spin (wq, &cq->pocl_lock);
  while (cq->command_count > 0)
    waitable_sleep (wq, &cq->pocl_lock);
  POCL_UNLOCK_OBJ (cq);
  host_wait_done (&w);
}

/* An event that `event` waits for has finished.  Called with both events
   locked.  */
void
pocl_pthread_notify (cl_device_id device, cl_event event, cl_event finished)
{
  (void)device;
  _cl_command_node *node = event->command;

  if (finished->status < CL_COMPLETE || pt_compat_dependency_failed (event))
    {
      /* A dependency failed: so does this command.  Failing it locks its
         queue, so unlock both events first to keep PoCL's lock order, and
         relock them for the caller afterwards.  */
      pocl_unlock_events_inorder (event, finished);
      pocl_update_event_failed (CL_FAILED, NULL, 0, event, NULL);
      pocl_lock_events_inorder (finished, event);
      return;
    }

  /* Not yet submitted by its queue: submit() will push it.  */
  if (node->state != POCL_COMMAND_READY)
    return;

  if (pocl_command_is_ready (event) && event->status == CL_QUEUED)
    {
      pocl_update_event_submitted (event);
      /* From the thread that completed `finished`: a worker runs node
         itself next (P11 of pthread_pool.c).  */
      pt_pool_push_ready (pool, node);
    }
}

/* Called with the queue locked.  A broadcast: several host threads may wait
   on one queue.  */
void
pocl_pthread_notify_cmdq_finished (cl_command_queue cq)
{
  waitable_notify (cq->data);
}

/* Called with the event locked.  */
void
pocl_pthread_notify_event_finished (cl_event event)
{
  if (event->data != NULL)
    waitable_notify (event->data);
}

void
pocl_pthread_update_event (cl_device_id device, cl_event event)
{
  (void)device;
  if (event->data == NULL && event->status == CL_QUEUED)
    {
      waitable *we = pocl_aligned_malloc (WGD_CACHELINE, sizeof (waitable));
      if (we == NULL)
        {
          /* PoCL has no way to report this here; waiting on the event will
             then fall back to polling in wait_event.  */
          return;
        }
      waitable_init (we);
      event->data = we;
    }
}

void
pocl_pthread_wait_event (cl_device_id device, cl_event event)
{
  (void)device;
  waitable *we = event->data;
  while (pt_host_help (&workers, kernel_stack_size (), NULL, event))
    ;
  POCL_LOCK_OBJ (event);
  host_wait w = { false, PT_SPIN_EXPIRED, 0 };
  if (event->status > CL_COMPLETE)
    w = waitable_spin (we, &event->pocl_lock);
  while (event->status > CL_COMPLETE)
    {
      if (we != NULL)
        waitable_sleep (we, &event->pocl_lock);
      else
        {
          /* No waitable (out of memory in update_event): poll, asleep
             between looks, never in a sched_yield loop (B1 of
             pthread_spin.h).  */
          POCL_UNLOCK_OBJ (event);
          struct timespec pause = { 0, 100 * 1000 };
          nanosleep (&pause, NULL);
          POCL_LOCK_OBJ (event);
        }
    }
  POCL_UNLOCK_OBJ (event);
  host_wait_done (&w);
}

void
pocl_pthread_free_event_data (cl_event event)
{
  waitable *we = event->data;
  if (we == NULL)
    return;
  pthread_cond_destroy (&we->cond);
  pocl_aligned_free (we);
  event->data = NULL;
}

int
pocl_pthread_init_queue (cl_device_id device, cl_command_queue queue)
{
  (void)device;
  waitable *wq = pocl_aligned_malloc (WGD_CACHELINE, sizeof (waitable));
  if (wq == NULL)
    return CL_OUT_OF_HOST_MEMORY;
  waitable_init (wq);
  queue->data = wq;
  return CL_SUCCESS;
}

int
pocl_pthread_free_queue (cl_device_id device, cl_command_queue queue)
{
  (void)device;
  waitable *wq = queue->data;
  if (wq != NULL)
    {
      pthread_cond_destroy (&wq->cond);
      pocl_aligned_free (wq);
      queue->data = NULL;
    }
  return CL_SUCCESS;
}
