/* numa_probe.c - where pages and work-groups land on a NUMA machine.

   Made for the emulated guest (tests/numa/guest.sh) and any real NUMA
   machine.  Each work-group tells the CPU and node it runs on by itself:
   RDTSCP returns the TSC_AUX register, which Linux sets to
   (node << 12) | cpu on every CPU (the same source as getcpu's vDSO), so
   no thread numbering has to be guessed.  Steps:
     1. first touch: a kernel writes two buffers of MIB MiB each in
        work-group order, one page of each per work-group, into memory the
        program mmap'ed untouched (CL_MEM_USE_HOST_PTR); move_pages (nodes
        = NULL) then tells the node of every page;
     2. reuse: SAXPY over the same buffers with the same work-groups;
     3. with --subdevices N,M,..: sub-devices by those counts, each running
        the first kernel on its own buffers at the same time as the others
        and the parent;
     4. with --by-node: the same with a sub-device per NUMA node
        (CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN), where the device offers
        it;
     5. with --domains: the same for every affinity domain the device
        offers (NUMA unless step 4 ran, then the cache levels), and the chain
   of NEXT_PARTITIONABLE splits from the device down to one compute unit.
   Prints (key=value; tests/numa/check_guest.sh reads them):
     machine cpus= nodes= threads= pinning=named|index
     worker T cpu= node=          (each worker thread's pinned CPU)
     first_touch owner= runner= pages= untouched=
       owner: pages on the node of the thread whose static block holds
              their work-group (the balanced split of wg_dispatch.h over
              the device's threads), that thread's CPU taken from its
              pinning: our workers are named pocl-cpu-<T> and pinned to
              one CPU; PoCL's own are unnamed and documented to pin
              worker T to CPU T ("index");
       runner: pages on the node of the CPU that ran the work-group that
              touched them (checks the method: about 1 for everybody);
     home exact= : work-groups of step 1 that ran on their static owner's
              CPU (1 for ours with POCL_PTHREAD_STEAL=0);
     where invalid= : work-groups whose TSC_AUX is no (node, cpu) of this
              machine (0, or the figures mean nothing);
     reuse local= groups= : work-groups of step 2 run on the node that
              holds their pages;
     subdevice K kind=counts|numa|l4|l3|l2|l1 cus= nodes= cpus= within=
              [first_touch=] :
              where sub-device K's work-groups ran: on how many domains of
              the partition's kind (within=; the node for counts; a cache
              is named by the CPUs sysfs says share it) and, when on one
              node, the fraction of its pages there; "subdevices kind=K
              unsupported=ERROR" where the device refuses the partition;
     domains partition_properties= affinity_domain= : the device's answers;
     next chain=DOMAIN:N,...,end=ERROR : NEXT_PARTITIONABLE splits of the
              device, then of its first sub-device, and so on: the domain
              each used and the sub-devices it made, and the error of the
              split that failed;
     bound T after=STEP allowed=LIST : the CPUs worker T may run on after
              steps 4 and 5 (what the driver bound it to).
   Needs POCL_AFFINITY=1 for the owner and home figures to mean anything.

   Usage: numa_probe [--mib MIB] [--subdevices N,M,...] [--by-node]
                     [--domains]

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../opencl/cltest.h"

/* 64 work-items of 16 floats: one 4 KiB page of each buffer per
   work-group.  */
#define WG_SIZE 64
#define PER_ITEM 16
#define PAGE 4096
#define MAX_CPUS 1024
#define MAX_SUBS 16
#define STR_(x) #x
#define STR(x) STR_ (x)
/* The kernels' build options: PER_ITEM from here.  */
#define OPTIONS "-DPER_ITEM=" STR (PER_ITEM)

