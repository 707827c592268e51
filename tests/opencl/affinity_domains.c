/* affinity_domains.c - CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN on this
   machine.

   Usage: affinity_domains ours|stock
     ours:  the device offers the partition type and the domains that
            split it into two sub-devices or more: of those this machine
            has (NUMA, and each cache level that sysfs shows on every
            allowed CPU, read here independently of the driver), the ones
            with two instances or more among the allowed CPUs (with as
            many threads as CPUs, every CPU has one; with more, only NUMA
            must be offered where it splits: a node's extra threads go
            round its CPUs, so a cache's threads are not consecutive).  Each
            offered domain splits the device into sub-devices whose
            compute units add up and that report the domain as their
            partition type; a domain the machine has but that does not
            split the device (NUMA on one node) is
            CL_DEVICE_PARTITION_FAILED, one it does not have
            CL_INVALID_VALUE; NEXT_PARTITIONABLE splits by the first
            offered domain, or fails with CL_DEVICE_PARTITION_FAILED; the
            sub-devices run kernels exactly once, at the same time as the
            parent.  Going on splitting sub-devices is partition_walk.c's.
     stock: PoCL's own driver describes no domains: the query answers 0
            and the partition type is CL_INVALID_VALUE, as before the
            core patch.
   Both: malformed properties and unknown domains are CL_INVALID_VALUE.
   Prints what every query returned.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <sched.h>
#include <unistd.h>

#include "count_kernel.h"

/* The first CPU of the level-`level` data or unified cache of cpu, from
   its shared_cpu_list in sysfs; -1 if sysfs shows none.  */
static int
sysfs_cache_of (int cpu, int level)
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

/* The NUMA node of cpu, from sysfs (its nodeN link); 0 where none.  */
static int
sysfs_node_of (int cpu)
{
  for (int node = 0; node < 1024; ++node)
    {
      char path[160];
      snprintf (path, sizeof (path), "/sys/devices/system/cpu/cpu%d/node%d",
                cpu, node);
      if (access (path, F_OK) == 0)
        return node;
    }
  return 0;
}

/* For NUMA (level 0) and each cache level 1 to 4: whether every allowed
   CPU has one (known[level]) and how many different ones the allowed CPUs
   have (count[level]).  */
static void
sysfs_domains (int known[5], int count[5], int *cpus)
{
  cpu_set_t set;
  sched_getaffinity (0, sizeof (set), &set);
  *cpus = CPU_COUNT (&set);
  for (int level = 0; level <= 4; ++level)
    {
      static char seen[CPU_SETSIZE + 1024];
      memset (seen, 0, sizeof (seen));
      known[level] = 1;
      count[level] = 0;
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        {
          if (!CPU_ISSET (cpu, &set))
            continue;
          int id
              = level == 0 ? sysfs_node_of (cpu) : sysfs_cache_of (cpu, level);
          if (id < 0 || id >= (int)sizeof (seen))
            {
              known[level] = 0;
              continue;
            }
          count[level] += !seen[id];
          seen[id] = 1;
        }
    }
}

static cl_device_affinity_domain
domains_of (cl_device_id dev)
{
  cl_device_affinity_domain d = 0;
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_PARTITION_AFFINITY_DOMAIN, sizeof (d),
                          &d, NULL));
  return d;
}

static int
offers_affinity_partition (cl_device_id dev)
{
  cl_device_partition_property p[8];
  size_t size = 0;
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_PARTITION_PROPERTIES, sizeof (p), p,
                          &size));
  printf ("  CL_DEVICE_PARTITION_PROPERTIES:");
  int found = 0;
  for (size_t i = 0; i < size / sizeof (p[0]); ++i)
    {
      printf (" 0x%lx", (unsigned long)p[i]);
      found |= p[i] == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN;
    }
  printf ("\n");
  return found;
}

/* clCreateSubDevices by affinity domain d: the error, and the devices in
   subs (room for 64) and their number in *n on success.  */
static cl_int
split (cl_device_id dev, cl_device_affinity_domain d, cl_device_id *subs,
       cl_uint *n)
{
  cl_device_partition_property props[]
      = { CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, d, 0 };
  *n = 0;
  cl_int err = clCreateSubDevices (dev, props, 0, NULL, n);
  if (err != CL_SUCCESS)
    return err;
  CHECK (*n >= 1 && *n <= 64, "domain 0x%lx: %u sub-devices", (unsigned long)d,
         *n);
  if (*n < 1 || *n > 64)
    return CL_INVALID_VALUE;
  return clCreateSubDevices (dev, props, *n, subs, NULL);
}

