/* pthread_stack.c - running a function on a stack the driver owns; see
   the header (rules K1-K5).

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include "pthread_stack.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define PT_STACK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_STACK_ASAN 1
#endif
#endif
#ifndef PT_STACK_ASAN
#define PT_STACK_ASAN 0
#endif
#if PT_STACK_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#if PT_STACK_SWITCH
/* pt_stack_call (top, fn, arg): calls fn (arg) with the stack pointer at
   top (16-byte aligned) and returns to the caller's stack when fn
   returns (K1).  The caller's stack pointer waits in the frame pointer
   register, which fn preserves as the ABI requires of it; the CFI makes
   the frame pointer the canonical frame address while fn runs, so
   unwinders step from fn back to the caller's frames (K2).  The first
   instruction is a landing pad for indirect branches (endbr64, bti c),
   a no-op on processors without that protection.  */
void pt_stack_call (uintptr_t top, void (*fn) (void *), void *arg);

#if defined(__x86_64__)
__asm__ (".text\n"
         ".globl pt_stack_call\n"
         ".hidden pt_stack_call\n"
         ".type pt_stack_call, @function\n"
         ".p2align 4\n"
         "pt_stack_call:\n"
         ".cfi_startproc\n"
         "  endbr64\n"
         "  pushq %rbp\n"
         ".cfi_def_cfa_offset 16\n"
         ".cfi_offset %rbp, -16\n"
         "  movq %rsp, %rbp\n"
         ".cfi_def_cfa_register %rbp\n"
         /* The new stack; the call pushes the return address, so fn
            starts with the stack aligned as the ABI says.  */
         "  movq %rdi, %rsp\n"
         "  movq %rdx, %rdi\n"
         "  callq *%rsi\n"
         "  movq %rbp, %rsp\n"
         ".cfi_def_cfa_register %rsp\n"
         "  popq %rbp\n"
         ".cfi_def_cfa_offset 8\n"
         ".cfi_restore %rbp\n"
         "  ret\n"
         ".cfi_endproc\n"
         ".size pt_stack_call, .-pt_stack_call\n");
#elif defined(__aarch64__)
__asm__ (".text\n"
         ".globl pt_stack_call\n"
         ".hidden pt_stack_call\n"
         ".type pt_stack_call, %function\n"
         ".p2align 4\n"
         "pt_stack_call:\n"
         ".cfi_startproc\n"
         "  hint #34\n" /* bti c */
         "  stp x29, x30, [sp, #-16]!\n"
         ".cfi_def_cfa_offset 16\n"
         ".cfi_offset x29, -16\n"
         ".cfi_offset x30, -8\n"
         "  mov x29, sp\n"
         ".cfi_def_cfa_register x29\n"
         "  mov sp, x0\n"
         "  mov x0, x2\n"
         "  blr x1\n"
         "  mov sp, x29\n"
         ".cfi_def_cfa_register sp\n"
         "  ldp x29, x30, [sp], #16\n"
         ".cfi_def_cfa_offset 0\n"
         ".cfi_restore x29\n"
         ".cfi_restore x30\n"
         "  ret\n"
         ".cfi_endproc\n"
         ".size pt_stack_call, .-pt_stack_call\n");
#endif
#endif /* PT_STACK_SWITCH */

int
pt_stack_make (pt_stack *s, size_t size)
{
  *s = (pt_stack){ 0 };
#if !PT_STACK_SWITCH
  (void)size;
  return ENOTSUP;
#else
  size_t page = (size_t)sysconf (_SC_PAGESIZE);
  size = (size + page - 1) / page * page;
  size_t total = size + page;
  /* MAP_NORESERVE: a stack as big as a worker's, of which a kernel
     touches what it uses; MAP_STACK says what it is for.  */
  void *m
      = mmap (NULL, total, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (m == MAP_FAILED)
    return errno;
  /* K3: the guard page.  */
  if (mprotect (m, page, PROT_NONE) != 0)
    {
      int err = errno;
      munmap (m, total);
      return err;
    }
  s->map = m;
  s->map_size = total;
  s->lo = (uintptr_t)m + page;
  s->hi = (uintptr_t)m + total;
  return 0;
#endif
}

void
pt_stack_free (pt_stack *s)
{
  if (s->map != NULL)
    munmap (s->map, s->map_size);
  *s = (pt_stack){ 0 };
}

#if PT_STACK_SWITCH
/* What the trampoline runs, and (under ASan) the stack it came from.  */
typedef struct
{
  void (*fn) (void *);
  void *arg;
  const void *from_bottom;
  size_t from_size;
} stack_call;

/* The first frame on the driver's stack.  Under ASan it completes the
   switch announced before the call and announces the one back (K5); it
   keeps no addressable locals, so none of its own lives on a fake stack
   that the announcement back discards.  */
static void
trampoline (void *arg)
{
  stack_call *c = arg;
#if PT_STACK_ASAN
  __sanitizer_finish_switch_fiber (NULL, &c->from_bottom, &c->from_size);
#endif
  c->fn (c->arg);
#if PT_STACK_ASAN
  /* NULL: this stack's fake frames end here; the next run starts anew.  */
  __sanitizer_start_switch_fiber (NULL, c->from_bottom, c->from_size);
#endif
}
#endif

void
pt_stack_run (pt_stack *s, void (*fn) (void *), void *arg)
{
#if !PT_STACK_SWITCH
  (void)s;
  fn (arg); /* unreachable: pt_stack_make made no stack */
#else
  stack_call c = { fn, arg, NULL, 0 };
  /* The top, aligned to 16 bytes as both ABIs want it at a call.  */
  uintptr_t top = s->hi & ~(uintptr_t)15;
#if PT_STACK_ASAN
  void *fake = NULL;
  __sanitizer_start_switch_fiber (&fake, (const void *)s->lo, s->hi - s->lo);
#endif
  pt_stack_call (top, trampoline, &c);
#if PT_STACK_ASAN
  __sanitizer_finish_switch_fiber (fake, NULL, NULL);
#endif
#endif
}
