/* test_stack.c - the switch to a stack of the driver's, rules K1-K5 of
   driver/pthread_stack.h, without PoCL:
     - K1: fn runs on the driver's stack (its frame lies in it) with its
       argument, and the caller goes on afterwards with its locals, its
       signal mask and its floating-point rounding as they were; fn may use
       4 MiB of stack from a thread whose own stack is 64 KiB and from a
       makecontext coroutine on a 64 KiB stack, where that much would
       overflow the thread's or the coroutine's own stack;
     - K2: a backtrace taken in fn (glibc's backtrace, which uses the
       unwind tables) goes on past the switch into the caller's frames:
       it names the caller and main;
     - K3: a write just below the usable part faults (a child process
       does it and must die of SIGSEGV), and so does a recursion that runs
       off the stack's end;
     - K4: 2000 queued real-time signals sent to a thread while it runs on
       the driver's stack all arrive, none lost; the handler runs on the
       driver's stack, or on the alternate stack where the handler was
       installed with SA_ONSTACK and the thread has one;
     - a stack is freed and made again, and pt_stack_free of none is a
       no-op.
   Built a second and third time with AddressSanitizer and
   ThreadSanitizer (K5): the same checks, and no report; under TSan not
   K4, as TSan runs handlers at points of its own and merges queued
   signals.  Where the
   architecture has no switch, pt_stack_make must say ENOTSUP and the test
   reports itself skipped (exit 77).
   Why: application threads run small launches on such a stack (issue
   33), whatever stack they run on themselves; a switch that lost a
   signal, broke a backtrace or wrote past its end would show up only
   as a rare crash in an application.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <errno.h>
#include <execinfo.h>
#include <fenv.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "../check.h"
#include "pthread_stack.h"

/* ThreadSanitizer runs a handler later, at a point of its own choosing and
   on the thread's current stack, and keeps one pending instance per
   signal: K4's counts would say nothing about the switch there.  */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

#define STACK_SIZE (6u << 20)
#define DEEP_BYTES (4u << 20)
#define SMALL_STACK (64u << 10)
#define SIGNALS 2000

static pt_stack stack;

/* K1 ---------------------------------------------------------------- */

typedef struct
{
  int arg_seen;
  bool frame_on_stack;
  unsigned long sum;
} run_result;

static void __attribute__ ((noinline))
use_deep (run_result *r)
{
  /* A big frame, written through, so that the compiler keeps it.  */
  volatile unsigned char buf[DEEP_BYTES];
  for (size_t i = 0; i < sizeof (buf); i += 4096)
    buf[i] = (unsigned char)(i >> 12);
  unsigned long s = 0;
  for (size_t i = 0; i < sizeof (buf); i += 4096)
    s += buf[i];
  r->sum = s;
}

static void
deep_fn (void *arg)
{
  run_result *r = arg;
  r->arg_seen = 1;
  r->frame_on_stack = pt_stack_holds (&stack, __builtin_frame_address (0));
  use_deep (r);
}

static unsigned long
deep_sum (void)
{
  unsigned long s = 0;
  for (size_t i = 0; i < DEEP_BYTES; i += 4096)
    s += (unsigned char)(i >> 12);
  return s;
}

static void
check_run (const char *where)
{
  volatile int canary = 0x5a5a;
  sigset_t before, after;
  pthread_sigmask (SIG_SETMASK, NULL, &before);
  int round = fegetround ();
  run_result r = { 0 };
  pt_stack_run (&stack, deep_fn, &r);
  pthread_sigmask (SIG_SETMASK, NULL, &after);
  CHECK (r.arg_seen == 1, "%s: fn did not get its argument", where);
  CHECK (r.frame_on_stack, "%s: fn's frame is not on the driver's stack",
         where);
  CHECK (r.sum == deep_sum (), "%s: fn's deep frame read back %lu, want %lu",
         where, r.sum, deep_sum ());
  CHECK (canary == 0x5a5a, "%s: the caller's local changed", where);
  /* Signal by signal: the bytes of a sigset_t beyond the kernel's part
     are not defined.  */
  for (int sig = 1; sig < NSIG; ++sig)
    CHECK (sigismember (&before, sig) == sigismember (&after, sig),
           "%s: signal %d's bit in the mask changed", where, sig);
  CHECK (fegetround () == round, "%s: the rounding mode changed", where);
}

static void *
small_thread (void *arg)
{
  (void)arg;
  check_run ("thread with a 64 KiB stack");
  return NULL;
}

