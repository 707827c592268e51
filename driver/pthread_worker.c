/* pthread_worker.c - the worker threads of the pthread device; see
   pthread_worker.h.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_worker.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "pocl_util.h"

#include "pthread_placement.h"
#include "pthread_spin.h"

/* Workers run kernels' work-group functions on their own stack; PoCL sizes
   its stack-size check (HOST_CPU_ENABLE_STACK_SIZE_CHECK) from what they
   get: at least this.  */
#define WORKER_STACK_SIZE (8u << 20)

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
pin_self (pt_workers *s, pt_worker *w)
{
#ifdef __linux__
  static atomic_flag warned = ATOMIC_FLAG_INIT;
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (s->cpu_of[w->runner.index], &set);
  int err = pthread_setaffinity_np (pthread_self (), sizeof (set), &set);
  /* relaxed: a flag for printing once, nothing else hangs on it.  */
  if (err != 0
      && !atomic_flag_test_and_set_explicit (&warned, memory_order_relaxed))
    warn ("POCL_AFFINITY=1: could not pin a thread to CPU %d (%s); the "
          "threads run unpinned\n",
          s->cpu_of[w->runner.index], strerror (err));
#else
  (void)s;
  (void)w;
#endif
}

/* OpenCL's affinity-domain bits are pt_domain's (1 << d), so masks pass
   between the two unchanged.  */
_Static_assert (CL_DEVICE_AFFINITY_DOMAIN_NUMA == 1u << PT_DOMAIN_NUMA
                    && CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE == 1u << PT_DOMAIN_L4
                    && CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE == 1u << PT_DOMAIN_L3
                    && CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE == 1u << PT_DOMAIN_L2
                    && CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE
                           == 1u << PT_DOMAIN_L1,
                "affinity domain bits");

/* Without POCL_AFFINITY: before the calling worker runs work of a
   sub-device made along affinity domains `domains`, binds it to the CPUs
   that its place (domain_cpu_of, the placement POCL_AFFINITY=1 would pin
   it to) shares all the domains it has served with.  The set only
   narrows and stays until the workers stop: the worker's static blocks
   of the parent device are placed for that CPU too.  Warns once if the
   binding fails and runs on as before.  */
static void
bind_to_domains (pt_workers *s, pt_worker *w, unsigned domains)
{
  if ((domains & ~w->bound_domains) == 0 || s->cpu_of != NULL
      || s->machine == NULL)
    return;
  w->bound_domains |= domains;
#ifdef __linux__
  static atomic_flag warned = ATOMIC_FLAG_INIT;
  int *cpus = malloc (s->machine_cpus * sizeof (int));
  int max_cpu = 0;
  for (unsigned i = 0; i < s->machine_cpus; ++i)
    if (s->machine[i].cpu > max_cpu)
      max_cpu = s->machine[i].cpu;
  cpu_set_t *set = CPU_ALLOC (max_cpu + 1);
  size_t size = CPU_ALLOC_SIZE (max_cpu + 1);
  int err = ENOMEM;
  if (cpus != NULL && set != NULL)
    {
      unsigned n = pt_domain_cpus (s->machine, s->machine_cpus,
                                   s->domain_cpu_of[w->runner.index],
                                   (unsigned)w->bound_domains, cpus);
      CPU_ZERO_S (size, set);
      for (unsigned i = 0; i < n; ++i)
        CPU_SET_S (cpus[i], size, set);
      err = n > 0 ? pthread_setaffinity_np (pthread_self (), size, set)
                  : EINVAL;
    }
  /* relaxed: a flag for printing once, nothing else hangs on it.  */
  if (err != 0
      && !atomic_flag_test_and_set_explicit (&warned, memory_order_relaxed))
    warn ("could not bind a thread to the CPUs of its sub-device's affinity "
          "domain (%s); it runs unbound\n",
          strerror (err));
  CPU_FREE (set);
  free (cpus);
#endif
}

/* The pool's watch (P9 of pthread_pool.c).  */
static void *
watch_main (void *arg)
{
  pt_workers *s = arg;
#ifdef __linux__
  pthread_setname_np (pthread_self (), "pocl-watch");
#endif
  pt_pool_watch (&s->pool);
  return NULL;
}

