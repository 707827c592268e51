/* pthread_kernel.c - NDRange kernel launches on the pthread device: from
   the command to a published launch, and each worker's part in it; see
   pthread_kernel.h.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_kernel.h"

#if defined(__has_include)
#if __has_include(<alloca.h>)
#include <alloca.h>
#endif
#endif
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h> /* alloca on the BSDs */
#include <string.h>
#include <time.h>

#include "common.h"
#include "common_driver.h"
#include "common_utils.h"
#include "pocl_builtin_kernels.h"
#include "pocl_util.h"
#include "pthread_share.h"
#include "pthread_spin.h"

/* Kernel builds at exit.  PoCL builds a work-group function (with LLVM)
   the first time a kernel runs with given local sizes, in the worker that
   takes the command.  If the program calls exit() meanwhile, exit runs the
   destructors of LLVM's and clang's static objects (registered with
   __cxa_atexit as they were constructed) under that worker, which then
   crashes (cl_lifecycle_exit_compiling: a pure virtual call in clang's
   option table, or SIGSEGV).  A destructor function of this driver would
   run too late: glibc runs those after every handler registered with
   atexit.  So each build registers, before it starts, a handler that
   waits for the builds in flight: exit runs it before the destructors of
   every static object constructed so far, the ones the build uses
   (clBuildProgram, on the host, constructed the compiler's; earlier builds
   the code generator's).  A static object first constructed by this very
   build is not covered, nor is a build that starts once the handlers ran.
   Every launch goes through build_begin and build_end, but most find the
   kernel built (PoCL's caches, microseconds): only a call that took over
   BUILD_NS_MIN, a real build (or a cache lookup preempted that long),
   makes the next call register a handler, so a program registers about
   one per kernel build, not one per launch.  */
static atomic_uint builds_in_flight;

/* Whether the next call must register a handler: a build may have
   constructed static objects since the last registration.  Exchanged, so
   that one of concurrent calls registers (PoCL serialises the builds
   themselves under its dlhandle lock).  */
static atomic_bool build_needs_handler = true;

#define BUILD_NS_MIN (1000 * 1000)

static void
wait_for_builds_at_exit (void)
{
  /* Polled: this is for exit only; a minute is far more than a build
     takes, and past it the program exits as it would have.  */
  for (unsigned waited_ms = 0; waited_ms < 60 * 1000; ++waited_ms)
    {
      /* Acquire, pairing with build_end: the build's effects happen before
         the rest of exit.  */
      if (atomic_load_explicit (&builds_in_flight, memory_order_acquire) == 0)
        return;
      struct timespec pause = { 0, 1000 * 1000 };
      nanosleep (&pause, NULL);
    }
}

/* Returns when it began, for build_end.  */
static uint64_t
build_begin (void)
{
  /* Relaxed: no ordering makes a build that starts while exit is already
     in the handler covered; one that started before is seen by the
     handler's load (coherence), which is all the handler needs.  */
  atomic_fetch_add_explicit (&builds_in_flight, 1, memory_order_relaxed);
  if (atomic_exchange_explicit (&build_needs_handler, false,
                                memory_order_relaxed))
    atexit (wait_for_builds_at_exit); /* if it fails, as before */
  return pt_now_ns ();
}

static void
build_end (uint64_t began)
{
  if (pt_now_ns () - began >= BUILD_NS_MIN)
    atomic_store_explicit (&build_needs_handler, true, memory_order_relaxed);
  atomic_fetch_sub_explicit (&builds_in_flight, 1, memory_order_release);
}

unsigned
pt_device_domains (cl_device_id dev)
{
  const cl_device_affinity_domain kinds = CL_DEVICE_AFFINITY_DOMAIN_NUMA
                                          | CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE
                                          | CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE
                                          | CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE
                                          | CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE;
  cl_device_affinity_domain domains = 0;
  /* The core stores {type, domain, 0} as the partition type, with
     NEXT_PARTITIONABLE replaced by the domain it used.  */
  for (; dev != NULL && dev->parent_device != NULL; dev = dev->parent_device)
    if (dev->num_partition_types >= 2 && dev->partition_type != NULL
        && dev->partition_type[0] == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN)
      domains |= (cl_device_affinity_domain)dev->partition_type[1];
  return (unsigned)(domains & kinds);
}

