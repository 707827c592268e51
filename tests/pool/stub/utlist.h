/* utlist.h (test stub) - the three doubly linked list macros the pool
   uses, with the semantics PoCL's list header gives them: a list is its
   head pointer, NULL when empty; the head's prev points at the tail (so
   appending is O(1)) and the tail's next is NULL.  Elements are structs
   with `prev` and `next` members.  Written for these tests.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#ifndef POCL_STEAL_STUB_UTLIST_H
#define POCL_STEAL_STUB_UTLIST_H

/* Appends elem at the tail of list.  */
#define DL_APPEND(list, elem)                                                 \
  do                                                                          \
    {                                                                         \
      (elem)->next = NULL;                                                    \
      if ((list) == NULL)                                                     \
        {                                                                     \
          (elem)->prev = (elem);                                              \
          (list) = (elem);                                                    \
        }                                                                     \
      else                                                                    \
        {                                                                     \
          (elem)->prev = (list)->prev;                                        \
          (list)->prev->next = (elem);                                        \
          (list)->prev = (elem);                                              \
        }                                                                     \
    }                                                                         \
  while (0)

/* Unlinks elem, which must be in list; elem's own links are left as they
   were.  */
#define DL_DELETE(list, elem)                                                 \
  do                                                                          \
    {                                                                         \
      if ((elem) == (list))                                                   \
        {                                                                     \
          /* The new head inherits the tail pointer.  */                      \
          (list) = (elem)->next;                                              \
          if ((list) != NULL)                                                 \
            (list)->prev = (elem)->prev;                                      \
        }                                                                     \
      else                                                                    \
        {                                                                     \
          (elem)->prev->next = (elem)->next;                                  \
          if ((elem)->next != NULL)                                           \
            (elem)->next->prev = (elem)->prev;                                \
          else                                                                \
            (list)->prev = (elem)->prev; /* elem was the tail */              \
        }                                                                     \
    }                                                                         \
  while (0)

/* Runs the following statement with it = each element, head to tail.  */
#define DL_FOREACH(list, it)                                                  \
  for ((it) = (list); (it) != NULL; (it) = (it)->next)

#endif /* POCL_STEAL_STUB_UTLIST_H */
