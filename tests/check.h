/* check.h - the one assertion macro of the C tests: it reports and counts
   a failed check and goes on, so that a run shows every failure.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_CHECK_H
#define POCL_STEAL_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                                      \
  do                                                                          \
    {                                                                         \
      if (!(cond))                                                            \
        {                                                                     \
          fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
          fprintf (stderr, __VA_ARGS__);                                      \
          fputc ('\n', stderr);                                               \
          ++check_failures;                                                   \
        }                                                                     \
    }                                                                         \
  while (0)

/* Prints the verdict of test NAME; the exit status for main.  */
static inline int
check_finish (const char *name)
{
  if (check_failures)
    {
      fprintf (stderr, "%s: %d check(s) failed\n", name, check_failures);
      return 1;
    }
  printf ("%s: all checks passed\n", name);
  return 0;
}

#endif /* POCL_STEAL_CHECK_H */