/* One launch: the pool's view of it first, then what only this layer
   uses, then the dispatcher, all in one allocation.  */
typedef struct
{
  pt_pool_launch queued; /* first: pt_launch_of converts back */

  /* PoCL's per-launch record: the kernel, its arguments as set up once for
     all threads, the context (pocl_context) and the work-group function.
     Only the fields PoCL's argument helpers use are filled in.  Written
     before publishing, read-only afterwards.  */
  kernel_run_command krc;

  /* Non-zero if a work-group reported failure (PoCL's execution_failed). */
  _Atomic unsigned execution_failed;

  /* Bit i set: guest i of the dispatcher (participant num_threads + i) is
     taken by an application thread (pt_launch_host_join).  */
  _Atomic unsigned guests_taken;

  /* Whether the launch was put in the pool's list: one that an
     application thread claimed whole before publishing never is, and has
     nothing to retire.  Written before publishing, read-only after.  */
  bool published;
} pt_launch;

static inline pt_launch *
pt_launch_of (pt_pool_launch *q)
{
  return (pt_launch *)q;
}

static inline size_t
round_up_to_line (size_t n)
{
  return (n + WGD_CACHELINE - 1) / WGD_CACHELINE * WGD_CACHELINE;
}

static void
launch_release (pt_launch *l)
{
  if (pt_pool_launch_release (&l->queued))
    pocl_aligned_free (l);
}

/* Completes (or fails) an NDRange command without running it.  */
static void
complete_at_once (_cl_command_node *cmd, cl_int status, const char *msg)
{
  cl_event ev = cmd->sync.event.event;
  pocl_update_event_running (ev);
  if (status == CL_SUCCESS)
    POCL_UPDATE_EVENT_COMPLETE_MSG (ev, "NDRange Kernel        ");
  else
    POCL_UPDATE_EVENT_FAILED_MSG (status, ev, msg);
}

/* Called by the worker whose claim left nothing to claim (W6 of
   wg_dispatch.c: exactly one): no worker can find anything to do in l any
   more, so it leaves the pool's list, which drops the list's reference.  */
static void
retire_launch (pt_pool *p, pt_launch *l)
{
  if (l->published)
    pt_pool_unlink_launch (p, &l->queued);
}

/* Called by the worker that finished the last work-group, after every
   worker that ran work-groups has flushed its printf output and released
   its copy of the arguments.  */
static void
complete_launch (pt_launch *l)
{
  _cl_command_node *cmd = l->krc.cmd;
  cl_event ev = cmd->sync.event.event;

  pocl_free_kernel_arg_array (&l->krc);
  pocl_release_dlhandle_cache (cmd->command.run.device_data);
  /* relaxed: wgd_finish ordered every worker's store before this load.  */
  if (atomic_load_explicit (&l->execution_failed, memory_order_relaxed))
    POCL_UPDATE_EVENT_FAILED_MSG (CL_FAILED, ev,
                                  "NDRange Kernel: a work-group failed");
  else
    POCL_UPDATE_EVENT_COMPLETE_MSG (ev, "NDRange Kernel        ");
}

/* The dispatcher's clock for sizing static claims (wgd_launch_set_clock).  */
static uint64_t
launch_clock (void *arg, unsigned tid)
{
  (void)arg;
  (void)tid;
  return pt_now_ns ();
}

/* Gets NDRange command cmd ready to run: builds or finds the kernel's
   binary and makes its launch (not yet published), with the device's
   threads and PT_KERNEL_GUESTS guests.  Commands with no work-groups,
   built-in kernels and failures complete here: then NULL.  */