static ucontext_t main_ctx, co_ctx;

static void
coroutine (void)
{
  check_run ("makecontext coroutine on 64 KiB");
}

static void
check_k1 (void)
{
  check_run ("main thread");

  pthread_attr_t a;
  pthread_attr_init (&a);
  pthread_attr_setstacksize (&a, SMALL_STACK);
  pthread_t t;
  CHECK (pthread_create (&t, &a, small_thread, NULL) == 0,
         "cannot start a thread with a small stack");
  pthread_join (t, NULL);
  pthread_attr_destroy (&a);

  void *co_stack = malloc (SMALL_STACK);
  getcontext (&co_ctx);
  co_ctx.uc_stack.ss_sp = co_stack;
  co_ctx.uc_stack.ss_size = SMALL_STACK;
  co_ctx.uc_link = &main_ctx;
  makecontext (&co_ctx, coroutine, 0);
  CHECK (swapcontext (&main_ctx, &co_ctx) == 0, "swapcontext failed");
  free (co_stack);
}

/* K2 ---------------------------------------------------------------- */

static int frames_found;
static char frame_names[64][128];

static void
backtrace_fn (void *arg)
{
  (void)arg;
  void *pcs[64];
  int n = backtrace (pcs, 64);
  char **names = backtrace_symbols (pcs, n);
  frames_found = n;
  for (int i = 0; i < n && names != NULL; ++i)
    snprintf (frame_names[i], sizeof (frame_names[i]), "%s", names[i]);
  free (names);
}

/* Exported (the test links with -rdynamic), so that backtrace_symbols
   names it.  */
void __attribute__ ((noinline))
stack_test_caller (void)
{
  pt_stack_run (&stack, backtrace_fn, NULL);
  __asm__ __volatile__ ("" ::: "memory"); /* not a tail call */
}

static void
check_k2 (void)
{
  stack_test_caller ();
  bool caller = false, main_seen = false;
  for (int i = 0; i < frames_found; ++i)
    {
      caller |= strstr (frame_names[i], "(stack_test_caller+") != NULL;
      main_seen |= strstr (frame_names[i], "(main+") != NULL;
    }
  CHECK (caller && main_seen,
         "a backtrace from the driver's stack did not reach the caller "
         "(%s) and main (%s); %d frames",
         caller ? "found" : "missing", main_seen ? "found" : "missing",
         frames_found);
  if (!(caller && main_seen))
    for (int i = 0; i < frames_found; ++i)
      fprintf (stderr, "  frame %d: %s\n", i, frame_names[i]);
}

/* K3 ---------------------------------------------------------------- */

static void
below_fn (void *arg)
{
  (void)arg;
  volatile char *p = (volatile char *)(stack.lo - 1);
  *p = 1;
}

static unsigned __attribute__ ((noinline))
recurse (unsigned n)
{
  volatile char pad[4096];
  pad[0] = (char)n;
  return n == 0 ? (unsigned)pad[0] : recurse (n - 1) + (unsigned)pad[0];
}

static void
overflow_fn (void *arg)
{
  (void)arg;
  /* 4 KiB frames, more of them than the stack holds.  */
  recurse (STACK_SIZE / 4096 + 64);
}

/* Runs fn on the stack in a child; whether the child died of SIGSEGV.  */
static bool
faults_in_child (void (*fn) (void *))
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      /* The child's only stack is the one it inherited; no core file.  */
      signal (SIGSEGV, SIG_DFL);
      pt_stack_run (&stack, fn, NULL);
      _exit (0);
    }
  int st = 0;
  if (pid < 0 || waitpid (pid, &st, 0) != pid)
    return false;
  return WIFSIGNALED (st) && WTERMSIG (st) == SIGSEGV;
}

static void
check_k3 (void)
{
  CHECK (faults_in_child (below_fn),
         "a write below the usable part did not fault (guard page)");
  CHECK (faults_in_child (overflow_fn),
         "a recursion off the stack's end did not fault");
}

/* K4 ---------------------------------------------------------------- */

static _Atomic int handled, on_driver_stack, on_alt_stack, inside;
static uintptr_t alt_lo, alt_hi;

static void
handler (int sig)
{
  (void)sig;
  uintptr_t sp = (uintptr_t)__builtin_frame_address (0);
  if (pt_stack_holds (&stack, (void *)sp))
    atomic_fetch_add (&on_driver_stack, 1);
  else if (sp >= alt_lo && sp < alt_hi)
    atomic_fetch_add (&on_alt_stack, 1);
  atomic_fetch_add (&handled, 1);
}