static void *
worker_main (void *arg)
{
  pt_worker *w = arg;
  pt_workers *s = w->set;
  const unsigned index = w->runner.index;

  /* A name for top, gdb and the tests: "pocl-cpu-<index>".  */
#ifdef __linux__
  char name[16];
  snprintf (name, sizeof (name), "pocl-cpu-%u", index);
  pthread_setname_np (pthread_self (), name);
#endif
  if (s->cpu_of != NULL)
    pin_self (s, w);

#ifdef POCL_DEBUG_MESSAGES
  if (pocl_get_bool_option ("POCL_DUMP_TASK_GRAPHS", 0) == 1)
    pocl_dump_dot_task_graph_wait ();
#endif

  /* The launch this worker last joined in vain; the pool does not hand it
     to us again (pt_pool_wait).  */
  uint64_t gave_up_seq = 0;
  pt_work work;
  while (pt_pool_wait (&s->pool, index, gave_up_seq, &work))
    {
      bind_to_domains (s, w,
                       work.launch != NULL
                           ? work.launch->domains
                           : pt_device_domains (work.command->device));
      if (work.launch != NULL)
        {
          uint64_t seq = work.launch->seq; /* gone after participating */
          if (!pt_launch_participate (&s->env, &w->runner, work.launch))
            gave_up_seq = seq;
        }
      else if (work.command->type == CL_COMMAND_NDRANGE_KERNEL)
        pt_kernel_run_command (&s->env, &w->runner, work.command);
      else
        pocl_exec_command (work.command);
    }
  return NULL;
}

static void
free_workers (pt_workers *s, unsigned n)
{
  for (unsigned i = 0; i < n; ++i)
    {
      pocl_aligned_free (s->workers[i].runner.local_mem);
      pocl_aligned_free (s->workers[i].runner.printf_buffer);
    }
  pocl_aligned_free (s->workers);
  s->workers = NULL;
  /* cpu_of is domain_cpu_of when set.  */
  s->cpu_of = NULL;
  free (s->node_of);
  free (s->machine);
  free (s->domain_cpu_of);
  s->machine = NULL;
  s->domain_cpu_of = s->node_of = NULL;
  pt_pool_destroy (&s->pool);
  pthread_mutex_destroy (&s->host_stats_lock);
}

/* Adds the application threads' counters to totals.  */
static void
add_host_stats (pt_workers *s, pts_sched_stats totals[WGD_NUM_SCHEDULES])
{
  pthread_mutex_lock (&s->host_stats_lock);
  pts_add (totals, &s->host_stats);
  pthread_mutex_unlock (&s->host_stats_lock);
}

void
pt_workers_add_host_stats (pt_workers *s, pts_worker_stats *st)
{
  pts_mark_host (st);
  pthread_mutex_lock (&s->host_stats_lock);
  pts_add (s->host_stats.per_schedule, st);
  pthread_mutex_unlock (&s->host_stats_lock);
  memset (st, 0, sizeof (*st));
}

/* The topology and the placement of every worker, pinned or not, for
   binding and for the affinity domains: s->machine and s->domain_cpu_of,
   both NULL where the CPUs cannot be read or memory runs out.  Sets
   *numa_known as pt_machine_read does, and *shared if some CPU got more
   than one worker.  Silent: POCL_AFFINITY=1's warnings are
   pin_workers'.  */
static void
read_machine (pt_workers *s, bool *numa_known, bool *shared)
{
  *numa_known = false;
  *shared = false;
  s->machine = pt_machine_read (&s->machine_cpus, numa_known);
  s->domain_cpu_of = malloc (s->num_threads * sizeof (int));
  s->node_of = malloc (s->num_threads * sizeof (int));
  if (s->machine == NULL || s->domain_cpu_of == NULL || s->node_of == NULL)
    {
      free (s->machine);
      free (s->domain_cpu_of);
      free (s->node_of);
      s->machine = NULL;
      s->domain_cpu_of = s->node_of = NULL;
      return;
    }
  *shared = pt_place (s->machine, s->machine_cpus, s->num_threads,
                      s->domain_cpu_of, s->node_of);
}

unsigned
pt_workers_domains_known (const pt_workers *s)
{
  return s->machine ? pt_domains_known (s->machine, s->machine_cpus) : 0;
}