static pt_launch *
prepare_launch (const pt_kernel_env *env, pt_runner *r, _cl_command_node *cmd)
{
  pt_pool *p = env->pool;
  cl_kernel kernel = cmd->command.run.kernel;
  cl_program program = kernel->program;
  cl_uint dev_i = cmd->program_device_i;
  const struct pocl_context *pc = &cmd->command.run.pc;

  if (program->builtin_kernel_attributes)
    {
      /* A defined built-in kernel: PoCL's CPU implementation runs it whole
         on this thread.  */
      pocl_update_event_running (cmd->sync.event.event);
      pocl_cpu_execute_dbk (program, kernel, kernel->meta, dev_i,
                            cmd->command.run.arguments);
      POCL_UPDATE_EVENT_COMPLETE_MSG (cmd->sync.event.event,
                                      "Builtin Kernel        ");
      return NULL;
    }

  uint64_t groups = pt_pool_command_groups (cmd);
  if (groups == 0)
    {
      complete_at_once (cmd, CL_SUCCESS, NULL);
      return NULL;
    }

  /* Both calls may run LLVM (a kernel not in the caches yet).  */
  uint64_t build_began = build_begin ();
  if (pocl_driver_build_gvar_init_kernel (program, dev_i, cmd->device,
                                          pocl_cpu_gvar_init_callback)
      != 0)
    {
      build_end (build_began);
      complete_at_once (cmd, CL_FAILED,
                        "CPU: failed to compile the global-variable "
                        "initialiser kernel");
      return NULL;
    }

  char *saved_name = NULL;
  pocl_sanitize_builtin_kernel_name (kernel, &saved_name);
  void *binary = pocl_check_kernel_dlhandle_cache (cmd, CL_TRUE, CL_TRUE);
  pocl_restore_builtin_kernel_name (kernel, saved_name);
  build_end (build_began);
  cmd->command.run.device_data = binary;
  if (binary == NULL)
    {
      complete_at_once (cmd, CL_FAILED, "CPU: failed to compile the kernel");
      return NULL;
    }

  unsigned first, count;
  pt_pool_device_threads (p, cmd->device, &first, &count);

  size_t head = round_up_to_line (sizeof (pt_launch));
  _Static_assert (offsetof (pt_launch, queued) == 0,
                  "pt_launch_of converts a pool entry back");
  pt_launch *l = pocl_aligned_malloc (
      WGD_CACHELINE, head + wgd_launch_size_guests (count, PT_KERNEL_GUESTS));
  if (l == NULL)
    {
      pocl_release_dlhandle_cache (binary);
      complete_at_once (cmd, CL_OUT_OF_HOST_MEMORY,
                        "CPU: out of memory for a kernel launch");
      return NULL;
    }
  memset (l, 0, head);

  kernel_run_command *k = &l->krc;
  k->kernel = kernel;
  k->device = cmd->device;
  k->cmd = cmd;
  k->pc = *pc;
  k->pc.printf_buffer = NULL;
  k->pc.printf_buffer_capacity = env->printf_buffer_size;
  k->pc.printf_buffer_position = NULL;
  k->pc.global_var_buffer = program->gvar_storage[dev_i];
  k->workgroup = cmd->command.run.wg;
  k->kernel_args = cmd->command.run.arguments;
  pocl_setup_kernel_arg_array (k);

  wgd_launch *d = (wgd_launch *)((char *)l + head);
  wgd_launch_init (d, env->schedule, groups, count, p->num_threads);
  if (env->node_of != NULL)
    wgd_launch_set_nodes (d, env->node_of + first);
  wgd_launch_set_stealing (d, env->steal);
  wgd_launch_set_guests (d, PT_KERNEL_GUESTS);
  wgd_launch_set_clock (d, launch_clock, NULL, PT_CLAIM_BUDGET_NS);
  l->queued.first_thread = first;
  l->queued.num_threads = count;
  l->queued.dispatch = d;
  l->queued.domains = pt_device_domains (cmd->device);
  l->queued.queue = cmd->sync.event.event->queue;
  l->queued.event = cmd->sync.event.event;
  /* relaxed: l is published by the pool lock in pt_pool_push_launch, or
     never leaves this thread.  */
  atomic_store_explicit (&l->execution_failed, 0, memory_order_relaxed);
  atomic_store_explicit (&l->guests_taken, 0, memory_order_relaxed);

  r->stats.per_schedule[env->schedule].launches++;
  pocl_update_event_running (cmd->sync.event.event);
  return l;
}

/* Whether the calling application thread counts itself busy in a
   launch it published or joined (pt_pool_host_busy): from then on it
   runs work-groups beside the workers, on a CPU that P8 of
   pthread_pool.c must not offer another helper, and that B5-B8 of
   pthread_spin.h must see taken.  A launch it runs unpublished has no
   helpers to count against, and pays nothing.  */
static __thread bool host_counted;

static void
host_uncount (pt_pool *p)
{
  if (host_counted)
    {
      pt_pool_host_busy (p, false);
      host_counted = false;
    }
}