static const char *source
    = "uint where_am_i (void)\n"
      "{\n"
      "  uint lo, hi, aux;\n"
      "  __asm__ volatile (\"rdtscp\" : \"=a\"(lo), \"=d\"(hi), "
      "\"=c\"(aux));\n"
      "  return aux;\n"
      "}\n"
      "__kernel void touch (__global float *x, __global float *y,\n"
      "                     __global uint *where)\n"
      "{\n"
      "  size_t base = get_global_id (0) * PER_ITEM;\n"
      "  for (int i = 0; i < PER_ITEM; ++i)\n"
      "    {\n"
      "      x[base + i] = (float)((base + i) % 1000);\n"
      "      y[base + i] = 2.0f;\n"
      "    }\n"
      "  if (get_local_id (0) == 0)\n"
      "    where[get_group_id (0)] = where_am_i ();\n"
      "}\n"
      "__kernel void saxpy (float a, __global const float *x,\n"
      "                     __global float *y, __global uint *where)\n"
      "{\n"
      "  size_t base = get_global_id (0) * PER_ITEM;\n"
      "  for (int i = 0; i < PER_ITEM; ++i)\n"
      "    y[base + i] = a * x[base + i] + y[base + i];\n"
      "  if (get_local_id (0) == 0)\n"
      "    where[get_group_id (0)] = where_am_i ();\n"
      "}\n";

static int node_of_cpu[MAX_CPUS];

/* node_of_cpu[] from /sys/devices/system/node/node<N>/cpulist; returns
   the number of nodes seen.  */
static int
read_nodes (void)
{
  int nodes = 0;
  for (int c = 0; c < MAX_CPUS; ++c)
    node_of_cpu[c] = -1;
  for (int n = 0; n < 256; ++n)
    {
      char path[128];
      snprintf (path, sizeof (path), "/sys/devices/system/node/node%d/cpulist",
                n);
      FILE *f = fopen (path, "r");
      if (f == NULL)
        continue;
      ++nodes;
      int lo, hi;
      char sep;
      while (fscanf (f, "%d", &lo) == 1)
        {
          hi = lo;
          if (fscanf (f, "%c", &sep) == 1 && sep == '-')
            {
              if (fscanf (f, "%d", &hi) != 1)
                break;
              if (fscanf (f, "%c", &sep) != 1)
                sep = '\n';
            }
          for (int c = lo; c <= hi && c < MAX_CPUS; ++c)
            node_of_cpu[c] = n;
          if (sep != ',')
            break;
        }
      fclose (f);
    }
  return nodes;
}

static int
node_of (int cpu)
{
  return cpu >= 0 && cpu < MAX_CPUS ? node_of_cpu[cpu] : -1;
}

/* The partition kinds of run_subdevices: "counts" judges by node.  */
static const struct
{
  const char *kind;
  cl_device_affinity_domain d;
  int level; /* cache level, 0 for NUMA */
} kinds[] = { { "numa", CL_DEVICE_AFFINITY_DOMAIN_NUMA, 0 },
              { "l4", CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, 4 },
              { "l3", CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, 3 },
              { "l2", CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, 2 },
              { "l1", CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, 1 } };
#define NUM_KINDS (sizeof (kinds) / sizeof (kinds[0]))

/* The level-`level` data or unified cache of cpu, named by the first CPU
   of its shared_cpu_list in sysfs; -1 if sysfs shows none.  */
