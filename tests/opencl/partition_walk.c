/* partition_walk.c - clCreateSubDevices walked as the conformance tests
   walk it: partition a device, use the sub-devices, partition the first
   sub-device again with the same partition type, and so on until the call
   fails with CL_DEVICE_PARTITION_FAILED.  Why: a device that lies within
   one affinity domain used to "split" into one sub-device equal to
   itself, which offered the same domain again, so that walk never ended
   (issue 36: 1,644 levels in 146 s before it was killed).

   Usage: partition_walk ours|stock
   For each partition type (equally by half the compute units, by counts
   of two halves, by each affinity domain, NEXT_PARTITIONABLE), starting
   at the root device, at every level:
     - the queries agree with each other: CL_DEVICE_PARTITION_AFFINITY_DOMAIN
       is 0 exactly when CL_DEVICE_PARTITION_PROPERTIES lacks
       BY_AFFINITY_DOMAIN, and holds NEXT_PARTITIONABLE exactly when it
       holds some domain;
     - a partition type the queries offer (the type in
       CL_DEVICE_PARTITION_PROPERTIES and, by affinity domain, the domain
       in CL_DEVICE_PARTITION_AFFINITY_DOMAIN) makes two sub-devices or
       more, whose compute units add up (at most the parent's, equally),
       whose CL_DEVICE_PARTITION_TYPE names what made them (the domain
       used, for NEXT_PARTITIONABLE) and whose parent is the device; all
       of them and the device run exactly-once kernels at the same time;
       then the walk goes on into the first one;
     - one the queries do not offer fails: with CL_INVALID_VALUE only at
       the root, for a type or domain the device does not support at all
       (stock: every affinity domain; ours: a cache level the machine does
       not show), and with CL_DEVICE_PARTITION_FAILED everywhere else (ours:
       a domain the device lies within one of, NUMA included, and any type
       on a sub-device of one compute unit); the walk ends there;
     - a walk that is still going at MAX_DEPTH levels fails the test
       rather than run on.
   Prints each level's answers, so the log shows what every query returned.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "count_kernel.h"

/* Far more levels than a device of 1024 compute units can be halved.  */
#define MAX_DEPTH 24
#define MAX_SUBS 64

static const struct
{
  cl_device_affinity_domain d;
  const char *name;
} domains[] = { { CL_DEVICE_AFFINITY_DOMAIN_NUMA, "numa" },
                { CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, "l4" },
                { CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, "l3" },
                { CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, "l2" },
                { CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, "l1" },
                { CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, "next" } };
#define NUM_DOMAINS (sizeof (domains) / sizeof (domains[0]))

/* What the device's queries say.  */
typedef struct
{
  cl_uint cus;
  int equally, counts, affinity;  /* in CL_DEVICE_PARTITION_PROPERTIES */
  cl_device_affinity_domain have; /* CL_DEVICE_PARTITION_AFFINITY_DOMAIN */
} answers;

static answers
ask (cl_device_id dev, const char *walk, int depth)
{
  answers a = { cltest_compute_units (dev), 0, 0, 0, 0 };
  cl_device_partition_property p[16];
  size_t size = 0;
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_PARTITION_PROPERTIES, sizeof (p), p,
                          &size));
  printf ("%s level %d: %u compute units, partition_properties=", walk, depth,
          a.cus);
  for (size_t i = 0; i < size / sizeof (p[0]); ++i)
    {
      printf ("%s0x%lx", i ? "," : "", (unsigned long)p[i]);
      a.equally |= p[i] == CL_DEVICE_PARTITION_EQUALLY;
      a.counts |= p[i] == CL_DEVICE_PARTITION_BY_COUNTS;
      a.affinity |= p[i] == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN;
    }
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_PARTITION_AFFINITY_DOMAIN,
                          sizeof (a.have), &a.have, NULL));
  printf (" affinity_domain=0x%lx\n", (unsigned long)a.have);
  CHECK ((a.have != 0) == a.affinity,
         "%s level %d: affinity domains 0x%lx, yet BY_AFFINITY_DOMAIN %s "
         "offered",
         walk, depth, (unsigned long)a.have, a.affinity ? "is" : "is not");
  int next = (a.have & CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE) != 0;
  CHECK (
      next == ((a.have & ~CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE) != 0),
      "%s level %d: NEXT_PARTITIONABLE %s without another domain (0x%lx)",
      walk, depth, next ? "offered" : "not offered", (unsigned long)a.have);
  return a;
}