/* Lists l where the workers look for launches; with `wake` (an
   application thread's launch, pthread_host.h), also wakes helpers (a
   worker that runs the command wakes them when it joins).  */
static void
publish (const pt_kernel_env *env, pt_launch *l, bool wake)
{
  l->published = true;
  if (wake)
    {
      /* Before the wake-ups, so that P8 counts us.  */
      pt_pool_host_busy (env->pool, true);
      host_counted = true;
    }
  if (wake)
    /* P6: the worker left waiting for this command, which we took,
       joins now instead of at its grace's end.  */
    pt_pool_publish_shared (env->pool, &l->queued);
  else
    pt_pool_push_launch (env->pool, &l->queued);
}

void
pt_kernel_run_command (const pt_kernel_env *env, pt_runner *r,
                       _cl_command_node *cmd)
{
  pt_launch *l = prepare_launch (env, r, cmd);
  if (l == NULL)
    return;
  publish (env, l, false);
  pt_launch_participate (env, r, &l->queued);
}

/* One participant's claims while it waits for holders' rest
   (claim_or_wait).  */
typedef struct
{
  wgd_launch *d;
  unsigned tid;
  wgd_range *r;
  wgd_thread_stats *st;
  bool more; /* what the last wgd_claim returned */
} hungry_claim;

static bool
claim_again (void *arg)
{
  hungry_claim *h = arg;
  h->more = wgd_claim (h->d, h->tid, h->r, h->st);
  /* A call that says to wait is never the last (wgd_range).  */
  return h->more || !h->r->wait;
}

/* wgd_claim, and while it says to wait (others hold ranges and were asked
   for their rest: W8 of wg_dispatch.c), again after a pause, for up to
   PT_HUNGER_WAIT_NS (B7 of pthread_spin.h, pt_hunger_wait): a gap in the
   clock that says this thread lost its CPU ends the wait at once (B2), as
   then the holders have moved on too, and so do more busy workers than
   CPUs (B7) and another busy worker on this thread's CPU (B8): a holder
   waiting for the CPU this thread spins on.  Leaving is always safe.
   hint: the pool's counts of its threads.  */
static bool
claim_or_wait (wgd_launch *d, unsigned tid, wgd_range *r, wgd_thread_stats *st,
               pt_wake_hint *hint)
{
  hungry_claim h = { d, tid, r, st, wgd_claim (d, tid, r, st) };
  if (h.more || !r->wait)
    return h.more;
  pt_hunger_wait (claim_again, &h, PT_HUNGER_WAIT_NS, pt_real_clock (), hint,
                  pt_pool_counted_cpu (), PT_SPIN_LOOKS);
  return h.more;
}

/* A participant's report still to make (wait_to_finish_last).  */
typedef struct
{
  wgd_launch *d;
  uint64_t done;
} own_finish;

static bool
others_finished (void *arg)
{
  own_finish *f = arg;
  return wgd_all_but_finished (f->d, f->done);
}

/* S3 (pthread_share.h): the waiting thread, out of work-groups to claim,
   waits up to PT_FINISH_WAIT_NS for the others' last ones, so that its
   own wgd_finish completes the launch (B7 of pthread_spin.h bounds the
   wait as it does a hungry claim's).  */
static void
wait_to_finish_last (wgd_launch *d, uint64_t done, pt_wake_hint *hint)
{
  own_finish f = { d, done };
  if (!others_finished (&f))
    pt_hunger_wait (others_finished, &f, PT_FINISH_WAIT_NS, pt_real_clock (),
                    hint, pt_pool_counted_cpu (), 1);
}

/* Where a worker is in a launch's grid: the coordinates of work-group
   `next` (linear index, x fastest).  Carried from one range to the next,
   because under the static schedule a worker's consecutive claims are
   mostly consecutive work-groups of its own block, one at a time: finding
   the coordinates anew would cost three 64-bit divisions per work-group,
   as much as claiming it.  */
typedef struct
{
  uint64_t next;
  uint64_t x, y, z;
} grid_cursor;

/* Runs work-groups [r->begin, r->end) of a launch with nx x ny x nz
   work-groups, linear index x fastest, from cursor c, which it leaves at
   r->end.  Returns the OR of the groups' execution_failed flags.  d:
   the launch's dispatcher, where participant tid claimed r, or NULL when
   nobody else can be in the launch: before each work-group after the
   range's first, the hunger latch, and when it is set, the rest of r goes
   back (wgd_give_back shortens r; W8 of wg_dispatch.c).  */