bool
pt_workers_domains (const pt_workers *s, unsigned first, unsigned count,
                    pt_domain d, cl_uint *start, cl_uint *size, cl_uint *num)
{
  if (s->machine == NULL || count == 0 || first + count > s->num_threads)
    return false;
  unsigned runs
      = pt_split_by_domain (s->machine, s->machine_cpus, s->domain_cpu_of,
                            first, first + count, d, start, size);
  for (unsigned r = 0; r < runs; ++r)
    start[r] -= first;
  *num = runs;
  /* One run is the whole range: no partition (pt_splitting_domains).  */
  return runs >= 2;
}

/* POCL_AFFINITY=1: each worker pins itself to its place (read_machine,
   pthread_placement.h).  Warns, once each, when the topology is unknown
   or when there are more threads than allowed CPUs; never fails: without
   a placement the threads simply run unpinned.  */
static void
pin_workers (pt_workers *s, bool numa_known, bool shared)
{
  if (s->machine == NULL)
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
  if (shared)
    warn ("POCL_AFFINITY=1: %u threads on %u allowed CPUs; some CPUs run "
          "more than one thread\n",
          s->num_threads, s->machine_cpus);
  s->cpu_of = s->domain_cpu_of;
}

/* Stops workers [0, n), collects their statistics and frees everything. */
static void
stop_workers (pt_workers *s, unsigned n,
              pts_sched_stats totals[WGD_NUM_SCHEDULES])
{
  pt_pool_shutdown (&s->pool);
  if (s->watch_started)
    {
      pthread_join (s->watch, NULL);
      s->watch_started = false;
    }
  for (unsigned i = 0; i < n; ++i)
    {
      pthread_join (s->workers[i].thread, NULL);
      if (totals != NULL)
        pts_add (totals, &s->workers[i].runner.stats);
    }
  if (totals != NULL)
    add_host_stats (s, totals);
  free_workers (s, s->num_threads);
}