static void
wait_fn (void *arg)
{
  (void)arg;
  atomic_store (&inside, 1);
  /* Stays on the driver's stack until every signal arrived, or a minute
     passed (a failure).  */
  time_t end = time (NULL) + 60;
  while (atomic_load (&handled) < SIGNALS && time (NULL) < end)
    ;
}

typedef struct
{
  pthread_t target;
  bool alt;
} signal_run;

static void *
target_thread (void *arg)
{
  signal_run *s = arg;
  stack_t alt = { 0 };
  void *alt_mem = NULL;
  if (s->alt)
    {
      alt_mem = malloc (SIGSTKSZ * 4);
      alt.ss_sp = alt_mem;
      alt.ss_size = SIGSTKSZ * 4;
      alt_lo = (uintptr_t)alt_mem;
      alt_hi = alt_lo + alt.ss_size;
      sigaltstack (&alt, NULL);
    }
  pt_stack_run (&stack, wait_fn, NULL);
  if (s->alt)
    {
      alt.ss_flags = SS_DISABLE;
      sigaltstack (&alt, NULL);
      free (alt_mem);
    }
  return NULL;
}

static void
check_k4 (bool alt)
{
  const char *how = alt ? "with SA_ONSTACK and an alternate stack"
                        : "on the current stack";
  struct sigaction sa = { 0 };
  sa.sa_handler = handler;
  sa.sa_flags = alt ? SA_ONSTACK : 0;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGRTMIN, &sa, NULL);
  atomic_store (&handled, 0);
  atomic_store (&on_driver_stack, 0);
  atomic_store (&on_alt_stack, 0);
  atomic_store (&inside, 0);
  alt_lo = alt_hi = 0;

  signal_run s = { 0, alt };
  pthread_create (&s.target, NULL, target_thread, &s);
  while (!atomic_load (&inside))
    ;
  int sent = 0;
  while (sent < SIGNALS)
    {
      int err = pthread_sigqueue (s.target, SIGRTMIN, (union sigval){ 0 });
      if (err == 0)
        ++sent;
      else if (err != EAGAIN) /* the queue is full: let it drain */
        break;
    }
  pthread_join (s.target, NULL);
  signal (SIGRTMIN, SIG_DFL);
  CHECK (sent == SIGNALS, "%s: sent %d of %d signals", how, sent, SIGNALS);
  CHECK (atomic_load (&handled) == SIGNALS, "%s: %d of %d signals handled",
         how, atomic_load (&handled), SIGNALS);
  int want_here
      = alt ? atomic_load (&on_alt_stack) : atomic_load (&on_driver_stack);
  CHECK (want_here == SIGNALS,
         "%s: %d of %d handlers ran on the %s stack (%d on the driver's, "
         "%d on the alternate)",
         how, want_here, SIGNALS, alt ? "alternate" : "driver's",
         atomic_load (&on_driver_stack), atomic_load (&on_alt_stack));
}

/* ------------------------------------------------------------------- */

int
main (void)
{
  int err = pt_stack_make (&stack, STACK_SIZE);
  if (!PT_STACK_SWITCH)
    {
      CHECK (err == ENOTSUP, "no switch here, yet pt_stack_make said %d", err);
      if (check_failures)
        return check_finish ("test_stack");
      printf ("test_stack: this architecture has no switch; skipped\n");
      return 77;
    }
  CHECK (err == 0, "pt_stack_make failed: %s", strerror (err));
  if (err != 0)
    return check_finish ("test_stack");
  CHECK (stack.hi - stack.lo >= STACK_SIZE, "the usable part is %zu bytes",
         (size_t)(stack.hi - stack.lo));

  check_k1 ();
  check_k2 ();
  check_k3 ();
  if (UNDER_TSAN)
    printf ("test_stack: K4 (signals) not checked under ThreadSanitizer, "
            "which defers and merges signals\n");
  else
    {
      check_k4 (false);
      check_k4 (true);
    }

  pt_stack_free (&stack);
  CHECK (stack.map == NULL && stack.lo == 0, "a freed stack is not none");
  pt_stack_free (&stack); /* none: a no-op */
  CHECK (pt_stack_make (&stack, STACK_SIZE) == 0, "made again: failed");
  check_run ("made again");
  pt_stack_free (&stack);
  return check_finish ("test_stack");
}