/* Exactly-once launches on dev and its sub-devices, all at once.  */
static void
run_all (cl_device_id dev, const cl_device_id *subs, cl_uint n,
         const char *walk, int depth)
{
  cl_int err;
  cl_device_id devs[MAX_SUBS + 1];
  devs[0] = dev;
  memcpy (devs + 1, subs, n * sizeof (cl_device_id));
  cl_context ctx = clCreateContext (NULL, n + 1, devs, NULL, NULL, &err);
  CL_OK (err);
  cl_program prog
      = cltest_build_for (ctx, n + 1, devs, count_source, COUNT_OPTIONS);
  cl_command_queue q[MAX_SUBS + 1];
  count_job jobs[MAX_SUBS + 1];
  for (cl_uint d = 0; d <= n; ++d)
    {
      q[d] = clCreateCommandQueueWithProperties (ctx, devs[d], NULL, &err);
      CL_OK (err);
      count_job_init (&jobs[d], ctx, prog, 2048 + 16 * d);
      count_job_enqueue (&jobs[d], q[d], 16);
      CL_OK (clFlush (q[d]));
    }
  for (cl_uint d = 0; d <= n; ++d)
    {
      CL_OK (clFinish (q[d]));
      CHECK (count_job_wrong (&jobs[d]) == 0,
             "%s level %d: device %u: %zu work-items not run exactly once",
             walk, depth, d, count_job_wrong (&jobs[d]));
      count_job_release (&jobs[d]);
      CL_OK (clReleaseCommandQueue (q[d]));
    }
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseContext (ctx));
}

/* The properties of this walk's partition for a device of `cus` compute
   units: type 0 equally, 1 by counts, 2 + i by domains[i].  */
static void
properties (int type, cl_uint cus, cl_device_partition_property props[4])
{
  cl_uint half = cus / 2 > 0 ? cus / 2 : 1;
  memset (props, 0, 4 * sizeof (props[0]));
  if (type == 0)
    {
      props[0] = CL_DEVICE_PARTITION_EQUALLY;
      props[1] = half;
    }
  else if (type == 1)
    {
      props[0] = CL_DEVICE_PARTITION_BY_COUNTS;
      props[1] = cus - half > 0 ? cus - half : 1;
      props[2] = cus > 1 ? half : 0;
      props[3] = CL_DEVICE_PARTITION_BY_COUNTS_LIST_END;
    }
  else
    {
      props[0] = CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN;
      props[1] = domains[type - 2].d;
    }
}

/* Whether the queries a offer this walk's partition type.  */
static int
offered (int type, const answers *a)
{
  if (type == 0)
    return a->equally;
  if (type == 1)
    return a->counts;
  return a->affinity && (a->have & domains[type - 2].d);
}

/* Whether sub-device s reports the partition props made it: the same
   properties, but for NEXT_PARTITIONABLE, reported as the one domain it
   used, one of those its parent offered (have).  */
static int
partition_type_ok (cl_device_id s, const cl_device_partition_property *props,
                   cl_device_affinity_domain have)
{
  cl_device_partition_property t[8] = { 0 };
  size_t size = 0;
  CL_OK (clGetDeviceInfo (s, CL_DEVICE_PARTITION_TYPE, sizeof (t), t, &size));
  if (size < 2 * sizeof (t[0]) || t[0] != props[0])
    return 0;
  if (props[0] != CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN)
    return 1;
  if (props[1] != CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE)
    return t[1] == props[1];
  cl_device_affinity_domain used = (cl_device_affinity_domain)t[1];
  return used != 0 && (used & (used - 1)) == 0
         && (used & have & ~CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE);
}

/* Walks partition type `type` from dev; returns the depth at which it
   ended (MAX_DEPTH: it did not).  ours: whether this is our driver.  */