#ifdef ENABLE_SIGFPE_HANDLER
/* PoCL ignores SIGFPE (integer division by zero in a kernel) on the
   threads in a list that has a fixed size (2048 in 7.1), is not bounds-
   checked and never shrinks.  Workers are started afresh each time PoCL
   shuts the device down and brings it back (POCL_ENABLE_UNINIT), so
   registering every new worker would overrun it after enough rounds.
   glibc mostly hands a new thread the pthread_t of a joined one, so each
   value is registered once, and no more than SIGFPE_BUDGET in all, well
   under PoCL's size.  Only touched in pt_workers_start, which PoCL calls
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
pt_workers_start (pt_workers *s, cl_device_id dev, const pts_config *cfg)
{
  memset (s, 0, sizeof (*s));
  s->config = *cfg;
  s->num_threads = dev->max_compute_units > 0 ? dev->max_compute_units : 1;
  cl_int err
      = pt_pool_init (&s->pool, s->num_threads, (uint64_t)cfg->spin_us * 1000u,
                      cfg->skip_claimed);
  if (err != CL_SUCCESS)
    return err;
  pthread_mutex_init (&s->host_stats_lock, NULL);

  /* The margin for aligning local buffers is the one in-tree PoCL uses:
     pocl_setup_kernel_arg_array_with_locals may align each one up.  */
  s->env.pool = &s->pool;
  s->env.schedule = cfg->schedule;
  s->env.steal = cfg->steal;
  s->env.host_share_ns = (uint64_t)cfg->host_share_us * 1000u;
  s->env.local_mem_size
      = dev->local_mem_size + dev->max_parameter_size * MAX_EXTENDED_ALIGNMENT;
  s->env.printf_buffer_size = dev->printf_buffer_size;

  size_t bytes = s->num_threads * sizeof (pt_worker);
  s->workers = pocl_aligned_malloc (WGD_CACHELINE, bytes);
  if (s->workers == NULL)
    {
      pt_pool_destroy (&s->pool);
      return CL_OUT_OF_HOST_MEMORY;
    }
  memset (s->workers, 0, bytes);

  for (unsigned i = 0; i < s->num_threads; ++i)
    {
      pt_worker *w = &s->workers[i];
      w->set = s;
      w->runner.index = i;
      /* Allocated here, first touched by the worker that uses them.  */
      w->runner.local_mem = pocl_aligned_malloc (MAX_EXTENDED_ALIGNMENT,
                                                 s->env.local_mem_size);
      w->runner.printf_buffer = pocl_aligned_malloc (
          MAX_EXTENDED_ALIGNMENT, s->env.printf_buffer_size);
      if (w->runner.local_mem == NULL || w->runner.printf_buffer == NULL)
        {
          free_workers (s, i + 1);
          return CL_OUT_OF_HOST_MEMORY;
        }
    }

  bool numa_known, shared;
  read_machine (s, &numa_known, &shared);
  if (s->config.affinity)
    pin_workers (s, numa_known, shared);
  /* Stealing cares for nodes only where the workers are pinned, and where
     there are several.  */
  bool one_node = true;
  for (unsigned i = 1; s->node_of != NULL && i < s->num_threads; ++i)
    one_node &= s->node_of[i] == s->node_of[0];
  s->env.node_of = s->cpu_of != NULL && !one_node ? s->node_of : NULL;

  /* Application threads run work-groups of launches of any size by
     default where the threads are all on one node, pinned or not: no
     first-touch placement is at stake, and a thread that waits for a big
     launch otherwise takes a CPU from the workers or sleeps until the
     completion wakes it (pthread_host.h).  Unknown nodes count as one,
     as they do for stealing.  Decided before any worker runs, so the
     pool's count of such work (H1) never changes meaning.  */
  s->host_groups = cfg->host_groups;
  if (s->host_groups > 0 && one_node
      && !pts_config_is_set (cfg, "POCL_PTHREAD_HOST_GROUPS"))
    s->host_groups = UINT64_MAX;
  /* A grace is spent spinning (P6 of pthread_pool.c): none where spinning
     is off.  */
  uint64_t grace_ns
      = cfg->spin_us > 0 ? (uint64_t)cfg->host_grace_us * 1000u : 0;
  pt_pool_count_host_work (&s->pool, s->host_groups, grace_ns);

  /* At least WORKER_STACK_SIZE, never less than the default (which follows
     RLIMIT_STACK on Linux and may be larger); the default if the size is
     refused.  */
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  size_t default_size = 0;
  pthread_attr_getstacksize (&attr, &default_size);
  if (default_size < WORKER_STACK_SIZE)
    pthread_attr_setstacksize (&attr, WORKER_STACK_SIZE);
  pthread_attr_getstacksize (&attr, &s->stack_size);

  /* The watch first, so that P8 caps helpers only with a watch to wake
     the rest (P9); without one, the workers run uncapped.  A small
     stack: it runs no kernel.  */
  pthread_attr_t watch_attr;
  pthread_attr_init (&watch_attr);
  pthread_attr_setstacksize (&watch_attr, 64 * 1024);
  s->watch_started
      = pthread_create (&s->watch, &watch_attr, watch_main, s) == 0;
  pthread_attr_destroy (&watch_attr);
  pthread_mutex_lock (&s->pool.lock);
  s->pool.watching = s->watch_started;
  pthread_mutex_unlock (&s->pool.lock);
  for (unsigned i = 0; i < s->num_threads; ++i)
    {
      pt_worker *w = &s->workers[i];
      err = pthread_create (&w->thread, &attr, worker_main, w);
      if (err != 0)
        {
          POCL_MSG_ERR ("pthread: could not start worker %u of %u: %s\n", i,
                        s->num_threads, strerror (err));
          pthread_attr_destroy (&attr);
          stop_workers (s, i, NULL);
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
pt_workers_stop (pt_workers *s, pts_sched_stats totals[WGD_NUM_SCHEDULES])
{
  stop_workers (s, s->num_threads, totals);
}

typedef struct
{
  pt_workers *s;
  pts_sched_stats *totals;
} stats_sum;

/* Under the pool lock, every worker idle (pt_pool_when_idle).  */
static void
sum_stats (void *arg)
{
  stats_sum *a = arg;
  for (unsigned i = 0; i < a->s->num_threads; ++i)
    pts_add (a->totals, &a->s->workers[i].runner.stats);
  add_host_stats (a->s, a->totals);
}

bool
pt_workers_stats_if_idle (pt_workers *s,
                          pts_sched_stats totals[WGD_NUM_SCHEDULES],
                          unsigned wait_ms)
{
  stats_sum a = { s, totals };
  return pt_pool_when_idle (&s->pool, sum_stats, &a, wait_ms);
}