static void
check_malformed (cl_device_id dev)
{
  cl_uint n;
  static const cl_device_affinity_domain bad[]
      = { 0, 1u << 6,
          CL_DEVICE_AFFINITY_DOMAIN_NUMA
              | CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE };
  for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); ++i)
    {
      cl_device_partition_property props[]
          = { CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, bad[i], 0 };
      cl_int err = clCreateSubDevices (dev, props, 0, NULL, &n);
      CHECK (err == CL_INVALID_VALUE, "domain 0x%lx: error %d, want %d",
             (unsigned long)bad[i], err, CL_INVALID_VALUE);
    }
  cl_device_partition_property unterminated[]
      = { CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
          CL_DEVICE_AFFINITY_DOMAIN_NUMA, 1, 0 };
  cl_int err = clCreateSubDevices (dev, unterminated, 0, NULL, &n);
  CHECK (err == CL_INVALID_VALUE, "unterminated properties: error %d, want %d",
         err, CL_INVALID_VALUE);
}

/* A sub-device's partition type must be {BY_AFFINITY_DOMAIN, d, 0}.  */
static void
check_partition_type (cl_device_id sub, cl_device_affinity_domain d,
                      const char *what)
{
  cl_device_partition_property t[4] = { 0 };
  size_t size = 0;
  CL_OK (
      clGetDeviceInfo (sub, CL_DEVICE_PARTITION_TYPE, sizeof (t), t, &size));
  CHECK (size == 3 * sizeof (t[0])
             && t[0] == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN
             && (cl_device_affinity_domain)t[1] == d && t[2] == 0,
         "%s: partition type {0x%lx, 0x%lx, 0x%lx} (%zu bytes), want "
         "{0x%x, 0x%lx, 0}",
         what, (unsigned long)t[0], (unsigned long)t[1], (unsigned long)t[2],
         size, CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, (unsigned long)d);
}

/* Exactly-once launches on the parent and every sub-device at once.  */
static void
run_all (cl_device_id parent, cl_device_id *subs, cl_uint n)
{
  cl_int err;
  cl_device_id devs[65];
  devs[0] = parent;
  memcpy (devs + 1, subs, n * sizeof (cl_device_id));
  cl_context ctx = clCreateContext (NULL, n + 1, devs, NULL, NULL, &err);
  CL_OK (err);
  cl_program prog
      = cltest_build_for (ctx, n + 1, devs, count_source, COUNT_OPTIONS);
  cl_command_queue q[65];
  count_job jobs[65];
  for (cl_uint d = 0; d <= n; ++d)
    {
      q[d] = clCreateCommandQueueWithProperties (ctx, devs[d], NULL, &err);
      CL_OK (err);
      count_job_init (&jobs[d], ctx, prog, 4096 + 16 * d);
      count_job_enqueue (&jobs[d], q[d], 16);
      CL_OK (clFlush (q[d]));
    }
  for (cl_uint d = 0; d <= n; ++d)
    {
      CL_OK (clFinish (q[d]));
      CHECK (count_job_wrong (&jobs[d]) == 0, "device %u: %zu wrong", d,
             count_job_wrong (&jobs[d]));
      count_job_release (&jobs[d]);
      CL_OK (clReleaseCommandQueue (q[d]));
    }
  CL_OK (clReleaseProgram (prog));
  CL_OK (clReleaseContext (ctx));
}