static int
cache_of (int cpu, int level)
{
  for (int i = 0; i < 16; ++i)
    {
      char path[160], type[32] = "";
      int lvl = 0, first = -1;
      snprintf (path, sizeof (path),
                "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
      FILE *f = fopen (path, "r");
      if (f == NULL)
        return -1;
      if (fscanf (f, "%d", &lvl) != 1)
        lvl = 0;
      fclose (f);
      snprintf (path, sizeof (path),
                "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
      if ((f = fopen (path, "r")) != NULL)
        {
          if (fscanf (f, "%31s", type) != 1)
            type[0] = 0;
          fclose (f);
        }
      if (lvl != level || strcmp (type, "Instruction") == 0)
        continue;
      snprintf (path, sizeof (path),
                "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
                cpu, i);
      if ((f = fopen (path, "r")) != NULL)
        {
          if (fscanf (f, "%d", &first) != 1)
            first = -1;
          fclose (f);
        }
      return first;
    }
  return -1;
}

/* The domain of cpu for a partition kind: its node for "counts" and
   "numa", its cache for the others.  */
static int
domain_of (int cpu, const char *kind)
{
  for (size_t i = 0; i < NUM_KINDS; ++i)
    if (kinds[i].level > 0 && strcmp (kind, kinds[i].kind) == 0)
      return cache_of (cpu, kinds[i].level);
  return node_of (cpu);
}

/* The CPU of our worker T (thread "pocl-cpu-T" allowed exactly one CPU),
   into cpu_of[T]; returns how many were found.  */
static unsigned
read_workers (int *cpu_of, unsigned max)
{
  unsigned found = 0;
  DIR *d = opendir ("/proc/self/task");
  struct dirent *ent;
  while (d && (ent = readdir (d)) != NULL)
    {
      char path[512], line[512], comm[64] = "";
      snprintf (path, sizeof (path), "/proc/self/task/%s/comm", ent->d_name);
      FILE *f = fopen (path, "r");
      if (f == NULL)
        continue;
      if (fgets (comm, sizeof (comm), f) == NULL)
        comm[0] = 0;
      fclose (f);
      unsigned t;
      if (sscanf (comm, "pocl-cpu-%u", &t) != 1 || t >= max)
        continue;
      snprintf (path, sizeof (path), "/proc/self/task/%s/status", ent->d_name);
      f = fopen (path, "r");
      while (f && fgets (line, sizeof (line), f))
        {
          int lo, hi;
          char rest;
          if (sscanf (line, "Cpus_allowed_list: %d-%d", &lo, &hi) == 2)
            continue; /* a range: not pinned to one CPU */
          if (sscanf (line, "Cpus_allowed_list: %d%c", &lo, &rest) == 2
              && rest == '\n')
            {
              cpu_of[t] = lo;
              ++found;
            }
        }
      if (f)
        fclose (f);
    }
  if (d)
    closedir (d);
  return found;
}

/* "bound T after=STEP allowed=LIST" for each of our workers: the CPUs
   each may run on now.  */
static void
print_bound (const char *step)
{
  DIR *d = opendir ("/proc/self/task");
  struct dirent *ent;
  static char lines[MAX_CPUS][600];
  unsigned max = 0;
  while (d && (ent = readdir (d)) != NULL)
    {
      char path[512], line[512], comm[64] = "";
      snprintf (path, sizeof (path), "/proc/self/task/%s/comm", ent->d_name);
      FILE *f = fopen (path, "r");
      if (f == NULL)
        continue;
      if (fgets (comm, sizeof (comm), f) == NULL)
        comm[0] = 0;
      fclose (f);
      unsigned t;
      if (sscanf (comm, "pocl-cpu-%u", &t) != 1 || t >= MAX_CPUS)
        continue;
      snprintf (path, sizeof (path), "/proc/self/task/%s/status", ent->d_name);
      f = fopen (path, "r");
      while (f && fgets (line, sizeof (line), f))
        if (strncmp (line, "Cpus_allowed_list:", 18) == 0)
          {
            line[strcspn (line, "\n")] = 0;
            snprintf (lines[t], sizeof (lines[t]),
                      "bound %u after=%s "
                      "allowed=%s",
                      t, step, line + 18 + strspn (line + 18, " \t"));
            max = t + 1 > max ? t + 1 : max;
          }
      if (f)
        fclose (f);
    }
  if (d)
    closedir (d);
  for (unsigned t = 0; t < max; ++t)
    printf ("%s\n", lines[t]);
}

/* The thread whose static block holds group g of n over t threads: the
   first n % t blocks have one more (block_start in wg_dispatch.c).  */
static unsigned
static_owner (size_t g, size_t n, unsigned t)
{
  size_t q = n / t, r = n % t;
  if (g < r * (q + 1))
    return (unsigned)(g / (q + 1));
  return (unsigned)(r + (g - r * (q + 1)) / q);
}

/* Untouched anonymous memory of the given size.  */
static float *
fresh_pages (size_t bytes)
{
  void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    {
      perror ("mmap");
      exit (1);
    }
  madvise (p, bytes, MADV_NOHUGEPAGE);
  return p;
}

/* The node of each of the pages of p (-errno where it has none).  */
static void
page_nodes (void *p, size_t pages, int *status)
{
  void **addr = malloc (pages * sizeof (void *));
  for (size_t i = 0; i < pages; ++i)
    addr[i] = (char *)p + i * PAGE;
  long rc = syscall (SYS_move_pages, 0, (unsigned long)pages, addr, NULL,
                     status, 0);
  if (rc != 0)
    {
      perror ("move_pages");
      exit (1);
    }
  free (addr);
}

/* One set of buffers and a launch of `touch` over them on queue q.  */
typedef struct
{
  size_t groups;
  float *x, *y;
  cl_uint *where;
  cl_mem bx, by, bw;
} probe_bufs;

static void
bufs_init (probe_bufs *b, cl_context ctx, size_t groups)
{
  cl_int err;
  size_t bytes = groups * PAGE;
  b->groups = groups;
  b->x = fresh_pages (bytes);
  b->y = fresh_pages (bytes);
  b->where = calloc (groups, sizeof (cl_uint));
  b->bx = clCreateBuffer (ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes,
                          b->x, &err);
  CL_OK (err);
  b->by = clCreateBuffer (ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes,
                          b->y, &err);
  CL_OK (err);
  b->bw = clCreateBuffer (ctx, CL_MEM_WRITE_ONLY, groups * sizeof (cl_uint),
                          NULL, &err);
  CL_OK (err);
}

static void
bufs_touch (probe_bufs *b, cl_command_queue q, cl_kernel k)
{
  size_t global = b->groups * WG_SIZE, local = WG_SIZE;
  CL_OK (clSetKernelArg (k, 0, sizeof (cl_mem), &b->bx));
  CL_OK (clSetKernelArg (k, 1, sizeof (cl_mem), &b->by));
  CL_OK (clSetKernelArg (k, 2, sizeof (cl_mem), &b->bw));
  CL_OK (
      clEnqueueNDRangeKernel (q, k, 1, NULL, &global, &local, 0, NULL, NULL));
}

/* Reads back where each work-group ran.  */
static void
bufs_where (probe_bufs *b, cl_command_queue q)
{
  CL_OK (clEnqueueReadBuffer (q, b->bw, CL_TRUE, 0,
                              b->groups * sizeof (cl_uint), b->where, 0, NULL,
                              NULL));
}

static void
print_set (const char *key, const int *seen, int n)
{
  printf (" %s=", key);
  int first = 1;
  for (int i = 0; i < n; ++i)
    if (seen[i])
      {
        printf ("%s%d", first ? "" : ",", i);
        first = 0;
      }
  if (first)
    printf ("none");
}

/* Sub-devices of e->dev made by props, each running `touch` on buffers of
   its own while the parent does too: prints per sub-device where its
   work-groups ran and, when on one node, the fraction of its pages on
   that node ("subdevice K kind=KIND cus=N nodes= cpus= first_touch=").
   A partition the device refuses prints "subdevices kind=KIND
   unsupported=<error>".  */
static void
run_subdevices (cltest_env *e, const cl_device_partition_property *props,
                const char *kind, size_t groups, cl_kernel touch,
                probe_bufs *parent)
{
  cl_device_id subs[MAX_SUBS];
  cl_uint got = 0;
  cl_int err = clCreateSubDevices (e->dev, props, MAX_SUBS, subs, &got);
  if (err != CL_SUCCESS)
    {
      printf ("subdevices kind=%s unsupported=%d\n", kind, err);
      return;
    }
  cl_context sctx = clCreateContext (NULL, got, subs, NULL, NULL, &err);
  CL_OK (err);
  cl_program sprog = cltest_build_for (sctx, got, subs, source, OPTIONS);
  cl_kernel stouch = clCreateKernel (sprog, "touch", &err);
  CL_OK (err);
  cl_command_queue sq[MAX_SUBS];
  probe_bufs sb[MAX_SUBS];
  for (cl_uint k = 0; k < got; ++k)
    {
      sq[k] = clCreateCommandQueueWithProperties (sctx, subs[k], NULL, &err);
      CL_OK (err);
      bufs_init (&sb[k], sctx, groups / got);
      bufs_touch (&sb[k], sq[k], stouch);
      CL_OK (clFlush (sq[k]));
    }
  /* The parent busy at the same time, over its own buffers again.  */
  bufs_touch (parent, e->q, touch);
  CL_OK (clFlush (e->q));
  for (cl_uint k = 0; k < got; ++k)
    {
      bufs_where (&sb[k], sq[k]);
      int cpus_seen[MAX_CPUS] = { 0 }, nodes_seen[256] = { 0 }, node = -1;
      int domains_seen[MAX_CPUS] = { 0 };
      unsigned nodes = 0, within = 0;
      for (size_t g = 0; g < sb[k].groups; ++g)
        {
          int c = (int)(sb[k].where[g] & 0xfff);
          if (c < MAX_CPUS)
            cpus_seen[c] = 1;
          int dom = c < MAX_CPUS ? domain_of (c, kind) : -1;
          if (dom >= 0 && dom < MAX_CPUS)
            {
              within += !domains_seen[dom];
              domains_seen[dom] = 1;
            }
          if (node_of (c) >= 0 && node_of (c) < 256)
            {
              nodes += !nodes_seen[node_of (c)];
              nodes_seen[node_of (c)] = 1;
              node = node_of (c);
            }
        }
      printf ("subdevice %u kind=%s cus=%u", k, kind,
              cltest_compute_units (subs[k]));
      print_set ("nodes", nodes_seen, 256);
      print_set ("cpus", cpus_seen, MAX_CPUS);
      printf (" within=%u", within);
      if (nodes == 1)
        {
          int *st = malloc (sb[k].groups * sizeof (int));
          size_t on = 0;
          page_nodes (sb[k].x, sb[k].groups, st);
          for (size_t g = 0; g < sb[k].groups; ++g)
            on += st[g] == node;
          page_nodes (sb[k].y, sb[k].groups, st);
          for (size_t g = 0; g < sb[k].groups; ++g)
            on += st[g] == node;
          printf (" first_touch=%.4f", (double)on / (2 * sb[k].groups));
          free (st);
        }
      printf ("\n");
      CL_OK (clReleaseCommandQueue (sq[k]));
      CL_OK (clReleaseDevice (subs[k]));
    }
  CL_OK (clFinish (e->q));
  CL_OK (clReleaseKernel (stouch));
  CL_OK (clReleaseProgram (sprog));
  CL_OK (clReleaseContext (sctx));
}

/* "next chain=...": NEXT_PARTITIONABLE from dev down, each time on the
   first sub-device, until a split fails.  */
static void
next_chain (cl_device_id dev)
{
  cl_device_partition_property props[]
      = { CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
          CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0 };
  cl_device_id made[MAX_CPUS];
  unsigned depth = 0;
  printf ("next chain=");
  for (;;)
    {
      cl_device_id subs[MAX_SUBS];
      cl_uint n = 0;
      cl_int err = clCreateSubDevices (dev, props, MAX_SUBS, subs, &n);
      if (err != CL_SUCCESS)
        {
          printf ("end=%d\n", err);
          break;
        }
      cl_device_partition_property t[3] = { 0 };
      CL_OK (clGetDeviceInfo (subs[0], CL_DEVICE_PARTITION_TYPE, sizeof (t), t,
                              NULL));
      printf ("0x%lx:%u,", (unsigned long)t[1], n);
      for (cl_uint k = 1; k < n; ++k)
        CL_OK (clReleaseDevice (subs[k]));
      made[depth++] = dev = subs[0];
    }
  while (depth > 0)
    CL_OK (clReleaseDevice (made[--depth]));
}

int
main (int argc, char **argv)
{
  size_t mib = 16;
  const char *subs_arg = NULL;
  int by_node = 0, domains = 0;
  for (int i = 1; i < argc; ++i)
    {
      if (!strcmp (argv[i], "--mib") && i + 1 < argc)
        mib = strtoul (argv[++i], NULL, 10);
      else if (!strcmp (argv[i], "--subdevices") && i + 1 < argc)
        subs_arg = argv[++i];
      else if (!strcmp (argv[i], "--by-node"))
        by_node = 1;
      else if (!strcmp (argv[i], "--domains"))
        domains = 1;
      else
        {
          fprintf (stderr,
                   "usage: %s [--mib MIB] [--subdevices N,M,...] [--by-node] "
                   "[--domains]\n",
                   argv[0]);
          return 2;
        }
    }
  int nodes = read_nodes ();
  long ncpus = sysconf (_SC_NPROCESSORS_ONLN);

  cltest_env e;
  cltest_open (&e, source, OPTIONS);
  cl_uint cus = cltest_compute_units (e.dev);
  cl_kernel touch = cltest_kernel (&e, "touch");
  cl_kernel saxpy = cltest_kernel (&e, "saxpy");

  /* Step 1: first touch.  */
  size_t groups = mib * 1024 * 1024 / PAGE;
  probe_bufs b;
  bufs_init (&b, e.ctx, groups);
  bufs_touch (&b, e.q, touch);
  bufs_where (&b, e.q);
  cl_uint *first_where = malloc (groups * sizeof (cl_uint));
  memcpy (first_where, b.where, groups * sizeof (cl_uint));

  /* The workers exist now: their pinning.  */
  int *cpu_of = malloc (cus * sizeof (int));
  unsigned named = read_workers (cpu_of, cus);
  const char *pinning = "named";
  if (named != cus)
    {
      pinning = "index";
      for (unsigned t = 0; t < cus; ++t)
        cpu_of[t] = (int)(t % (unsigned)ncpus);
    }
  printf ("machine cpus=%ld nodes=%d threads=%u pinning=%s\n", ncpus, nodes,
          cus, pinning);
  for (unsigned t = 0; t < cus; ++t)
    printf ("worker %u cpu=%d node=%d\n", t, cpu_of[t], node_of (cpu_of[t]));

  int *xs = malloc (groups * sizeof (int)),
      *ys = malloc (groups * sizeof (int));
  page_nodes (b.x, groups, xs);
  page_nodes (b.y, groups, ys);
  size_t owner_ok = 0, runner_ok = 0, untouched = 0, home = 0, invalid = 0;
  for (size_t g = 0; g < groups; ++g)
    {
      int cpu = (int)(first_where[g] & 0xfff);
      invalid
          += node_of (cpu) < 0 || node_of (cpu) != (int)(first_where[g] >> 12);
      int owner_node = node_of (cpu_of[static_owner (g, groups, cus)]);
      int runner_cpu = (int)(first_where[g] & 0xfff);
      int runner_node = node_of (runner_cpu);
      home += runner_cpu == cpu_of[static_owner (g, groups, cus)];
      for (int k = 0; k < 2; ++k)
        {
          int n = k ? ys[g] : xs[g];
          untouched += n < 0;
          owner_ok += n == owner_node;
          runner_ok += n == runner_node;
        }
    }
  printf ("first_touch owner=%.4f runner=%.4f pages=%zu untouched=%zu\n",
          (double)owner_ok / (2 * groups), (double)runner_ok / (2 * groups),
          2 * groups, untouched);
  printf ("home exact=%.4f\n", (double)home / groups);
  /* TSC_AUX that is not (node << 12) | cpu of this machine: the figures
     above mean nothing (seen on a KVM guest whose host's value shows).  */
  printf ("where invalid=%zu\n", invalid);

  /* Step 2: reuse.  */
  cl_float a = 3.0f;
  size_t global = groups * WG_SIZE, local = WG_SIZE;
  CL_OK (clSetKernelArg (saxpy, 0, sizeof (a), &a));
  CL_OK (clSetKernelArg (saxpy, 1, sizeof (cl_mem), &b.bx));
  CL_OK (clSetKernelArg (saxpy, 2, sizeof (cl_mem), &b.by));
  CL_OK (clSetKernelArg (saxpy, 3, sizeof (cl_mem), &b.bw));
  CL_OK (clEnqueueNDRangeKernel (e.q, saxpy, 1, NULL, &global, &local, 0, NULL,
                                 NULL));
  bufs_where (&b, e.q);
  float *y = clEnqueueMapBuffer (e.q, b.by, CL_TRUE, CL_MAP_READ, 0,
                                 groups * PAGE, 0, NULL, NULL, NULL);
  CHECK (y != NULL, "map of y failed");
  size_t wrong = 0, local_ok = 0;
  for (size_t i = 0; i < groups * PAGE / sizeof (float); ++i)
    wrong += y[i] != 3.0f * (float)(i % 1000) + 2.0f;
  CL_OK (clEnqueueUnmapMemObject (e.q, b.by, y, 0, NULL, NULL));
  CL_OK (clFinish (e.q));
  CHECK (wrong == 0, "saxpy: %zu wrong results", wrong);
  for (size_t g = 0; g < groups; ++g)
    local_ok += node_of ((int)(b.where[g] & 0xfff)) == xs[g];
  printf ("reuse local=%.4f groups=%zu\n", (double)local_ok / groups, groups);

  /* Step 3: sub-devices by counts, all busy at once.  */
  if (subs_arg)
    {
      cl_device_partition_property props[MAX_SUBS + 3];
      int n = 0;
      props[n++] = CL_DEVICE_PARTITION_BY_COUNTS;
      for (const char *s = subs_arg; *s && n < MAX_SUBS + 1;)
        {
          char *end;
          long count = strtol (s, &end, 10);
          if (end == s)
            break;
          props[n++] = count;
          s = *end == ',' ? end + 1 : end;
        }
      props[n++] = CL_DEVICE_PARTITION_BY_COUNTS_LIST_END;
      props[n] = 0;
      run_subdevices (&e, props, "counts", groups, touch, &b);
    }
  /* Step 4: a sub-device per NUMA node, where the device offers it.  */
  if (by_node)
    {
      cl_device_partition_property props[]
          = { CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
              CL_DEVICE_AFFINITY_DOMAIN_NUMA, 0 };
      run_subdevices (&e, props, "numa", groups, touch, &b);
      print_bound ("by-node");
    }
  /* Step 5: every domain offered, and NEXT_PARTITIONABLE's chain.  */
  if (domains)
    {
      cl_device_partition_property pp[8];
      size_t size = 0;
      cl_device_affinity_domain have = 0;
      CL_OK (clGetDeviceInfo (e.dev, CL_DEVICE_PARTITION_PROPERTIES,
                              sizeof (pp), pp, &size));
      CL_OK (clGetDeviceInfo (e.dev, CL_DEVICE_PARTITION_AFFINITY_DOMAIN,
                              sizeof (have), &have, NULL));
      printf ("domains partition_properties=");
      for (size_t i = 0; i < size / sizeof (pp[0]); ++i)
        printf ("%s0x%lx", i ? "," : "", (unsigned long)pp[i]);
      printf (" affinity_domain=0x%lx\n", (unsigned long)have);
      /* NUMA was step 4's, if it ran.  */
      for (size_t i = by_node ? 1 : 0; i < NUM_KINDS; ++i)
        if (have & kinds[i].d)
          {
            cl_device_partition_property props[]
                = { CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, kinds[i].d, 0 };
            run_subdevices (&e, props, kinds[i].kind, groups, touch, &b);
          }
      print_bound ("domains");
      next_chain (e.dev);
    }

  CL_OK (clReleaseKernel (touch));
  CL_OK (clReleaseKernel (saxpy));
  cltest_close (&e);
  fflush (stdout);
  return cltest_finish ("numa_probe");
}