static unsigned
run_range (kernel_run_command *k, void **arguments, struct pocl_context *pc,
           wgd_range *r, grid_cursor *c, wgd_launch *d, unsigned tid,
           wgd_thread_stats *st)
{
  const uint64_t nx = pc->num_groups[0];
  const uint64_t ny = pc->num_groups[1];
  if (c->next != r->begin)
    {
      c->x = r->begin % nx;
      c->y = (r->begin / nx) % ny;
      c->z = r->begin / nx / ny;
    }
  uint64_t x = c->x, y = c->y, z = c->z;
  unsigned failed = 0;
  /* Whether to watch the latch: a range of one work-group has nothing to
     give back, nor has one that gave back already.  */
  bool watch = d != NULL && r->end - r->begin > 1;
  for (uint64_t g = r->begin; g < r->end; ++g)
    {
      /* relaxed load on a line written once per launch (wgd_hungry).  */
      if (watch && g != r->begin && wgd_hungry (d))
        {
          wgd_give_back (d, tid, r, g, st);
          watch = false;
          if (g >= r->end)
            break;
        }
      k->workgroup ((uint8_t *)arguments, (uint8_t *)pc, x, y, z);
      failed |= pc->execution_failed;
      if (++x == nx)
        {
          x = 0;
          if (++y == ny)
            {
              y = 0;
              ++z;
            }
        }
    }
  c->next = r->end;
  c->x = x;
  c->y = y;
  c->z = z;
  return failed;
}

/* Writes out what the work-groups of a range printed.  Per range, so that
   a long launch does not overflow the buffer and its output appears as it
   goes.  */
static inline void
flush_printf (struct pocl_context *pc, uint32_t *position)
{
#ifndef ENABLE_PRINTF_IMMEDIATE_FLUSH
  if (*position > 0)
    {
      pocl_write_printf_buffer ((char *)pc->printf_buffer, *position);
      *position = 0;
    }
#else
  (void)pc;
  (void)position;
#endif
}

/* Runner w, holding a reference to launch q, runs work-groups of it as
   participant tid of its dispatcher until none are left to claim, then
   drops its reference.  first: a range w already claimed (an application
   thread's claim before publishing), or NULL.  alone: rule S1
   (pthread_share.h) applies: the launch is not published yet (an
   application thread's) and work-groups are left to claim after `first`;
   w runs it alone, publishes it when the rule says so, and stops looking
   once it has claimed the last work-group.  */
