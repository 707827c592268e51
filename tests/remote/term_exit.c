/* term_exit.c - preloaded into pocld by check_remote.sh: SIGTERM makes
   pocld exit (3), so that its exit handlers run and the driver prints its
   POCL_PTHREAD_STATS lines.  pocld has no way to stop of its own: it runs
   until killed, and a process killed by a signal runs no exit handler.

   The constructor blocks SIGTERM before pocld's main starts its threads,
   which inherit the mask, so only this library's thread, waiting in
   sigwait, ever takes the signal.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static sigset_t term;

static void *
wait_for_term (void *unused)
{
  (void)unused;
  int sig = 0;
  if (sigwait (&term, &sig) == 0)
    {
      fprintf (stderr, "term_exit: signal %d, pocld exits\n", sig);
      exit (0);
    }
  return NULL;
}

__attribute__ ((constructor)) static void
term_exit_init (void)
{
  pthread_t t;
  sigemptyset (&term);
  sigaddset (&term, SIGTERM);
  if (pthread_sigmask (SIG_BLOCK, &term, NULL) != 0
      || pthread_create (&t, NULL, wait_for_term, NULL) != 0)
    {
      fprintf (stderr, "term_exit: cannot wait for SIGTERM\n");
      return;
    }
  pthread_detach (t);
}