static int
walk (cl_device_id dev, int type, const char *name, int ours)
{
  cl_device_id held[MAX_DEPTH][MAX_SUBS];
  cl_uint held_n[MAX_DEPTH];
  int depth = 0;
  for (; depth < MAX_DEPTH; ++depth)
    {
      answers a = ask (dev, name, depth);
      cl_device_partition_property props[4];
      properties (type, a.cus, props);
      cl_uint n = 0;
      cl_int err = clCreateSubDevices (dev, props, 0, NULL, &n);
      if (!offered (type, &a))
        {
          /* The walk ends here.  A type the root does not support at all
             may be CL_INVALID_VALUE; anything else is a device that
             cannot be split further.  Ours always knows NUMA and its
             NEXT_PARTITIONABLE.  */
          int unsupported_ok
              = depth == 0
                && (!ours
                    || (type >= 2
                        && domains[type - 2].d
                               != CL_DEVICE_AFFINITY_DOMAIN_NUMA
                        && domains[type - 2].d
                               != CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE));
          CHECK (err == CL_DEVICE_PARTITION_FAILED
                     || (unsupported_ok && err == CL_INVALID_VALUE),
                 "%s level %d: not offered, yet clCreateSubDevices "
                 "answered %d (%u sub-devices), want %d%s",
                 name, depth, err, n, CL_DEVICE_PARTITION_FAILED,
                 unsupported_ok ? " or CL_INVALID_VALUE" : "");
          printf ("%s level %d: ends: %d\n", name, depth, err);
          break;
        }
      CHECK (err == CL_SUCCESS && n >= 2 && n <= MAX_SUBS,
             "%s level %d: offered, yet clCreateSubDevices answered %d with "
             "%u sub-devices, want 2 or more",
             name, depth, err, n);
      if (err != CL_SUCCESS || n < 1 || n > MAX_SUBS)
        break;
      CL_OK (clCreateSubDevices (dev, props, n, held[depth], NULL));
      held_n[depth] = n;
      cl_uint total = 0;
      printf ("%s level %d: %u sub-devices of", name, depth, n);
      for (cl_uint k = 0; k < n; ++k)
        {
          cl_device_id s = held[depth][k], parent = NULL;
          cl_uint c = cltest_compute_units (s);
          total += c;
          printf (" %u", c);
          CL_OK (clGetDeviceInfo (s, CL_DEVICE_PARENT_DEVICE, sizeof (parent),
                                  &parent, NULL));
          CHECK (parent == dev, "%s level %d: sub-device %u's parent", name,
                 depth, k);
          CHECK (partition_type_ok (s, props, a.have),
                 "%s level %d: sub-device %u's CL_DEVICE_PARTITION_TYPE does "
                 "not name its partition",
                 name, depth, k);
        }
      printf ("\n");
      if (type == 0)
        CHECK (total <= a.cus && total > a.cus / 2,
               "%s level %d: %u compute units of %u", name, depth, total,
               a.cus);
      else
        CHECK (total == a.cus, "%s level %d: %u compute units of %u", name,
               depth, total, a.cus);
      run_all (dev, held[depth], n, name, depth);
      dev = held[depth][0];
    }
  CHECK (depth < MAX_DEPTH,
         "%s: still partitioning after %d levels: the walk does not end", name,
         MAX_DEPTH);
  /* Levels [0, depth) hold sub-devices.  */
  for (int d = depth - 1; d >= 0; --d)
    for (cl_uint k = 0; k < held_n[d]; ++k)
      CL_OK (clReleaseDevice (held[d][k]));
  return depth;
}

int
main (int argc, char **argv)
{
  if (argc != 2 || (strcmp (argv[1], "ours") && strcmp (argv[1], "stock")))
    {
      fprintf (stderr, "usage: %s ours|stock\n", argv[0]);
      return 2;
    }
  int ours = strcmp (argv[1], "ours") == 0;
  cl_device_id dev = cltest_cpu_device (NULL);
  static const char *const plain[] = { "equally", "counts" };
  for (int type = 0; type < 2 + (int)NUM_DOMAINS; ++type)
    {
      const char *name = type < 2 ? plain[type] : domains[type - 2].name;
      int depth = walk (dev, type, name, ours);
      printf ("walk %s: %d level(s)\n", name, depth);
    }
  return cltest_finish ("partition_walk");
}