static bool
participate (const pt_kernel_env *env, pt_runner *w, pt_pool_launch *q,
             unsigned tid, const wgd_range *first, bool alone)
{
  pt_pool *p = env->pool;
  pt_launch *l = pt_launch_of (q);
  wgd_launch *d = q->dispatch;
  pts_sched_stats *st = &w->stats.per_schedule[d->schedule];
  wgd_range r;

  st->joins++;
  /* Reads only the launch's copy of the function pointer, which lives as
     long as our reference.  */
  const pocl_workgroup_func kernel_key = l->krc.workgroup;
  if (w->cost_of == kernel_key)
    wgd_set_group_cost (d, tid, w->group_cost);
  /* Claim before touching the kernel: a worker that finds nothing left
     must not use the command, which the finishing worker may complete
     (and PoCL free) at any moment.  */
  if (first != NULL)
    r = *first;
  else if (!claim_or_wait (d, tid, &r, &st->dispatch, &p->woken))
    {
      st->fruitless_joins++;
      /* A first claim has nothing pending to account, so it is never the
         last; kept for the contract of wgd_range.last.  */
      if (r.last)
        retire_launch (p, l);
      /* Nothing for us, but maybe for others: with stealing off, a thread
         whose block is empty (the one that prepared a launch of fewer
         work-groups than threads, say) finds nothing while other blocks
         are full, and their owners may all be asleep.  Wake them as a
         joiner that found work would (tests/model/pool_wake.pml, STEAL=0,
         found the hang without this).  The launch is still ours: we hold
         a reference.  */
      if (wgd_unclaimed (d) > 0)
        pt_pool_wake_helpers (p, q, PT_WAKE_FAN_OUT);
      host_uncount (p);
      launch_release (l);
      return false;
    }
  if (first == NULL && r.last)
    retire_launch (p, l);
  else if (first == NULL && wgd_unclaimed (d) > 0)
    pt_pool_wake_helpers (p, q, PT_WAKE_FAN_OUT);

  kernel_run_command *k = &l->krc;
  const pocl_kernel_metadata_t *meta = k->kernel->meta;
  const size_t slots = meta->num_args + meta->num_locals + 1;
  void **arguments = alloca (sizeof (void *) * slots);
  void **arguments2 = alloca (sizeof (void *) * slots);
  /* Local buffers of this worker; fails if they do not fit.  */
  bool args_ok
      = pocl_setup_kernel_arg_array_with_locals (
            arguments, arguments2, k, w->local_mem, env->local_mem_size)
        == 0;

  struct pocl_context pc = k->pc;
  uint32_t printf_position = 0;
  pc.printf_buffer = w->printf_buffer;
  pc.printf_buffer_position = &printf_position;
  pocl_cpu_setup_rm_and_ftz (k->device, k->kernel->program);

  unsigned failed = args_ok ? 0 : 1;
  uint64_t done = 0;
  /* UINT64_MAX: no range has run yet, so the first one finds its
     coordinates.  */
  grid_cursor cursor = { UINT64_MAX, 0, 0, 0 };
  bool more = true;
  if (alone)
    {
      /* S1's phase, in a loop of its own: the loop below runs once per
         work-group of a big launch under static, and with S1's tests in
         it, launches of 1024 to 16384 trivial work-groups took 2-4% longer
         at 2 threads.  The range is run in parts, up to each look of S1.
         Leaves with r still to run if `more`.  */
      pt_share share;
      pt_share_start (&share, env->host_share_ns, pt_now_ns ());
      /* The range claimed last, as wgd_give_back wants it.  */
      wgd_range held = r;
      while (alone)
        {
          wgd_range part = r;
          part.end = part.begin
                     + pt_share_allowance (&share, done, r.end - r.begin);
          /* Ranges are still claimed after a failure, so that the launch
             finishes, but not run.  */
          if (!failed)
            failed |= run_range (k, arguments, &pc, &part, &cursor, NULL, tid,
                                 NULL);
          done += part.end - part.begin;
          r.begin = part.end;
          flush_printf (&pc, &printf_position);
          /* Nobody else can see the launch, so `done` is all that ran,
             and what is unclaimed is ours to share.  */
          if (pt_share_look_due (&share, done)
              && pt_share_look (&share, done, d->num_groups, pt_now_ns ()))
            {
              /* The unstarted rest of a range claimed alone goes back
                 before anybody can see the launch (wgd_claim_alone).  A
                 part of it ran, so r.begin lies in (held.begin,
                 held.end].  */
              if (r.begin < r.end)
                {
                  wgd_give_back (d, tid, &held, r.begin, &st->dispatch);
                  r.end = held.end;
                }
              publish (env, l, true);
              alone = false;
            }
          if (r.begin < r.end)
            continue; /* the rest of the range, after a look */
          more = alone ? wgd_claim_alone (d, tid, &r, &st->dispatch)
                       : wgd_claim (d, tid, &r, &st->dispatch);
          held = r;
          /* `last` may come with a false return (wgd_range).
             Unpublished, the launch is in no list: retire_launch leaves
             it, and S1 ends here, as nothing is left to share (publishing
             it now would leave it listed for ever: nobody would unlink
             it).  */
          if (r.last)
            retire_launch (p, l);
          if (r.last || !more)
            alone = false;
        }
    }
  while (more)
    {
      if (!failed)
        failed |= run_range (k, arguments, &pc, &r, &cursor, d, tid,
                             &st->dispatch);
      done += r.end - r.begin;
      flush_printf (&pc, &printf_position);
      more = claim_or_wait (d, tid, &r, &st->dispatch, &p->woken);
      /* `last` may come with a false return (wgd_range).  */
      if (r.last)
        retire_launch (p, l);
    }

  pocl_free_kernel_arg_array_with_locals (arguments, arguments2, k);
  if (failed)
    /* relaxed: published to the finishing worker by wgd_finish.  */
    atomic_fetch_or_explicit (&l->execution_failed, 1, memory_order_relaxed);

  uint64_t cost = wgd_group_cost (d, tid);
  if (cost != 0)
    {
      w->cost_of = kernel_key;
      w->group_cost = cost;
    }
  /* S3: guest 0 is the application thread that prepared the launch, or
     the first to join it; a second guest does not wait, so that two never
     wait for each other.  Before host_uncount: it still holds a CPU.  */
  if (tid == d->num_threads)
    wait_to_finish_last (d, done, &p->woken);
  host_uncount (p);
  if (wgd_finish (d, done))
    complete_launch (l);
  launch_release (l);
  return true;
}