static const struct
{
  cl_device_affinity_domain d;
  const char *name;
} names[] = { { CL_DEVICE_AFFINITY_DOMAIN_NUMA, "NUMA" },
              { CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, "L4" },
              { CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, "L3" },
              { CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, "L2" },
              { CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, "L1" } };

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
  cl_uint cus = cltest_compute_units (dev);
  cl_device_affinity_domain have = domains_of (dev);
  printf ("device: %u compute units\n", cus);
  int offered = offers_affinity_partition (dev);
  printf ("  CL_DEVICE_PARTITION_AFFINITY_DOMAIN: 0x%lx\n",
          (unsigned long)have);
  check_malformed (dev);

  if (!ours)
    {
      cl_uint n;
      cl_device_id subs[64];
      CHECK (have == 0 && !offered,
             "stock: domains 0x%lx, partition type offered %d; want none",
             (unsigned long)have, offered);
      cl_int err = split (dev, CL_DEVICE_AFFINITY_DOMAIN_NUMA, subs, &n);
      CHECK (err == CL_INVALID_VALUE, "stock: NUMA split: error %d, want %d",
             err, CL_INVALID_VALUE);
      return cltest_finish ("affinity_domains stock");
    }

  /* The domains this machine has: NUMA, and the cache levels sysfs shows
     on every allowed CPU; those with two instances or more split the
     device when every allowed CPU has a thread.  */
  int known[5], count[5], cpus = 0;
  sysfs_domains (known, count, &cpus);
  static const int level_of[] = { 0, 4, 3, 2, 1 }; /* names[i]'s level */
  cl_device_affinity_domain machine = 0, want = 0;
  for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); ++i)
    if (known[level_of[i]])
      {
        machine |= names[i].d;
        if (count[level_of[i]] >= 2)
          want |= names[i].d;
      }
  if (want)
    want |= CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
  printf ("  this machine: %d allowed CPUs, %d NUMA node(s); domains 0x%lx, "
          "of which split 0x%lx\n",
          cpus, count[0], (unsigned long)machine, (unsigned long)want);
  CHECK (offered == (have != 0),
         "BY_AFFINITY_DOMAIN offered %d, yet domains 0x%lx", offered,
         (unsigned long)have);
  CHECK ((have & ~machine & ~CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE)
             == 0,
         "domains 0x%lx offered, of which the machine has 0x%lx",
         (unsigned long)have, (unsigned long)machine);
  if (cus == (cl_uint)cpus)
    CHECK (have == want,
           "domains 0x%lx, want 0x%lx (the machine's 0x%lx that split it)",
           (unsigned long)have, (unsigned long)want, (unsigned long)machine);
  else if (cus > (cl_uint)cpus)
    /* More threads than CPUs: a node's threads beyond its CPUs go round
       them in turns (driver/pthread_placement.h), so the threads of one
       cache below the node are not consecutive and its domain may not be
       offered (on 2 cores with an L2 each, 4 threads lie on cores 0, 1,
       0, 1); a node's threads stay consecutive, so NUMA is offered where
       it splits.  */
    CHECK ((have & ~want) == 0
               && (have & CL_DEVICE_AFFINITY_DOMAIN_NUMA)
                      == (want & CL_DEVICE_AFFINITY_DOMAIN_NUMA),
           "%u threads on %d CPUs: domains 0x%lx, want NUMA as in 0x%lx and "
           "nothing else (the machine's 0x%lx)",
           cus, cpus, (unsigned long)have, (unsigned long)want,
           (unsigned long)machine);

  /* Each domain kind: offered ones split into sub-devices whose compute
     units add up; one the machine has that does not split the device is
     CL_DEVICE_PARTITION_FAILED (one sub-device equal to the device is no
     partition), others CL_INVALID_VALUE.  */
  int ran = 0;
  for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); ++i)
    {
      cl_device_id subs[64];
      cl_uint n = 0;
      cl_int err = split (dev, names[i].d, subs, &n);
      if (!(have & names[i].d))
        {
          cl_int want_err = (machine & names[i].d) ? CL_DEVICE_PARTITION_FAILED
                                                   : CL_INVALID_VALUE;
          CHECK (err == want_err, "%s: error %d, want %d", names[i].name, err,
                 want_err);
          printf ("  by %s: not offered (%d)\n", names[i].name, err);
          continue;
        }
      CHECK (err == CL_SUCCESS && n >= 2, "%s: error %d, %u sub-devices",
             names[i].name, err, n);
      if (err != CL_SUCCESS)
        continue;
      cl_uint total = 0;
      printf ("  by %s: %u sub-device(s) of", names[i].name, n);
      for (cl_uint k = 0; k < n; ++k)
        {
          cl_uint c = cltest_compute_units (subs[k]);
          printf (" %u", c);
          total += c;
          check_partition_type (subs[k], names[i].d, names[i].name);
          cl_device_id parent = NULL;
          CL_OK (clGetDeviceInfo (subs[k], CL_DEVICE_PARENT_DEVICE,
                                  sizeof (parent), &parent, NULL));
          CHECK (parent == dev, "%s: sub-device %u's parent", names[i].name,
                 k);
        }
      printf (" compute units\n");
      CHECK (total == cus, "%s: %u compute units in all, want %u",
             names[i].name, total, cus);
      if (!ran++)
        run_all (dev, subs, n);
      for (cl_uint k = 0; k < n; ++k)
        CL_OK (clReleaseDevice (subs[k]));
    }

  /* NEXT_PARTITIONABLE: the first advertised domain that splits the
     device in two or more, or CL_DEVICE_PARTITION_FAILED.  */
  cl_device_affinity_domain expect = 0;
  for (size_t i = 0; i < sizeof (names) / sizeof (names[0]) && !expect; ++i)
    {
      cl_device_id subs[64];
      cl_uint n = 0;
      if ((have & names[i].d) && split (dev, names[i].d, subs, &n) == 0)
        {
          if (n >= 2)
            expect = names[i].d;
          for (cl_uint k = 0; k < n; ++k)
            CL_OK (clReleaseDevice (subs[k]));
        }
    }
  cl_device_id subs[64];
  cl_uint n = 0;
  cl_int err
      = split (dev, CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, subs, &n);
  if (expect == 0)
    {
      CHECK (err == CL_DEVICE_PARTITION_FAILED,
             "next partitionable: error %d, want %d (no domain splits)", err,
             CL_DEVICE_PARTITION_FAILED);
      printf ("  next partitionable: none (%d)\n", err);
    }
  else
    {
      CHECK (err == CL_SUCCESS && n >= 2, "next partitionable: error %d, %u",
             err, n);
      for (cl_uint k = 0; err == CL_SUCCESS && k < n; ++k)
        {
          check_partition_type (subs[k], expect, "next partitionable");
          CL_OK (clReleaseDevice (subs[k]));
        }
      printf ("  next partitionable: 0x%lx, %u sub-devices\n",
              (unsigned long)expect, n);
    }
  return cltest_finish ("affinity_domains");
}
