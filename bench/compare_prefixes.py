#!/usr/bin/env python3
"""Before/after figures for a driver change: make bench's launch cost
(cl_launch) on two or more installed PoCL prefixes, alternated in one run.

Each prefix is a PoCL installation whose etc/OpenCL/vendors names its
libpocl (build/prefix/ours is this checkout's; bench/module_at.sh REV
makes one that runs the driver of git revision REV, the "before" of a
driver change).  For every thread count, size and schedule, the variants take
turns, round after round, so that a drift of the machine hits them alike;
the table gives each one's median over rounds (each round is itself
cl_launch's median over its batches) and its ratio to the first variant,
with the quartiles of the per-round ratios in brackets: a difference of a
few per cent is only worth reading where that range excludes 1.  Every
other round runs the variants in reverse order, so that neither is
always first after the other.

A variant may fix its schedule (NAME=PREFIX:SCHEDULE, e.g. the same
prefix under static and guided in one table; the --schedules loop then
leaves it alone), or be one of libgomp's floors from omp_launch
(NAME=@omp: empty iterations; NAME=@omp-stores: each work-group's 64
stores, pinned, waiting actively; NAME=@omp-stores-alone: the same loop
on one thread over one thread's share, as SCHEDULE alone below), so
that peers take turns with ours.
SCHEDULE tbb-affinity or tbb-auto runs the prefix's TBB device
(POCL_DEVICES=cpu-tbb, a 7.2 build) under that POCL_TBB_PARTITIONER.
SCHEDULE alone is PoCL's own floor (docs/benchmarks.md): one thread's
share of the launch, ceil(G / threads) work-groups (threads no more than
the CPUs this may run on), run whole by the waiting thread through this
pthread driver (one compute unit, POCL_PTHREAD_HOST_GROUPS and
_HOST_SHARE_US at their maximum, so nothing is handed to a worker): what
a launch would cost if the work were divided with no scheduling,
hand-off or wait at all, PoCL's own path per launch paid once; set it
beside @omp-stores-alone.
A prefix's variant may also set environment variables for its runs
(NAME=PREFIX[:SCHEDULE],VAR=VALUE[,VAR=VALUE...], e.g. a setting of the
driver against its default with the same prefix).

Usage (inside ci/enter.sh, after make):
  bench/compare_prefixes.py --build build NAME=PREFIX[:SCHEDULE][,VAR=VALUE...]|@omp|@omp-stores[-alone]...
      [--threads 2,4] [--sizes 1,64,256,1024,16384] [--schedules static,guided]
      [--rounds 5] [--launches 100] [--batches 15]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys


def share_of(groups, threads):
    """One thread's share of groups: more threads than CPUs run no faster
    than one per CPU."""
    return -(-groups // min(threads, len(os.sched_getaffinity(0))))


def launch_us(build, prefix, threads, groups, schedule, launches, batches, kcache, extra):
    env = dict(os.environ)
    env["OCL_ICD_VENDORS"] = os.path.join(prefix, "etc", "OpenCL", "vendors")
    env["POCL_CACHE_DIR"] = kcache
    env["POCL_CPU_MAX_CU_COUNT"] = str(threads)
    if schedule == "alone":
        # One thread's share, run by the waiting thread alone.
        groups = share_of(groups, threads)
        env["POCL_CPU_MAX_CU_COUNT"] = "1"
        env["POCL_PTHREAD_SCHEDULE"] = "static"
        env["POCL_PTHREAD_HOST_SHARE_US"] = "100000"
        env["POCL_PTHREAD_HOST_GROUPS"] = "100000"
    elif schedule.startswith("tbb-"):
        # PoCL's TBB device of the prefix, one device over all threads.
        env["POCL_DEVICES"] = "cpu-tbb"
        env["POCL_TBB_PARTITIONER"] = schedule[4:]
        env["POCL_TBB_DEV_PER_NUMA_NODE"] = "0"
    else:
        env["POCL_PTHREAD_SCHEDULE"] = schedule
    env.update(extra)
    cmd = [os.path.join(build, "bench", "cl_launch"), "--groups", str(groups),
           "--local", "64", "--launches", str(launches), "--batches", str(batches)]
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=1800)
    m = re.search(r"\bmedian_us=([0-9.]+)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit("%s failed (%d): %s%s" % (" ".join(cmd), r.returncode, r.stdout[-500:],
                                           r.stderr[-1500:]))
    return float(m.group(1))


def omp_us(build, threads, groups, stores, launches, batches):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    cmd = [os.path.join(build, "bench", "omp_launch"), "--groups", str(groups),
           "--launches", str(launches), "--batches", str(batches)]
    if stores:
        env.update(OMP_PROC_BIND="close", OMP_PLACES="cores", OMP_WAIT_POLICY="active")
        cmd.append("--stores")
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=1800)
    m = re.search(r"\bmedian_us=([0-9.]+)", r.stdout)
    if r.returncode != 0 or not m:
        sys.exit("%s failed (%d): %s%s" % (" ".join(cmd), r.returncode, r.stdout[-500:],
                                           r.stderr[-1500:]))
    return float(m.group(1))


def ratio_cell(times, base):
    """The median of times / base round by round, and their quartiles."""
    ratios = [x / b for x, b in zip(times, base)]
    if len(ratios) < 2:
        return "%.2f" % ratios[0]
    q1, _, q3 = statistics.quantiles(ratios, n=4)
    return "%.2f [%.2f-%.2f]" % (statistics.median(ratios), q1, q3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", default="2,4")
    ap.add_argument("--sizes", default="1,64,256,1024,16384")
    ap.add_argument("--schedules", default="static,guided")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--launches", type=int, default=100)
    ap.add_argument("--batches", type=int, default=15)
    ap.add_argument("variants", nargs="+", metavar="NAME=PREFIX[:SCHEDULE][,VAR=VALUE...]")
    a = ap.parse_args()
    variants = []
    for v in a.variants:
        name, sep, prefix = v.partition("=")
        fixed = None
        if prefix in ("@omp", "@omp-stores", "@omp-stores-alone"):
            variants.append((name, (prefix, None, {})))
            continue
        prefix, *settings = prefix.split(",")
        extra = {}
        for kv in settings:
            var, eq, value = kv.partition("=")
            if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var):
                sys.exit("%s: expected VAR=VALUE after the prefix, not %r" % (v, kv))
            extra[var] = value
        if ":" in prefix:
            prefix, _, fixed = prefix.rpartition(":")
        if not sep or not os.path.isdir(os.path.join(prefix, "etc", "OpenCL", "vendors")):
            sys.exit("%s: expected NAME=PREFIX[:SCHEDULE][,VAR=VALUE...] of an installed PoCL, "
                     "or NAME=@omp, NAME=@omp-stores or NAME=@omp-stores-alone" % v)
        variants.append((name, (os.path.abspath(prefix), fixed, extra)))
    if len(variants) < 2:
        sys.exit("give at least two variants")
    build = os.path.abspath(a.build)
    kcache = os.path.join(build, "compare-kcache")
    threads = [int(t) for t in a.threads.split(",")]
    sizes = [int(s) for s in a.sizes.split(",")]
    schedules = a.schedules.split(",")

    print("Launch cost, microseconds per launch (a trivial kernel, 64 work-items per "
          "work-group, clFinish after each launch); medians of %d alternated rounds; "
          "ratio = variant / %s, round by round: median [first-third quartile]."
          "\n" % (a.rounds, variants[0][0]))
    print("Command: `%s`\n" % " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]))
    head = ["threads", "schedule", "work-groups"] + [n for n, _ in variants] + \
        ["%s / %s" % (n, variants[0][0]) for n, _ in variants[1:]]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for t in threads:
        for sched in schedules:
            for g in sizes:
                got = {n: [] for n, _ in variants}
                for r in range(a.rounds):
                    for n, (p, fixed, extra) in (variants if r % 2 == 0 else variants[::-1]):
                        if p == "@omp-stores-alone":
                            got[n].append(omp_us(build, 1, share_of(g, t), True, a.launches,
                                                 a.batches))
                        elif p in ("@omp", "@omp-stores"):
                            got[n].append(omp_us(build, t, g, p == "@omp-stores", a.launches,
                                                 a.batches))
                        else:
                            got[n].append(launch_us(build, p, t, g, fixed or sched, a.launches,
                                                    a.batches, kcache, extra))
                med = [statistics.median(got[n]) for n, _ in variants]
                row = [str(t), sched, str(g)] + ["%.2f" % m for m in med] + \
                    [ratio_cell(got[n], got[variants[0][0]]) for n, _ in variants[1:]]
                print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