bool
pt_launch_participate (const pt_kernel_env *env, pt_runner *w,
                       pt_pool_launch *q)
{
  return participate (env, w, q, w->index - q->first_thread, NULL, false);
}

void
pt_kernel_host_run (const pt_kernel_env *env, pt_runner *r,
                    _cl_command_node *cmd, unsigned graced)
{
  pt_launch *l = prepare_launch (env, r, cmd);
  if (l == NULL)
    return;
  wgd_launch *d = l->queued.dispatch;
  const unsigned tid = d->num_threads; /* guest 0, ours */
  const unsigned first_thread = l->queued.first_thread;
  if (graced >= first_thread && graced - first_thread < d->num_threads)
    wgd_launch_set_guest_first (d, (graced - first_thread + d->num_threads - 1)
                                       % d->num_threads);
  /* relaxed: nobody else sees l until pt_pool_push_launch publishes it.  */
  atomic_store_explicit (&l->guests_taken, 1u, memory_order_relaxed);
  atomic_store_explicit (&l->queued.refs, 1, memory_order_relaxed);
  /* The first claim, before anybody else can see the launch: a launch
     this claim empties (one work-group, or a block of one) is never
     published, and nobody is woken for it.  */
  pts_sched_stats *st = &r->stats.per_schedule[d->schedule];
  wgd_range first;
  const bool cost_known = r->cost_of == l->krc.workgroup;
  if (cost_known)
    wgd_set_group_cost (d, tid, r->group_cost);
  /* Claimed alone when S1 may run the launch alone (the rest goes back
     if it publishes); else as any claim, the launch being shared at
     once: a threshold of 0, or S2 (pthread_share.h), by the cost this
     thread measured in its previous launch of the kernel.  */
  const bool at_once
      = pt_share_at_once (env->host_share_ns)
        || (cost_known
            && pt_share_known_cost (env->host_share_ns, r->group_cost,
                                    WGD_COST_SHIFT, d->num_groups));
  if (!(at_once ? wgd_claim (d, tid, &first, &st->dispatch)
                : wgd_claim_alone (d, tid, &first, &st->dispatch)))
    {
      /* Under static with stealing off (POCL_PTHREAD_STEAL=0) only the
         owners run their blocks, and a guest gets nothing: the workers
         run it all.  */
      publish (env, l, true);
      host_uncount (env->pool);
      launch_release (l);
      return;
    }
  /* Work-groups are left: share them at once, or run alone first while
     the rest looks cheap (S1, pthread_share.h).  */
  bool alone = !first.last && wgd_unclaimed (d) > 0;
  if (alone && at_once)
    {
      publish (env, l, true);
      alone = false;
    }
  participate (env, r, &l->queued, tid, &first, alone);
}

bool
pt_launch_host_join (const pt_kernel_env *env, pt_runner *r, pt_pool_launch *q)
{
  pt_launch *l = pt_launch_of (q);
  unsigned taken
      = atomic_load_explicit (&l->guests_taken, memory_order_relaxed);
  for (unsigned g = 0; g < PT_KERNEL_GUESTS; ++g)
    {
      if (taken & (1u << g))
        continue;
      /* relaxed: the bit only hands out a participant index; the launch
         itself was published by the pool lock.  */
      if (atomic_compare_exchange_strong_explicit (
              &l->guests_taken, &taken, taken | (1u << g),
              memory_order_relaxed, memory_order_relaxed))
        {
          pt_pool_host_busy (env->pool, true);
          host_counted = true;
          return participate (env, r, q, q->dispatch->num_threads + g, NULL,
                              false);
        }
      g = (unsigned)-1; /* taken changed: look again from the start */
    }
  launch_release (l);
  return false;
}
