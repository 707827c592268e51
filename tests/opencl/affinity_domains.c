/* affinity_domains.c - CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN on this
   machine.

   Usage: affinity_domains ours|stock
     ours:  the device offers the partition type and the domains this
            machine has: NUMA (one node here: one sub-device of all compute
            units) and each cache level that sysfs shows on every allowed
            CPU (read here independently of the driver); NEXT_PARTITIONABLE
            splits by the first of those into two or more, or fails with
            CL_DEVICE_PARTITION_FAILED; the sub-devices report the domain
            used as their partition type, their compute units add up, a
            NUMA sub-device can be split again, and they run kernels
            exactly once, also at the same time as the parent;
     stock: PoCL's own driver describes no domains: the query answers 0
            and the partition type is CL_INVALID_VALUE, as before the
            core patch.
   Both: malformed properties and unknown domains are CL_INVALID_VALUE.
   Prints what every query returned.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#define _GNU_SOURCE

#include <sched.h>

#include "count_kernel.h"

/* The cache levels (bit k - 1 for level k) that every allowed CPU has a
   data or unified cache of, from sysfs.  */
static unsigned
sysfs_cache_levels (void)
{
  cpu_set_t set;
  sched_getaffinity (0, sizeof (set), &set);
  unsigned all = 0xf;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    {
      if (!CPU_ISSET (cpu, &set))
        continue;
      unsigned mine = 0;
      for (int i = 0; i < 16; ++i)
        {
          char path[160], type[32] = "";
          int level = 0;
          snprintf (path, sizeof (path),
                    "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu,
                    i);
          FILE *f = fopen (path, "r");
          if (f == NULL)
            break;
          if (fscanf (f, "%d", &level) != 1)
            level = 0;
          fclose (f);
          snprintf (path, sizeof (path),
                    "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu,
                    i);
          f = fopen (path, "r");
          if (f != NULL)
            {
              if (fscanf (f, "%31s", type) != 1)
                type[0] = 0;
              fclose (f);
            }
          if (level >= 1 && level <= 4 && strcmp (type, "Instruction") != 0)
            mine |= 1u << (level - 1);
        }
      all &= mine;
    }
  return all;
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
     on every allowed CPU.  */
  unsigned levels = sysfs_cache_levels ();
  cl_device_affinity_domain want
      = CL_DEVICE_AFFINITY_DOMAIN_NUMA
        | CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
  if (levels & 1)
    want |= CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE;
  if (levels & 2)
    want |= CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE;
  if (levels & 4)
    want |= CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE;
  if (levels & 8)
    want |= CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE;
  CHECK (offered, "the device does not offer BY_AFFINITY_DOMAIN");
  CHECK (have == want, "domains 0x%lx, want 0x%lx (sysfs cache levels 0x%x)",
         (unsigned long)have, (unsigned long)want, levels);

  /* Each domain kind: advertised ones split into sub-devices whose compute
     units add up; the others are CL_INVALID_VALUE.  */
  for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); ++i)
    {
      cl_device_id subs[64];
      cl_uint n = 0;
      cl_int err = split (dev, names[i].d, subs, &n);
      if (!(have & names[i].d))
        {
          CHECK (err == CL_INVALID_VALUE, "%s: error %d, want %d",
                 names[i].name, err, CL_INVALID_VALUE);
          printf ("  by %s: not offered (%d)\n", names[i].name, err);
          continue;
        }
      CHECK (err == CL_SUCCESS, "%s: error %d", names[i].name, err);
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
      if (names[i].d == CL_DEVICE_AFFINITY_DOMAIN_NUMA)
        {
          /* One node here: one sub-device of everything, which can itself
             be split by NUMA again (sub-sub-devices).  */
          cl_device_id subsub[64];
          cl_uint m = 0;
          CHECK (split (subs[0], CL_DEVICE_AFFINITY_DOMAIN_NUMA, subsub, &m)
                     == CL_SUCCESS,
                 "NUMA of the NUMA sub-device failed");
          printf ("  NUMA sub-device by NUMA: %u sub-device(s)\n", m);
          for (cl_uint k = 0; k < m; ++k)
            CL_OK (clReleaseDevice (subsub[k]));
          run_all (dev, subs, n);
        }
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
