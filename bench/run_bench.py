#!/usr/bin/env python3
"""Runs pocl-steal's benchmarks and writes a report.

Every comparison alternates its variants inside one run (round after
round, each variant once per round) and reports medians, because the
machines are noisy.  Benchmarks print figures; nothing here fails on a
timing.  Output, in OUT (default build/bench-report): report.md, one CSV
per benchmark, PNG plots (gnuplot).  The report's header says what was
measured: the machine, the checkout's git revision, the C compiler and
the LLVM of the build, and this script's command line.

Usage: run_bench.py --build BUILD_DIR [--out DIR] [--smoke]
                    [--threads T,T,...] [--rounds R] [--only SECTION,...]
                    [--ours PREFIX]
"""

import argparse
import csv
import glob
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

SIZES = [1, 16, 64, 256, 1024, 16384]
PROFILES = ["linear", "band", "period", "flat"]
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --- what was measured: revision, toolchain, command line ---------------

def _output(cmd, cwd=None):
    """stdout of cmd, or None if it cannot be run or fails."""
    try:
        r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL, universal_newlines=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout if r.returncode == 0 else None


def git_revision(top=TOP):
    """`git rev-parse --short HEAD` of the checkout, plus "-dirty" when the
    work tree differs from it (changed, staged or untracked files), or
    "unknown".  safe.directory=*: the checkout may be bind-mounted into the
    build root and owned by another uid there; --no-optional-locks: never
    write the index of a checkout others may be using."""
    if shutil.which("git") is None:
        return "unknown"
    git = ["git", "--no-optional-locks", "-c", "safe.directory=*", "-C", top]
    rev = _output(git + ["rev-parse", "--short", "HEAD"])
    if not rev or not rev.strip():
        return "unknown"
    status = _output(git + ["status", "--porcelain"])
    if status is None:
        return rev.strip() + " (work tree state unknown)"
    return rev.strip() + ("-dirty" if status.strip() else "")


def cmake_cache(path, key):
    """The value of KEY in a CMakeCache.txt (KEY:TYPE=VALUE), or None."""
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"%s(:[^=]*)?=(.*)$" % re.escape(key), line.rstrip("\n"))
                if m:
                    return m.group(2)
    except OSError:
        pass
    return None


def c_compiler(build):
    """(CMAKE_C_COMPILER of the build, the first line of its --version);
    either may be "unknown"."""
    cc = cmake_cache(os.path.join(build, "CMakeCache.txt"), "CMAKE_C_COMPILER")
    if not cc:
        return "unknown", "unknown"
    if not os.path.isabs(cc):
        cc = shutil.which(cc) or cc
    out = _output([cc, "--version"])
    first = out.strip().splitlines()[0].strip() if out and out.strip() else "unknown"
    return cc, first


def llvm_version(build):
    """(the LLVM version PoCL was built with, where it was read).  PoCL's
    configure records LLVM_VERSION_FULL in its build's cache; failing
    that, the llvm-config it was given (LLVM_CONFIG, picked by
    cmake/PoclBuild.cmake) is asked."""
    pocl_cache = os.path.join(build, "pocl-build", "CMakeCache.txt")
    v = cmake_cache(pocl_cache, "LLVM_VERSION_FULL")
    if v:
        return v, "LLVM_VERSION_FULL of pocl-build/CMakeCache.txt"
    for cache in (pocl_cache, os.path.join(build, "CMakeCache.txt")):
        cfg = cmake_cache(cache, "LLVM_CONFIG")
        if cfg and not cfg.endswith("-NOTFOUND"):
            out = _output([cfg, "--version"])
            if out and out.strip():
                return out.strip().splitlines()[0], "%s --version" % cfg
    return "unknown", "no LLVM_VERSION_FULL or usable LLVM_CONFIG in the build's caches"


def command_line(argv):
    return " ".join(shlex.quote(a) for a in argv)


def provenance_lines(build, argv, top=TOP):
    """The report's header lines on what was measured, after the machine's."""
    cc, cc_version = c_compiler(build)
    llvm, llvm_from = llvm_version(build)
    return ["- revision: %s" % git_revision(top),
            "- C compiler: %s" % (cc_version if cc == "unknown" else "%s (`%s`)" % (cc_version, cc)),
            "- LLVM: %s (%s)" % (llvm, llvm_from),
            "- command: `%s`" % command_line(argv)]


class Bench:
    def __init__(self, args, argv=None):
        self.argv = list(sys.argv if argv is None else argv)
        self.build = os.path.abspath(args.build)
        self.main_version = self.version_of(os.path.join(self.build, "pocl-src"))
        self.others = self.other_versions()
        self.out = os.path.abspath(args.out or os.path.join(self.build, "bench-report"))
        self.smoke = args.smoke
        self.only = args.only.split(",") if args.only else None
        self.ours_prefix = os.path.abspath(args.ours) if args.ours else None
        self.rounds = args.rounds or (1 if args.smoke else 3)
        cpus = os.cpu_count() or 1
        if args.threads:
            self.threads = [int(t) for t in args.threads.split(",")]
        else:
            self.threads = [max(1, cpus), 2 * max(1, cpus)]
        self.kcache = os.path.join(
            os.environ.get("POCL_STEAL_CACHE",
                           os.path.join(os.path.expanduser("~"), ".cache", "pocl-steal")),
            "kcache")
        os.makedirs(self.out, exist_ok=True)
        self.md = []
        self.tbb_version, self.tbb_why = self.find_tbb()

    # --- running things -------------------------------------------------

    def tool(self, name):
        return os.path.join(self.build, "bench", name)

    def version_of(self, tree):
        """The PoCL version of the source tree ci/pocl-source.sh prepared."""
        with open(os.path.join(tree, ".pocl-steal-version")) as f:
            return f.read().split()[0]

    def other_versions(self):
        """The other PoCL versions built (cmake/PoclVersions.cmake), as
        {version: prefix directory}."""
        found = {}
        for d in sorted(glob.glob(os.path.join(self.build, "pocl-*", "prefix"))):
            tree = os.path.join(os.path.dirname(d), "pocl-src")
            if os.path.isdir(os.path.join(d, "stock")) and os.path.isdir(tree):
                found[self.version_of(tree)] = d
        return found

    TBB_VARIANTS = ["tbb-affinity", "tbb-auto"]

    def find_tbb(self):
        """(version, None) of the PoCL build whose TBB device the benchmarks
        compare with (7.2, which Julia ships; cmake/PoclBuild.cmake builds it
        there), or (None, why not).  The device must pass the exactly-once
        test first."""
        roots = dict(self.others)
        roots[self.main_version] = os.path.join(self.build, "prefix")
        root = roots.get("7.2")
        if root is None:
            return None, "no PoCL 7.2 build"
        if not os.path.exists(os.path.join(root, "tbb", "lib", "pocl", "libpocl-devices-tbb.so")):
            return None, "PoCL 7.2 was built without its TBB device (no libtbb-dev)"
        test = os.path.join(self.build, "tests", "opencl", "cl_exactly_once")
        if not os.path.exists(test):
            return None, "no cl_exactly_once to check the TBB device with"
        version = "" if self.main_version == "7.2" else "7.2"
        for part in self.TBB_VARIANTS:
            env = self.pocl_env(part + ("@" + version if version else ""), 2)
            r = subprocess.run([test], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=600)
            if r.returncode != 0:
                return None, "PoCL 7.2's TBB device (%s) fails cl_exactly_once: %s" % (
                    part, r.stdout.strip().splitlines()[-1:] or r.returncode)
        return (version or self.main_version), None

    def tbb_variants(self):
        """The TBB peer's variants, as pocl_env names them; none if there is
        no TBB device to compare with."""
        if not self.tbb_version:
            return []
        at = "" if self.tbb_version == self.main_version else "@" + self.tbb_version
        return [v + at for v in self.TBB_VARIANTS]

    def tbb_line(self):
        if self.tbb_version:
            return ("`tbb affinity` and `tbb auto` are PoCL %s's own TBB device (POCL_DEVICES=cpu-tbb, "
                    "stock build, one device over all threads) under POCL_TBB_PARTITIONER=affinity "
                    "and =auto; it passed cl_exactly_once before it was measured."
                    % self.tbb_version)
        return "The TBB device is not compared: %s." % self.tbb_why

    def peer_variants(self):
        """Ours static on the TBB device's PoCL version, and the TBB device:
        the like-for-like comparison on the version Julia ships."""
        tbb = self.tbb_variants()
        if not tbb or self.tbb_version == self.main_version:
            return tbb
        return ["static@" + self.tbb_version] + tbb

    def peer_line(self):
        if not self.tbb_version:
            return self.tbb_line()
        return ("%s `static@%s` is ours static on that build." % (self.tbb_line(), self.tbb_version)
                if self.tbb_version != self.main_version else self.tbb_line())

    def pocl_env(self, variant, threads, extra=None):
        """variant: 'stock', 'guided' or 'static' (ours), on the main build,
        or 'stock@V' or 'static@V' on another version V; 'static-nohost' is
        ours static with host runs off (POCL_PTHREAD_HOST_GROUPS=0),
        'static-shareonce' ours static with the application thread sharing
        its launches at once (POCL_PTHREAD_HOST_SHARE_US=0, no rule S1),
        'static-nograce' ours static with workers taking small launches at
        once (POCL_PTHREAD_HOST_GRACE_US=0, no rule P6); 'static-alone' ours
        on one compute unit, the application thread running every launch
        alone (POCL_PTHREAD_HOST_GROUPS and _HOST_SHARE_US at their
        maximum: nothing is handed to a worker), for PoCL's own floor
        (launch_cost); 'tbb-affinity@V'
        and 'tbb-auto@V' PoCL's TBB device (POCL_DEVICES=cpu-tbb) of the tbb
        prefix of V (stock's pthread module beside it) under that
        POCL_TBB_PARTITIONER, one device over all threads
        (POCL_TBB_DEV_PER_NUMA_NODE=0), as ours is."""
        env = dict(os.environ)
        variant, _, version = variant.partition("@")
        for name in ("POCL_DEVICES", "POCL_TBB_PARTITIONER", "POCL_TBB_DEV_PER_NUMA_NODE"):
            env.pop(name, None)
        if variant.startswith("tbb-"):
            env.update(POCL_DEVICES="cpu-tbb", POCL_TBB_PARTITIONER=variant[4:],
                       POCL_TBB_DEV_PER_NUMA_NODE="0")
            variant = "tbb"
        # Host runs at their default unless the variant turns them off.
        env.pop("POCL_PTHREAD_HOST_GROUPS", None)
        env.pop("POCL_PTHREAD_HOST_SHARE_US", None)
        env.pop("POCL_PTHREAD_HOST_GRACE_US", None)
        if variant == "static-nohost":
            variant = "static"
            env["POCL_PTHREAD_HOST_GROUPS"] = "0"
        elif variant == "static-shareonce":
            variant = "static"
            env["POCL_PTHREAD_HOST_SHARE_US"] = "0"
        elif variant == "static-nograce":
            variant = "static"
            env["POCL_PTHREAD_HOST_GRACE_US"] = "0"
        elif variant == "static-alone":
            variant = "static"
            threads = 1
            env["POCL_PTHREAD_HOST_GROUPS"] = "100000"
            env["POCL_PTHREAD_HOST_SHARE_US"] = "100000"
        prefix = variant if variant in ("stock", "tbb") else "ours"
        root = os.path.join(self.build, "prefix")
        if version:
            root = self.others[version]
        prefix_dir = os.path.join(root, prefix)
        if prefix == "ours" and not version and self.ours_prefix:
            prefix_dir = self.ours_prefix
        env["OCL_ICD_VENDORS"] = os.path.join(prefix_dir, "etc", "OpenCL", "vendors")
        env["POCL_CACHE_DIR"] = self.kcache
        env["POCL_CPU_MAX_CU_COUNT"] = str(threads)
        env.pop("POCL_PTHREAD_SCHEDULE", None)
        if prefix == "ours":
            env["POCL_PTHREAD_SCHEDULE"] = variant
        env.update(extra or {})
        return env

    def at(self, variant, version):
        """pocl_env's name of variant on PoCL version."""
        return variant if version == self.main_version else variant + "@" + version

    def run(self, cmd, env=None):
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=1800)
        if r.returncode != 0:
            raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
        return r.stdout

    @staticmethod
    def field(out, name):
        m = re.search(r"\b%s=([0-9.]+)" % name, out)
        if not m:
            raise RuntimeError("no %s= in: %s" % (name, out))
        return float(m.group(1))

    def alternate(self, variants, measure):
        """Runs measure(v) for each variant, round after round; returns the
        median per variant."""
        got = {v: [] for v in variants}
        for _ in range(self.rounds):
            for v in variants:
                got[v].append(measure(v))
        return {v: statistics.median(x) for v, x in got.items()}

    @staticmethod
    def quartiles(x):
        """(median, first quartile, third quartile) of the values x."""
        x = sorted(x)
        if len(x) < 2:
            return x[0], x[0], x[0]
        q = statistics.quantiles(x, n=4, method="inclusive")
        return q[1], q[0], q[2]

    # --- report helpers -------------------------------------------------

    def write_csv(self, name, header, rows):
        with open(os.path.join(self.out, name), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)

    def table(self, header, rows, md=None):
        """A markdown table, appended to md (default: the report)."""
        md = self.md if md is None else md
        md.append("| " + " | ".join(header) + " |")
        md.append("|" + "---|" * len(header))
        for r in rows:
            md.append("| " + " | ".join(str(c) for c in r) + " |")
        md.append("")

    def gnuplot(self, name, script):
        path = os.path.join(self.out, name + ".gp")
        # Names such as stock@7.2 or static-nohost are written as they are,
        # not as gnuplot's enhanced text (where _ and @ mean sub- and
        # superscripts).
        script = script.replace("set terminal pngcairo", "set terminal pngcairo noenhanced")
        with open(path, "w") as f:
            f.write(script)
        if shutil.which("gnuplot") is None:
            self.md.append("(gnuplot not found: %s.png not drawn)\n" % name)
            return
        r = subprocess.run(["gnuplot", path], cwd=self.out, stderr=subprocess.PIPE,
                           universal_newlines=True)
        if r.returncode != 0:
            self.md.append("(gnuplot failed on %s: %s)\n" % (name, r.stderr.strip()[-300:]))
        else:
            self.md.append("![%s](%s.png)\n" % (name, name))

    # --- the machine ----------------------------------------------------

    def machine(self):
        model = platform.processor() or "unknown CPU"
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        model = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        online = os.cpu_count()
        allowed = len(os.sched_getaffinity(0))
        nodes = 1
        try:
            nodes = len([d for d in os.listdir("/sys/devices/system/node") if re.match(r"node\d+$", d)]) or 1
        except OSError:
            pass
        mem = ""
        try:
            with open("/proc/meminfo") as f:
                mem = "%.0f GiB" % (int(f.readline().split()[1]) / 1048576)
        except OSError:
            pass
        self.nodes = nodes
        self.md.append("# pocl-steal benchmark report\n")
        self.md.append("- machine: %s, %d CPUs online (%d allowed), %d NUMA node(s), %s memory"
                       % (model, online, allowed, nodes, mem))
        self.md.extend(provenance_lines(self.build, self.argv))
        if self.ours_prefix:
            self.md.append("- ours from `%s` (--ours), not `build/prefix/ours`" % self.ours_prefix)
        self.md.append("- PoCL %s from `build/prefix/ours` (this driver) and `build/prefix/stock` "
                       "(PoCL's own pthread driver, same build and flags)%s"
                       % (self.main_version, "".join(
                           "; PoCL %s from `build/pocl-%s/prefix/{ours,stock}` (launch cost only)" % (v, v)
                           for v in self.others)))
        self.md.append("- threads: %s (POCL_CPU_MAX_CU_COUNT / OMP_NUM_THREADS); %d round(s) of "
                       "alternated variants per figure, medians; %s; %s"
                       % (", ".join(map(str, self.threads)), self.rounds,
                          "smoke mode (tiny sizes, figures meaningless)" if self.smoke else "full mode",
                          time.strftime("%Y-%m-%d %H:%M")))
        self.md.append("")

    # --- 1. launch cost -------------------------------------------------

    def launch_cost(self):
        self.md.append("## 1. Launch cost\n")
        self.md.append("A trivial kernel, 64 work-items per work-group, launched back to back and "
                       "waited for with clFinish each time; microseconds per launch, the median of %d "
                       "batches of %d launches, then the median over rounds. `omp static` is libgomp's "
                       "`parallel for schedule(static)` over the same number of empty iterations: the "
                       "floor a thread pool can reach, a latency floor. `omp static, same stores` is the "
                       "same loop doing each work-group's work, 64 stores of one uint, with the threads "
                       "pinned (OMP_PROC_BIND=close, OMP_PLACES=cores) and waiting actively "
                       "(OMP_WAIT_POLICY=active): the fair floor for the same work. `host runs off` is ours static with "
                       "POCL_PTHREAD_HOST_GROUPS=0: the application thread in clFinish only waits, as "
                       "before it ran small launches itself (at most 64 work-groups by default). "
                       "`shared at once` is ours static with POCL_PTHREAD_HOST_SHARE_US=0: the "
                       "application thread shares the launch it runs with the workers at once, as "
                       "before rule S1 (section 1c). `no grace` is ours static with "
                       "POCL_PTHREAD_HOST_GRACE_US=0: a worker takes a small launch at once, as before "
                       "rule P6, rather than leave it to the application thread that enqueued it for "
                       "30 us. `PoCL floor` is PoCL's own floor for the launch: one thread's "
                       "share of it, the work-groups divided by the threads (by the CPUs where "
                       "there are fewer), run whole by the application thread through our driver on "
                       "one compute unit (POCL_PTHREAD_HOST_GROUPS and POCL_PTHREAD_HOST_SHARE_US at "
                       "their maximum), so with PoCL's path per launch paid once and no hand-off, "
                       "scheduling or waiting for other threads: what a perfect division would cost "
                       "in PoCL, with no slowdown either from threads running side by side; `static "
                       "/ PoCL floor` is what sharing the launch costs beyond it. `omp, one thread's "
                       "share` is the fair floor's loop on one thread over as many groups: `omp, "
                       "same stores / omp, one thread's share` is what sharing costs OpenMP, and "
                       "`PoCL floor / omp, one thread's share` what PoCL costs against an inline "
                       "loop with no scheduling at all, which no scheduler changes. %s\n"
                       % (self.batches, self.launches, self.tbb_line()))
        rows, csv_rows = [], []
        # Stock and ours (static) on each other PoCL version too, so that the
        # ratio is there against the version a user would replace.
        others = list(self.others)
        variants = ["stock", "guided", "static", "static-nohost", "static-shareonce",
                    "static-nograce", "static-alone", "omp", "omp-stores", "omp-stores-alone"]
        cpus = len(os.sched_getaffinity(0))
        for v in others:
            variants += ["stock@" + v, "static@" + v]
        tbb = self.tbb_variants()
        variants += tbb
        for t in self.threads:
            res = {v: {} for v in variants}
            for g in SIZES:
                def measure(v):
                    if v in ("omp", "omp-stores", "omp-stores-alone"):
                        alone = v == "omp-stores-alone"
                        env = dict(os.environ, OMP_NUM_THREADS="1" if alone else str(t))
                        cmd = [self.tool("omp_launch"), "--groups",
                               str(-(-g // min(t, cpus)) if alone else g),
                               "--launches", str(self.launches), "--batches", str(self.batches)]
                        if v != "omp":
                            env.update(OMP_PROC_BIND="close", OMP_PLACES="cores",
                                       OMP_WAIT_POLICY="active")
                            cmd.append("--stores")
                        out = self.run(cmd, env)
                    else:
                        # PoCL's floor: one thread's share, rounded up.
                        groups = -(-g // min(t, cpus)) if v == "static-alone" else g
                        out = self.run([self.tool("cl_launch"), "--groups", str(groups), "--local", "64",
                                        "--launches", str(self.launches), "--batches", str(self.batches)],
                                       self.pocl_env(v, t))
                    return self.field(out, "median_us")
                med = self.alternate(variants, measure)
                for v in variants:
                    res[v][g] = med[v]
            for v in variants:
                base, _, version = v.partition("@")
                name = {"stock": "stock PoCL %s" % (version or self.main_version),
                        "guided": "guided (ours)", "omp": "omp static",
                        "omp-stores": "omp static, same stores",
                        "omp-stores-alone": "omp, one thread's share",
                        "static-nohost": "static (ours, host runs off)",
                        "static-shareonce": "static (ours, shared at once)",
                        "static-nograce": "static (ours, no grace)",
                        "static-alone": "PoCL floor (work-groups / threads, alone)",
                        "tbb-affinity": "tbb affinity (PoCL %s)" % (version or self.main_version),
                        "tbb-auto": "tbb auto (PoCL %s)" % (version or self.main_version),
                        "static": "static (ours%s)" % (", PoCL " + version if version else "")}[base]
                rows.append([t, name] + ["%.2f" % res[v][g] for g in SIZES])
                csv_rows.append([t, v] + ["%.3f" % res[v][g] for g in SIZES])
            for version in [""] + others:
                at = "@" + version if version else ""
                ratio = ["%.2f" % (res["static" + at][g] / res["stock" + at][g]) for g in SIZES]
                rows.append([t, "static / stock" + (" (PoCL %s)" % version if version else "")] + ratio)
            rows.append([t, "static / host runs off"]
                        + ["%.2f" % (res["static"][g] / res["static-nohost"][g]) for g in SIZES])
            rows.append([t, "static / shared at once"]
                        + ["%.2f" % (res["static"][g] / res["static-shareonce"][g]) for g in SIZES])
            rows.append([t, "static / no grace"]
                        + ["%.2f" % (res["static"][g] / res["static-nograce"][g]) for g in SIZES])
            rows.append([t, "static / omp static"]
                        + ["%.2f" % (res["static"][g] / res["omp"][g]) for g in SIZES])
            rows.append([t, "static / omp, same stores"]
                        + ["%.2f" % (res["static"][g] / res["omp-stores"][g]) for g in SIZES])
            rows.append([t, "static / PoCL floor"]
                        + ["%.2f" % (res["static"][g] / res["static-alone"][g]) for g in SIZES])
            rows.append([t, "omp, same stores / omp, one thread's share"]
                        + ["%.2f" % (res["omp-stores"][g] / res["omp-stores-alone"][g])
                           for g in SIZES])
            rows.append([t, "PoCL floor / omp, one thread's share"]
                        + ["%.2f" % (res["static-alone"][g] / res["omp-stores-alone"][g])
                           for g in SIZES])
            rows.append([t, "static / guided"]
                        + ["%.2f" % (res["static"][g] / res["guided"][g]) for g in SIZES])
            for v in tbb:
                base, _, version = v.partition("@")
                ours = "static" + ("@" + version if version else "")
                rows.append([t, "static / %s (PoCL %s)" % (base.replace("-", " "),
                                                           version or self.main_version)]
                            + ["%.2f" % (res[ours][g] / res[v][g]) for g in SIZES])
        self.table(["threads", "schedule"] + ["1 WG" if g == 1 else str(g) for g in SIZES], rows)
        self.write_csv("launch.csv", ["threads", "variant"] + [str(g) for g in SIZES], csv_rows)
        with open(os.path.join(self.out, "launch.dat"), "w") as f:
            for t in self.threads:
                f.write("# threads %d\n" % t)
                for g in SIZES:
                    vals = [r for r in csv_rows if r[0] == t]
                    f.write("%d %s\n" % (g, " ".join(r[2 + SIZES.index(g)] for r in vals)))
                f.write("\n\n")
        # One picture per question, one panel per thread count, the legend
        # beside the data: ours against stock on each version; ours with
        # the host-run rules off one by one; the floors and the peers.
        questions = [
            ("launch-stock", "ours against stock PoCL",
             [v for v in variants if v.partition("@")[0] in ("static", "stock")]),
            ("launch-host", "the application thread: host runs, S1, P6",
             ["static", "static-nohost", "static-shareonce", "static-nograce"]),
            ("launch-peers", "the floors and the peers",
             ["static", "guided", "static-alone", "omp", "omp-stores", "omp-stores-alone"] + tbb),
        ]
        # Titles go between single quotes in the gnuplot script: none has one.
        for name, title, series in questions:
            panels = []
            for i, t in enumerate(self.threads):
                plots = ["'launch.dat' index %d using 1:%d with linespoints title '%s'"
                         % (i, variants.index(v) + 2, v) for v in series]
                panels.append("set title '%s, %d threads'\nplot %s\n" % (title, t, ", ".join(plots)))
            self.gnuplot(name, "set terminal pngcairo size %d,480\nset output '%s.png'\n"
                         "set multiplot layout 1,%d\n"
                         "set logscale xy\nset xlabel 'work-groups per launch'\n"
                         "set ylabel 'microseconds per launch'\nset key outside bottom center "
                         "horizontal maxcols 3\nset grid\n%sunset multiplot\n"
                         % (560 * len(self.threads), name, len(self.threads), "".join(panels)))

    # --- 1b. where a small launch's time goes ---------------------------

    BREAKDOWN_STEPS = ["api", "submit", "handoff", "setup", "groups", "complete", "wake",
                       "total", "enqueue"]

    def launch_breakdown(self):
        sizes = [1, 4, 64]
        n = 100 if self.smoke else 2000
        self.md.append("## 1b. Where a small launch's time goes\n")
        self.md.append(
            "`cl_breakdown`: a trivial kernel of G work-groups of 64 work-items launched %d times, "
            "each waited for with clFinish, on a profiling queue; every launch is cut by the host's "
            "clock (t0 before clEnqueueNDRangeKernel, t2 when clFinish returns), PoCL's profiling "
            "stamps (QUEUED, SUBMIT, START, END) and the kernel's own TSC readings (first work-group "
            "begins, last one ends). Medians in microseconds, then the median over rounds. `api` = "
            "t0 -> QUEUED (the API call and the command, PoCL's), `submit` = QUEUED -> SUBMIT (the "
            "queue, PoCL's), `handoff` = SUBMIT -> START (the driver gives the command to a thread), "
            "`setup` = START -> first work-group (the driver's launch set-up), `groups` = the "
            "work-groups, `complete` = last work-group -> END (the driver notices the end), `wake` = "
            "END -> clFinish returns (PoCL's event completion and the driver's wake-up of the host), "
            "`total` = t0 -> t2; `enqueue` = how long clEnqueueNDRangeKernel itself took (it overlaps "
            "the steps after it). `marker` = clEnqueueMarkerWithWaitList + clFinish, PoCL's floor for "
            "a command waited for (no work-groups). Profiling itself costs a little, so `total` is "
            "above section 1's figure.\n" % n)
        variants = ["static", "static-nohost", "stock"]
        rows = []
        csv_rows = []
        for t in self.threads:
            cases = [(v, g) for v in variants for g in sizes] + [(v, "marker") for v in variants]

            def measure(case):
                v, g = case
                cmd = [self.tool("cl_breakdown"), "--launches", str(n)]
                cmd += ["--marker"] if g == "marker" else ["--groups", str(g)]
                out = self.run(cmd, self.pocl_env(v, t))
                return {s: (None if re.search(r"\b%s_us=na" % s, out) else self.field(out, s + "_us"))
                        for s in self.BREAKDOWN_STEPS}

            got = {c: [] for c in cases}
            for _ in range(self.rounds):
                for c in cases:
                    got[c].append(measure(c))
            for c in cases:
                v, g = c
                med = {}
                for s in self.BREAKDOWN_STEPS:
                    vals = [r[s] for r in got[c] if r[s] is not None]
                    med[s] = statistics.median(vals) if vals else None
                name = {"static": "ours (static)", "static-nohost": "ours (static, host runs off)",
                        "stock": "stock PoCL %s" % self.main_version}[v]
                rows.append([t, name, g] + ["-" if med[s] is None else "%.2f" % med[s]
                                            for s in self.BREAKDOWN_STEPS])
                csv_rows.append([t, v, g] + ["" if med[s] is None else "%.3f" % med[s]
                                             for s in self.BREAKDOWN_STEPS])
        self.table(["threads", "variant", "work-groups"] + self.BREAKDOWN_STEPS, rows)
        self.write_csv("breakdown.csv", ["threads", "variant", "groups"] + self.BREAKDOWN_STEPS,
                       csv_rows)

    def share_rule(self):
        works = [0, 2, 4, 8, 16]
        self.md.append("## 1c. Rule S1: when the waiting thread shares a small launch\n")
        self.md.append(
            "64 work-groups of 64 work-items, as in section 1, with `cl_launch --work W`: each "
            "work-item first runs W rounds of a dependent multiply-add, so the work-groups cost more "
            "as W grows. `ours static` (rule S1: the application thread runs the launch alone while "
            "the rest looks cheaper than POCL_PTHREAD_HOST_SHARE_US, 5 us) against `shared at once` "
            "(POCL_PTHREAD_HOST_SHARE_US=0) and `host runs off` (POCL_PTHREAD_HOST_GROUPS=0). "
            "Microseconds per launch, medians as in section 1.\n")
        variants = ["static", "static-shareonce", "static-nohost"]
        rows, csv_rows = [], []
        for t in self.threads:
            for w in works:
                def measure(v):
                    out = self.run([self.tool("cl_launch"), "--groups", "64", "--local", "64",
                                    "--launches", str(self.launches), "--batches", str(self.batches),
                                    "--work", str(w)], self.pocl_env(v, t))
                    return self.field(out, "median_us")
                med = self.alternate(variants, measure)
                rows.append([t, w] + ["%.2f" % med[v] for v in variants]
                            + ["%.2f" % (med["static"] / med["static-shareonce"])])
                csv_rows.append([t, w] + ["%.3f" % med[v] for v in variants])
        self.table(["threads", "W", "ours static (S1)", "shared at once", "host runs off",
                    "S1 / shared at once"], rows)
        self.write_csv("share.csv", ["threads", "work"] + variants, csv_rows)

    # --- 1d. under contention ------------------------------------------

    def busy_loops(self, n):
        """n busy loops (`sh -c 'while :; do :; done'`), as other programs
        keeping the CPUs busy; stop them with stop_load."""
        return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(n)]

    @staticmethod
    def stop_load(procs):
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()

    CONTENTION_WAITERS = {"main": None, "coroutine": [1, 64], "thread": [1, 64]}
    # The paced second process starts a launch this often: about as often
    # as stock PoCL manages back to back here, so that it keeps up.
    CONTENTION_PACE_US = 50

    def contention(self):
        """Section 1d: launch cost while other programs want the CPUs."""
        cpus = len(os.sched_getaffinity(0))
        t = self.threads[0]
        sizes = [1, 64] if self.smoke else [1, 64, 1024, 16384]
        # Beside busy loops a launch now and then waits out a time slice
        # (2-6 ms here), so a batch spans several of them: with batches of
        # 20 launches (1-2 ms at 16384 work-groups) each batch caught one
        # such wait or none, and the median of that row moved between 0.43
        # and 1.40 of stock's from one run to the next.
        launches, batches = (5, 3) if self.smoke else (200, 5)
        loads = [("idle", 0), ("%d busy loops" % cpus, cpus), ("%d busy loops" % (2 * cpus), 2 * cpus),
                 ("a second PoCL process", -1),
                 ("a second PoCL process, paced", -2)]
        variants = ["stock", "guided", "static"] + self.tbb_variants()
        self.md.append("## 1d. Under contention\n")
        self.md.append(
            "Section 1's trivial kernel at %d threads while other programs want the CPUs: none, one "
            "busy loop (`sh -c 'while :; do :; done'`) per CPU, two per CPU, or a second process "
            "launching 64 work-groups on the same variant, back to back or (paced) one launch "
            "every %d us. The waiting thread is the main "
            "thread, a coroutine on a 64 KiB stack of its own (makecontext: Julia's tasks, C++ "
            "coroutines), or a thread with a 256 KiB stack; the last two only for launches small "
            "enough for the waiting thread to run them itself. Microseconds per launch: the median "
            "and quartiles of every batch (%d launches each, so that a batch spans several of the time "
            "slices a launch beside busy loops now and then waits out; %d batches per round) of "
            "every round; "
            "the variants take turns within each load. `static / stock` is the ratio of the "
            "medians. %s\n" % (t, self.CONTENTION_PACE_US, launches, batches, self.tbb_line()))
        cells = [(w, g) for w, only in self.CONTENTION_WAITERS.items() for g in sizes
                 if only is None or g in only]
        got = {(l, c, v): [] for l, _ in loads for c in cells for v in variants}
        # the second process's launches per second, by load and variant
        co = {(n, v): [] for _, n in loads if n < 0 for v in variants}

        def measure(load, c, v):
            w, g = c
            out = self.run([self.tool("cl_launch"), "--groups", str(g), "--local", "64",
                            "--launches", str(launches), "--batches", str(batches),
                            "--waiter", w, "--raw"], self.pocl_env(v, t))
            m = re.search(r"batches_us=([0-9.,]+)", out)
            got[(load, c, v)] += [float(x) for x in m.group(1).split(",")]

        for _ in range(self.rounds):
            for load, n in loads:
                if n >= 0:
                    procs = self.busy_loops(n)
                    try:
                        for c in cells:
                            for v in variants:
                                measure(load, c, v)
                    finally:
                        self.stop_load(procs)
                    continue
                # The second process uses the variant measured; it runs
                # until stopped, and is launching (past its warm-up) before
                # the measurement starts: back to back, or paced.
                pace = ["--pace-us", str(self.CONTENTION_PACE_US)] if n == -2 else []
                for v in variants:
                    other = subprocess.Popen(
                        [self.tool("cl_launch"), "--groups", "64", "--launches", "1000000000",
                         "--batches", "1", "--ready"] + pace, env=self.pocl_env(v, t),
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
                    try:
                        other.stdout.readline()
                        for c in cells:
                            measure(load, c, v)
                        # How much load it was: its launches since "ready".
                        other.terminate()
                        try:
                            tail = other.communicate(timeout=30)[0]
                        except subprocess.TimeoutExpired:
                            tail = ""
                        m = re.search(r"co_launches=([0-9]+) co_us=([0-9.]+)", tail)
                        if m and float(m.group(2)) > 0:
                            co[(n, v)].append(int(m.group(1)) / float(m.group(2)) * 1e6)
                    finally:
                        self.stop_load([other])
        rows, csv_rows = [], []

        quartiles = self.quartiles

        for load, _ in loads:
            for c in cells:
                w, g = c
                q = {v: quartiles(got[(load, c, v)]) for v in variants}
                rows.append([load, w, g] + ["%.1f [%.1f-%.1f]" % q[v] for v in variants]
                            + ["%.2f" % (q["static"][0] / q["stock"][0])])
                csv_rows.append([load, w, g] + ["%.3f" % q[v][0] for v in variants])
        self.table(["load", "waiter", "work-groups"] + ["%s median [q1-q3]" % v for v in variants]
                   + ["static / stock"], rows)
        self.write_csv("contention.csv", ["load", "waiter", "groups"] + variants, csv_rows)
        def rates(n):
            return ", ".join("%s %s" % (v, "%.0f" % statistics.median(co[(n, v)])
                                        if co[(n, v)] else "not reported") for v in variants)
        self.md.append(
            "The second process launching back to back is not the same load for every variant: "
            "it launches as fast as its variant lets it, and a variant that runs a launch of 64 "
            "work-groups on the waiting thread keeps a CPU busy where one that hands it to a "
            "sleeping worker leaves it idle between launches. Its launches per second while the "
            "measured process ran (median over rounds): %s. Paced, it offers every variant the "
            "same launches: %s.\n" % (rates(-1), rates(-2)))

    # --- 1e. the division sanitizer host runs need ----------------------

    def divrem(self):
        """Section 1e: what compiling kernels with PoCL's division
        sanitizer, which host runs need, costs a kernel that divides."""
        n, reps = (65536, 3) if self.smoke else (4 << 20, 10)
        local = 64
        t = self.threads[0]
        self.md.append("## 1e. The division sanitizer host runs need\n")
        self.md.append(
            "With host runs on (POCL_PTHREAD_HOST_GROUPS > 0, the default), the driver has PoCL compile "
            "every kernel with its sanitize-ub-of-div-rem pass, since an application thread running "
            "work-groups has no SIGFPE handler for integer division by zero: a compare and a select "
            "before every division and remainder whose divisor is not a known constant (signed ones "
            "also guard INT_MIN / -1: two more compares, an and and an add). `cl_divrem`: %d "
            "work-items in work-groups of %d (%d work-groups, so the workers run them in both "
            "variants), each doing 16 dependent integer divisions and remainders (4 each of signed "
            "and unsigned `/` and `%%`) on data the host writes at run time; its results are checked "
            "against the host's. %d threads, `host runs on` (ours static, the default) against `host "
            "runs off` (POCL_PTHREAD_HOST_GROUPS=0, no sanitizer; the kernel cache keeps the two "
            "compilations apart), alternated in %d round(s). Milliseconds per launch: each run's "
            "median over %d launches (after one not counted), and the CPU time of the process per "
            "launch (all threads; waiting for a CPU that other programs hold does not count); the "
            "median and quartiles over rounds; the ratio of the medians, and the median and "
            "quartiles of the ratio within each round.\n"
            % (n, local, n // local, t, self.rounds, reps))
        variants = ["static", "static-nohost"]
        measures = ["median_ms", "cpu_ms"]
        got = {(v, m): [] for v in variants for m in measures}
        for _ in range(self.rounds):
            for v in variants:
                out = self.run([self.tool("cl_divrem"), str(n), str(reps), str(local)],
                               self.pocl_env(v, t))
                for m in measures:
                    got[(v, m)].append(self.field(out, m))
        q = {k: self.quartiles(x) for k, x in got.items()}
        ratios = {m: self.quartiles([a / b for a, b in zip(got[("static", m)],
                                                          got[("static-nohost", m)])])
                  for m in measures}
        names = {"static": "host runs on (sanitized)", "static-nohost": "host runs off"}
        rows = [[t, names[v]] + ["%.2f [%.2f-%.2f]" % q[(v, m)] for m in measures]
                for v in variants]
        rows.append([t, "on / off, of the medians"]
                    + ["%.3f" % (q[("static", m)][0] / q[("static-nohost", m)][0]) for m in measures])
        rows.append([t, "on / off, per round"] + ["%.3f [%.3f-%.3f]" % ratios[m] for m in measures])
        self.table(["threads", "variant", "ms per launch, median [q1-q3]",
                    "CPU ms per launch, median [q1-q3]"], rows)
        csv_rows = [[t, v] + ["%.3f" % x for m in measures for x in q[(v, m)]] for v in variants]
        csv_rows.append([t, "ratio_per_round"] + ["%.4f" % x for m in measures for x in ratios[m]])
        self.write_csv("divrem.csv", ["threads", "variant", "median_ms", "q1_ms", "q3_ms",
                                      "cpu_median_ms", "cpu_q1_ms", "cpu_q3_ms"], csv_rows)

    # --- 1f. from every kind of thread ---------------------------------

    WAITERS = ["main", "coroutine", "thread"]

    def waiters(self):
        """Section 1f: a small launch costs the same from every kind of
        thread, now that application threads run work-groups on a stack of
        the driver's (driver/pthread_stack.h)."""
        sizes = [1, 16, 64]
        t = self.threads[0]
        self.md.append("## 1f. From every kind of thread\n")
        self.md.append(
            "Section 1's trivial kernel at %d threads, waited for by the main thread, by a coroutine "
            "on a 64 KiB stack of its own (makecontext, as Julia's tasks and C++ coroutines run) and "
            "by a thread created with a 256 KiB stack (musl's default is 128 KiB). Every application "
            "thread runs small launches on a stack of the driver's (x86-64 and AArch64), so none of "
            "them has to wait for a worker. `host runs off` (POCL_PTHREAD_HOST_GROUPS=0: the thread "
            "only waits) is what the coroutine and the small-stack thread cost before, when the "
            "driver ran work-groups only on a thread whose own stack had room. Microseconds per "
            "launch: the median of %d batches of %d launches, then the median and quartiles over "
            "rounds; the variants and waiters take turns. `x / main` is ours static from that waiter "
            "over ours static from the main thread of the same PoCL version (the goal: within "
            "10%%). Every PoCL version built is measured: %s.\n"
            % (t, self.batches, self.launches,
               ", ".join([self.main_version] + [v for v in self.others if v != self.main_version])))
        # Every PoCL version built, so that the figures hold on 7.1, 7.2
        # and main alike: the main build's, then the others'.
        versions = [self.main_version] + [v for v in self.others if v != self.main_version]
        kinds = ["static", "static-nohost", "stock"]
        at = self.at

        cases = [(at(k, ver), w, g) for ver in versions for w in self.WAITERS for g in sizes
                 for k in kinds]
        got = {c: [] for c in cases}
        for _ in range(self.rounds):
            for c in cases:
                v, w, g = c
                out = self.run([self.tool("cl_launch"), "--groups", str(g), "--local", "64",
                                "--launches", str(self.launches), "--batches", str(self.batches),
                                "--waiter", w], self.pocl_env(v, t))
                got[c].append(self.field(out, "median_us"))
        q = {c: self.quartiles(x) for c, x in got.items()}
        rows, csv_rows = [], []
        for ver in versions:
            for w in self.WAITERS:
                for g in sizes:
                    cell = {k: q[(at(k, ver), w, g)] for k in kinds}
                    row = [ver, w, g] + ["%.2f [%.2f-%.2f]" % cell[k] for k in kinds]
                    row.append("%.2f" % (cell["static"][0] / cell["stock"][0]))
                    row.append("%.2f" % (cell["static"][0] / q[(at("static", ver), "main", g)][0]))
                    rows.append(row)
                    csv_rows.append([ver, t, w, g] + ["%.3f" % cell[k][0] for k in kinds])
        self.table(["PoCL", "waiter", "work-groups", "ours static", "ours, host runs off", "stock",
                    "static / stock", "x / main"], rows)
        self.write_csv("waiters.csv", ["pocl", "threads", "waiter", "groups"] + kinds, csv_rows)

    # --- 1g. through PoCL-R ---------------------------------------------

    def remote_root(self):
        """The prefix directory of the PoCL 7.2 build, whose prefixes have
        PoCL-R (cmake/PoclBuild.cmake), or None."""
        if self.main_version == "7.2":
            return os.path.join(self.build, "prefix")
        return self.others.get("7.2")

    def remote(self):
        """Section 1g: the driver as the CPU device behind pocld, PoCL's
        remote server, over loopback.  pocld 7.2 binds its peer port on
        every interface, so the servers run in a network namespace of
        their own (a child process, unshare), as tests/remote does."""
        self.md.append("## 1g. Through PoCL-R, PoCL's remote server\n")
        root = self.remote_root()
        why = None
        if root is None:
            why = "no PoCL 7.2 build"
        elif not os.access(os.path.join(root, "ours", "bin", "pocld"), os.X_OK):
            why = "PoCL 7.2 was built without pocld (ENABLE_REMOTE_SERVER)"
        elif not hasattr(os, "unshare"):
            why = "this Python has no os.unshare (3.12 or later has it)"
        if why:
            self.md.append("Not measured: %s.\n" % why)
            return
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(rfd)
            try:
                os.unshare(os.CLONE_NEWNET)
                subprocess.run([os.path.join(self.build, "tests", "remote", "loopback_up")],
                               check=True)
            except (OSError, subprocess.CalledProcessError) as e:
                out = {"skip": "no network namespace of its own (%s; it needs root)" % e}
            else:
                try:
                    out = {"md": self.remote_inner(root)}
                except Exception as e:  # raised again by the parent
                    out = {"error": "%s: %s" % (type(e).__name__, e)}
            with os.fdopen(wfd, "w") as f:
                f.write(json.dumps(out))
            os._exit(0)
        os.close(wfd)
        with os.fdopen(rfd) as f:
            got = f.read()
        os.waitpid(pid, 0)
        out = json.loads(got) if got else {"error": "the measuring process died"}
        if "skip" in out:
            self.md.append("Not measured: %s.\n" % out["skip"])
            return
        if "error" in out:
            raise RuntimeError("section 1g: " + out["error"])
        self.md.extend(out["md"])

    REMOTE_PORTS = {"ours-a": 21000, "ours-b": 21010, "stock-a": 21020, "stock-b": 21030,
                    "ours-nograce": 21040}

    def remote_inner(self, root):
        """Runs in the child of remote(), in its own network namespace:
        starts five pocld (ours and stock, two each, and ours without grace), measures, returns
        the report's lines."""
        import socket
        md = []
        t = self.threads[0]
        servers = []

        def start(name):
            kind = name.split("-")[0]
            env = dict(os.environ, OCL_ICD_VENDORS=os.path.join(root, kind, "etc", "OpenCL", "vendors"),
                       POCL_DEVICES="cpu", POCL_CPU_MAX_CU_COUNT=str(t), POCL_CACHE_DIR=self.kcache)
            env.pop("POCL_PTHREAD_SCHEDULE", None)
            if kind == "ours":
                env["POCL_PTHREAD_SCHEDULE"] = "static"
            env.pop("POCL_PTHREAD_HOST_GRACE_US", None)
            if name == "ours-nograce":
                # pocld never waits for a launch (docs/remote.md), so a
                # worker's grace for the enqueuing thread (rule P6) only
                # delays it.
                env["POCL_PTHREAD_HOST_GRACE_US"] = "0"
            port = self.REMOTE_PORTS[name]
            proc = subprocess.Popen([os.path.join(root, kind, "bin", "pocld"), "-a", "127.0.0.1",
                                     "-p", str(port), "-v", "err"], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            servers.append(proc)
            for _ in range(300):
                if proc.poll() is not None:
                    raise RuntimeError("pocld (%s) exited with %d" % (name, proc.returncode))
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    return
                except OSError:
                    time.sleep(0.1)
            raise RuntimeError("pocld (%s) did not listen on %d" % (name, port))

        retries = [0]

        def client(cmd, where):
            """Runs cmd as a client: where is 'local-ours', 'local-stock' or
            a list of servers.  PoCL-R 7.2's client now and then hangs in
            its reader thread (finish_running_cmd, with stock servers too),
            or crashes; such a run is killed after 120 s, and run again, as
            is one that died of a signal."""
            if isinstance(where, str):
                variant = {"local-ours": "static", "local-stock": "stock"}[where]
                env = self.pocl_env(self.at(variant, "7.2"), t)
            else:
                kind = where[0].split("-")[0]
                env = dict(os.environ, OCL_ICD_VENDORS=os.path.join(root, kind, "etc", "OpenCL", "vendors"),
                           POCL_CACHE_DIR=self.kcache, POCL_DEVICES=" ".join(["remote"] * len(where)))
                for i, name in enumerate(where):
                    env["POCL_REMOTE%d_PARAMETERS" % i] = "127.0.0.1:%d/0" % self.REMOTE_PORTS[name]
            for attempt in range(3):
                try:
                    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       universal_newlines=True, timeout=120)
                except subprocess.TimeoutExpired:
                    retries[0] += 1
                    continue
                if r.returncode < 0:  # killed by a signal: it crashed
                    retries[0] += 1
                    continue
                if r.returncode != 0:
                    raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), r.returncode,
                                                                r.stderr[-2000:]))
                return r.stdout
            raise RuntimeError("%s hung or crashed 3 times" % " ".join(cmd))

        try:
            for name in sorted(self.REMOTE_PORTS):
                start(name)
            sizes = [1, 64, 1024] if self.smoke else [1, 64, 1024, 16384]
            wheres = {"ours, through pocld": ["ours-a"],
                      "ours, no grace, through pocld": ["ours-nograce"],
                      "stock, through pocld": ["stock-a"],
                      "ours, local": "local-ours", "stock, local": "local-stock"}
            names = list(wheres)
            got = {(n, g): [] for n in names for g in sizes}
            for _ in range(self.rounds):
                for g in sizes:
                    for n in names:
                        out = client([self.tool("cl_launch"), "--groups", str(g), "--local", "64",
                                      "--launches", str(self.launches), "--batches",
                                      str(self.batches)], wheres[n])
                        got[(n, g)].append(self.field(out, "median_us"))
            q = {k: self.quartiles(v) for k, v in got.items()}
            md.append("Launch cost through one pocld over loopback (127.0.0.1, in a network namespace "
                      "of the benchmark's own), the server's pthread device at %d threads "
                      "(POCL_CPU_MAX_CU_COUNT), ours static or stock, the client PoCL 7.2's `remote` "
                      "driver of the same prefix (POCL_DEVICES=remote); beside it the same launches "
                      "run locally. `no grace` is ours with POCL_PTHREAD_HOST_GRACE_US=0 on the "
                      "server: pocld never waits for a launch, so the grace a worker gives the "
                      "enqueuing thread (rule P6) only delays it. Section 1's trivial kernel, microseconds per launch: the median of "
                      "%d batches of %d launches, then the median and quartiles over %d rounds; the "
                      "variants take turns. The server's threads and the client share the machine's "
                      "CPUs.\n" % (t, self.batches, self.launches, self.rounds))
            rows, csv_rows = [], []
            for g in sizes:
                m = {n: q[(n, g)][0] for n in names}
                rows.append([g] + ["%.1f [%.1f-%.1f]" % q[(n, g)] for n in names]
                            + ["%.2f" % (m["ours, through pocld"] / m["stock, through pocld"]),
                               "%.2f" % (m["ours, no grace, through pocld"]
                                         / m["stock, through pocld"]),
                               "%.1f" % (m["ours, through pocld"] / m["ours, local"])])
                csv_rows.append([t, g] + ["%.3f" % m[n] for n in names])
            self.table(["work-groups"] + names + ["ours / stock, through pocld",
                                                  "no grace / stock, through pocld",
                                                  "through pocld / local, ours"], rows, md)
            self.write_csv("remote-launch.csv", ["threads", "groups"] + names, csv_rows)

            n_sax, reps = (1 << 20, 3) if self.smoke else (16 << 20, 10)
            g_unev, base = (400, 2000) if self.smoke else (4000, 20000)
            jobs = {"saxpy": ["saxpy", str(n_sax), str(reps)],
                    "uneven": ["uneven", str(g_unev), str(base), str(reps)]}
            wheres = {"ours, local": "local-ours", "ours, one server": ["ours-a"],
                      "ours, two servers": ["ours-a", "ours-b"],
                      "stock, two servers": ["stock-a", "stock-b"]}
            names = list(wheres)
            got = {(j, n): [] for j in jobs for n in names}
            for _ in range(self.rounds):
                for j, args in jobs.items():
                    for n in names:
                        out = client([self.tool("cl_split")] + args, wheres[n])
                        got[(j, n)].append(self.field(out, "median_ms"))
            q = {k: self.quartiles(v) for k, v in got.items()}
            md.append("One range split over the devices the client sees (`bench/cl_split.c`: each "
                      "device a contiguous part in proportion to its compute units, all enqueued, then "
                      "all waited for): the local device, one pocld, or two (each %d threads, each part "
                      "in buffers of its own). `saxpy`: y = a x + y over %d floats; `uneven`: %d "
                      "work-groups of one work-item whose cost grows linearly with the index (mean %d "
                      "rounds of a hash), so the second server's part costs three times the first's. "
                      "Results checked. Milliseconds per pass: the median of %d passes, then the median "
                      "and quartiles over rounds. On a machine with few CPUs the servers share them: "
                      "two servers cannot be faster here than one, and the figures show what the "
                      "network hop and the split cost, not what a cluster gains.\n"
                      % (t, n_sax, g_unev, base, reps))
            rows, csv_rows = [], []
            for j in jobs:
                m = {n: q[(j, n)][0] for n in names}
                rows.append([j] + ["%.2f [%.2f-%.2f]" % q[(j, n)] for n in names]
                            + ["%.2f" % (m["ours, two servers"] / m["ours, one server"]),
                               "%.2f" % (m["ours, two servers"] / m["ours, local"]),
                               "%.2f" % (m["ours, two servers"] / m["stock, two servers"])])
                csv_rows.append([t, j] + ["%.3f" % m[n] for n in names])
            self.table(["work"] + names + ["two / one server", "two servers / local",
                                           "ours / stock, two servers"], rows, md)
            self.write_csv("remote-split.csv", ["threads", "work"] + names, csv_rows)
            if retries[0]:
                md.append("PoCL-R's client hung or crashed %d time(s) and was run again.\n"
                          % retries[0])
        finally:
            for proc in servers:
                proc.terminate()
            for proc in servers:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        return md

    # --- 2. uneven work -------------------------------------------------

    def uneven(self):
        G, base = (200, 2000) if self.smoke else (4000, 20000)
        self.md.append("## 2. Uneven work\n")
        self.md.append("%d work-groups of one work-item; work-group g loops a number of times that "
                       "depends on the profile (mean about %d iterations): `linear` grows with g, `band` "
                       "makes the middle fifth 16x dearer, `period` makes every T-th group 4x dearer (T = "
                       "threads), `flat` is even. Milliseconds per launch and efficiency = ceiling / time; "
                       "the ceiling is the same work in plain pthreads with a perfect split (each thread a "
                       "contiguous range of equal total cost). The OpenMP rows run the same C loop. %s\n"
                       % (G, base, self.peer_line()))
        variants = ["ceiling", "static", "guided", "stock", "gomp-static", "gomp-dynamic",
                    "gomp-guided", "libomp-static_steal"]
        have_libomp = os.path.exists(self.tool("c_uneven_libomp"))
        if not have_libomp:
            variants.remove("libomp-static_steal")
        variants += self.peer_variants()
        rows, csv_rows = [], []
        for t in self.threads:
            for p in PROFILES:
                def measure(v):
                    if v == "ceiling":
                        out = self.run([self.tool("c_uneven_gomp"), "ceiling", p, str(G), str(base), str(t)])
                    elif v.startswith("gomp-"):
                        env = dict(os.environ, OMP_SCHEDULE=v[5:], OMP_NUM_THREADS=str(t))
                        out = self.run([self.tool("c_uneven_gomp"), "omp", p, str(G), str(base), str(t)], env)
                    elif v.startswith("libomp-"):
                        env = dict(os.environ, OMP_SCHEDULE=v[7:], OMP_NUM_THREADS=str(t))
                        out = self.run([self.tool("c_uneven_libomp"), "omp", p, str(G), str(base), str(t)], env)
                    else:
                        out = self.run([self.tool("cl_uneven"), p, str(G), str(base), str(t)],
                                       self.pocl_env(v, t))
                    return self.field(out, "median_ms")
                med = self.alternate(variants, measure)
                for v in variants:
                    eff = med["ceiling"] / med[v] if med[v] > 0 else 0
                    rows.append([t, p, v, "%.2f" % med[v], "%.2f" % eff])
                    csv_rows.append([t, p, v, "%.4f" % med[v], "%.4f" % eff])
        self.table(["threads", "profile", "variant", "ms", "efficiency"], rows)
        self.write_csv("uneven.csv", ["threads", "profile", "variant", "ms", "efficiency"], csv_rows)
        t0 = self.threads[0]
        with open(os.path.join(self.out, "uneven.dat"), "w") as f:
            f.write("profile " + " ".join(variants) + "\n")
            for p in PROFILES:
                f.write(p + " " + " ".join(r[4] for r in csv_rows if r[0] == t0 and r[1] == p) + "\n")
        cols = ", ".join("'uneven.dat' using %d:xtic(1) title '%s'" % (i + 2, v) for i, v in enumerate(variants))
        self.gnuplot("uneven", "set terminal pngcairo size 1000,520\nset output 'uneven.png'\n"
                     "set style data histograms\nset style histogram clustered\nset style fill solid 0.8\n"
                     "set yrange [0:1.1]\nset ylabel 'efficiency (ceiling / time), %d threads'\n"
                     "set key outside right\nset grid ytics\nplot %s\n" % (t0, cols))

    # --- 3. locality ----------------------------------------------------

    def locality(self):
        G = 64 if self.smoke else 1024
        spins = 2000 if self.smoke else 20000
        launches = 4 if self.smoke else 12
        self.md.append("## 3. Locality\n")
        self.md.append("%d balanced launches of %d work-groups (4 work-items, %d iterations each): the "
                       "fraction of work-groups run by the same thread as in the previous launch. The "
                       "thread is told by the address of a `__local` variable: every worker of PoCL's CPU "
                       "drivers, ours and stock, has its own local memory. The pictures show, for the first "
                       "thread count, which thread (colour) ran which work-group (x) in each launch (y). "
                       "PoCL's TBB device gives each of its threads local memory of its own too. %s\n"
                       % (launches, G, spins, self.peer_line()))
        variants = ["static", "guided", "stock"] + self.peer_variants()
        rows, csv_rows = [], []
        for t in self.threads:
            def measure(v):
                out = self.run([self.tool("cl_where"), "--groups", str(G), "--launches", str(launches),
                                "--spins", str(spins)], self.pocl_env(v, t))
                return self.field(out, "same_as_previous")
            med = self.alternate(variants, measure)
            rows.append([t] + ["%.3f" % med[v] for v in variants])
            csv_rows.append([t] + ["%.4f" % med[v] for v in variants])
        self.table(["threads"] + ["%s" % v for v in variants], rows)
        self.write_csv("locality.csv", ["threads"] + variants, csv_rows)
        t0 = self.threads[0]
        for v in variants:
            v_file = v.replace("@", "-")
            self.run([self.tool("cl_where"), "--groups", str(G), "--launches", str(launches),
                      "--spins", str(spins), "--map", os.path.join(self.out, "where-%s.dat" % v_file)],
                     self.pocl_env(v, t0))
            self.gnuplot("locality-%s" % v_file,
                         "set terminal pngcairo size 900,300\nset output 'locality-%s.png'\n"
                         "set title '%s, %d threads: thread per work-group and launch'\n"
                         "set xlabel 'work-group'\nset ylabel 'launch'\nset cblabel 'thread'\n"
                         "set xrange [-0.5:%d]\nset yrange [-0.5:%d]\nset cbrange [-0.5:%d]\n"
                         "set cbtics 1\nset palette maxcolors %d\n"
                         "unset key\nset palette defined (0 '#1b9e77', 1 '#d95f02', 2 '#7570b3', "
                         "3 '#e7298a', 4 '#66a61e', 5 '#e6ab02', 6 '#a6761d', 7 '#666666')\n"
                         "plot 'where-%s.dat' using 2:1:3 with image\n"
                         % (v_file, v, t0, G - 0.5, launches - 0.5, max(t0, 2) - 0.5, max(t0, 2), v_file))

    # --- 4. first-touch bandwidth ---------------------------------------

    def bandwidth(self):
        n = 1 << (18 if self.smoke else 25)
        reps = 3 if self.smoke else 10
        self.md.append("## 4. First-touch bandwidth\n")
        self.md.append("Two arrays of %d floats (%d MiB each) initialised by a kernel, then SAXPY over "
                       "them, GB/s (3 x 4 bytes per element), threads pinned: `POCL_AFFINITY=1` for PoCL "
                       "(stock pins worker i to CPU i), `OMP_PROC_BIND=spread OMP_PLACES=cores` for the "
                       "OpenMP static loop on the same data. This machine has %d NUMA node(s); first-touch "
                       "placement only matters with more than one. %s\n"
                       % (n, n * 4 >> 20, self.nodes, self.peer_line()))
        variants = ["static", "guided", "stock", "omp"] + self.peer_variants()
        rows, csv_rows = [], []
        for t in self.threads[:1]:
            def measure(v):
                if v == "omp":
                    env = dict(os.environ, OMP_NUM_THREADS=str(t), OMP_PROC_BIND="spread", OMP_PLACES="cores")
                    out = self.run([self.tool("omp_saxpy"), str(n), str(reps)], env)
                else:
                    out = self.run([self.tool("cl_saxpy"), str(n), str(reps)],
                                   self.pocl_env(v, t, {"POCL_AFFINITY": "1"}))
                return self.field(out, "median_gbs")
            med = self.alternate(variants, measure)
            rows.append([t, self.nodes] + ["%.2f" % med[v] for v in variants])
            csv_rows.append([t, self.nodes] + ["%.3f" % med[v] for v in variants])
        self.table(["threads", "NUMA nodes"] + ["%s GB/s" % v for v in variants], rows)
        self.write_csv("bandwidth.csv", ["threads", "nodes"] + variants, csv_rows)

    # --- 5. the dispatch module alone -----------------------------------

    def dispatch(self):
        threads = [1, 2, 4, 8] if self.smoke else [1, 2, 4, 8, 16, 32, 64]
        launches = 20 if self.smoke else 100
        self.md.append("## 5. The dispatch module alone\n")
        self.md.append("No PoCL: T threads claim L launches of G empty work-groups, meeting at a barrier "
                       "before each. `static` and `guided` are `driver/wg_dispatch.c`; `mutex` is PoCL's "
                       "previous dispenser (the guided rule under a mutex); `atomic` is one shared counter, "
                       "a work-group per fetch-and-add. Microseconds per launch (barrier included, the same "
                       "for all), microseconds one thread spends claiming until nothing is left (the "
                       "dispatch overhead of a launch), claims and steals (takeovers and half-steals, static "
                       "only) per launch, and million claims per second (all threads' claims "
                       "over the claiming time of one); schemes alternate within each run, medians of "
                       "rounds.\n")
        rows, csv_rows = [], []
        for g in [64, 16384]:
            for t in threads:
                out = self.run([self.tool("dispatch_bench"), "--threads", str(t), "--groups", str(g),
                                "--launches", str(launches)])
                for line in out.splitlines():
                    s = re.search(r"scheme=(\w+)", line).group(1)
                    us = self.field(line, "us_per_launch")
                    cu = self.field(line, "claim_us_per_launch")
                    cl = self.field(line, "claims_per_launch")
                    st = self.field(line, "steals_per_launch")
                    mc = self.field(line, "mclaims_per_s")
                    rows.append([g, t, s, "%.2f" % us, "%.2f" % cu, "%.0f" % cl, "%.1f" % st,
                                 "%.1f" % mc])
                    csv_rows.append([g, t, s, "%.3f" % us, "%.3f" % cu, "%.1f" % cl, "%.1f" % st,
                                     "%.3f" % mc])
        self.table(["work-groups", "threads", "scheme", "us/launch", "claiming us/launch",
                    "claims/launch", "steals/launch", "Mclaims/s"], rows)
        self.write_csv("dispatch.csv", ["groups", "threads", "scheme", "us_per_launch",
                                        "claim_us_per_launch", "claims_per_launch",
                                        "steals_per_launch", "mclaims_per_s"], csv_rows)
        with open(os.path.join(self.out, "dispatch.dat"), "w") as f:
            for s in ["static", "guided", "mutex", "atomic"]:
                f.write("# %s, 16384 work-groups\n" % s)
                for r in csv_rows:
                    if r[0] == 16384 and r[2] == s:
                        f.write("%d %s\n" % (r[1], r[4]))
                f.write("\n\n")
        self.gnuplot("dispatch", "set terminal pngcairo size 900,520\nset output 'dispatch.png'\n"
                     "set logscale xy\nset xlabel 'threads'\nset ylabel 'microseconds claiming, per launch "
                     "of 16384 empty work-groups'\nset grid\nset key left top\nplot "
                     + ", ".join("'dispatch.dat' index %d using 1:2 with linespoints title '%s'" % (i, s)
                                 for i, s in enumerate(["static", "guided", "mutex", "atomic"])) + "\n")

    def simulated(self):
        """The many-thread simulator's table (tests/sim/test_sim --table):
        deterministic, so one run, no rounds."""
        sim = os.path.join(self.build, "tests", "sim", "test_sim")
        self.md.append("## 6. Simulated: 2 to 256 threads\n")
        self.md.append("`tests/sim/test_sim --table`: the real `driver/wg_dispatch.c` driven from one thread "
                       "in virtual time (no PoCL, no timing: exact and repeatable), T simulated threads "
                       "started together, 4000 work-groups, one time unit per cheap work-group, claims "
                       "free. Efficiency = (work / T, at least the dearest work-group) / makespan. "
                       "`static` sizes its claims by time against a budget of 64 units (the driver's "
                       "default); `static-1` claims one work-group at a time, as before claims were sized. "
                       "`omp-steal` is a model of LLVM OpenMP's `static_steal` with chunk 1. The `jump` "
                       "profiles make work-groups 1000 times dearer part-way through: once, at the end of "
                       "every static block, and often. Shared RMW: "
                       "read-modify-writes of lines other threads write (the unclaimed count, other "
                       "threads' words), successful/failed; peeks: loads of other threads' words or of the "
                       "count; own-word CAS: a thread's claims from its own word, whose line others touch "
                       "only to steal; clock reads: the clock that sizes claims; given back: ranges given "
                       "back to the hunger latch; within its bound: D1 of `wg_dispatch.c` (sum / T + 2 x "
                       "dearest) for `static`, Graham's (sum / T + dearest) for the others. Real threads on this machine cannot show this: sections 1-5 run at "
                       "most %s threads.\n" % max(self.threads))
        out = self.run([sim, "--table"])
        header, rows = None, []
        for line in out.splitlines():
            if not line.startswith("|") or line.startswith("|---"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
            else:
                rows.append(cells)
        if header is None or not rows:
            raise RuntimeError("test_sim --table printed no table: %s" % out[-500:])
        self.table(header, rows)
        self.write_csv("simulated.csv", header, rows)
        profiles = []
        for r in rows:
            if r[0] not in profiles:
                profiles.append(r[0])
        schedules = ["static", "static-1", "guided", "omp-steal"]
        with open(os.path.join(self.out, "simulated.dat"), "w") as f:
            for p in profiles:
                for sch in schedules:
                    f.write("# %s, %s\n" % (p, sch))
                    for r in rows:
                        if r[0] == p and r[2] == sch:
                            f.write("%s %s\n" % (r[1], r[3].rstrip("%")))
                    f.write("\n\n")
        script = ["set terminal pngcairo size 1400,760", "set output 'simulated.png'",
                  "set multiplot layout 2,%d title 'efficiency by simulated threads, 4000 work-groups'"
                  % ((len(profiles) + 1) // 2),
                  "set logscale x 2", "set xrange [1.5:320]", "set xtics (2, 8, 32, 128)",
                  "set yrange [0:105]", "set grid",
                  "set xlabel 'threads'", "set ylabel 'efficiency %'", "set key bottom left"]
        for i, p in enumerate(profiles):
            script.append("set title '%s'" % p)
            script.append("plot " + ", ".join(
                "'simulated.dat' index %d using 1:2 with linespoints title '%s'"
                % (i * len(schedules) + j, sch) for j, sch in enumerate(schedules)))
        script.append("unset multiplot")
        self.gnuplot("simulated", "\n".join(script) + "\n")

    # --- 7. the emulated NUMA guest -------------------------------------

    def numa_guest(self):
        self.md.append("## 7. Emulated NUMA machines: placement only, no speed\n")
        self.md.append("The guests of `tests/numa` (QEMU in TCG mode, Debian's kernel): `2x2` is 2 nodes "
                       "of 2 CPUs, `3node` is 3 nodes of 4, 2 and 2 CPUs with 2 SMT threads per core; "
                       "as many threads as CPUs, `POCL_AFFINITY=1`. Columns: `first-touch`, pages of "
                       "two 16 MiB buffers written in work-group order that lie on the node of the "
                       "thread whose static block holds their work-group; `runner`, pages on the node "
                       "of the CPU that wrote them (checks the method); `reuse`, work-groups of the "
                       "next launch (SAXPY) run on the node that holds their pages; `home`, work-groups "
                       "of the first launch run on their static owner's CPU; `cross-node`, takeovers "
                       "and steals across nodes (ours' statistics). A random assignment gives 1 / nodes. "
                       "An emulator's CPUs are host threads: these figures show where work and pages "
                       "land, never how fast; one run each, as `make check` runs it.\n")
        if self.smoke:
            self.md.append("(not run by the smoke run)\n")
            return
        for topology in ("2x2", "3node"):
            script = os.path.join(self.build, "tests", "numa", "run-guest-%s.sh" % topology)
            if not os.path.exists(script):
                self.md.append("`%s`: not built (no PoCL 7.2 build)\n" % topology)
                continue
            r = subprocess.run([script, os.path.join(self.out, "guest-" + topology)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=900)
            if r.returncode == 77:
                self.md.append("`%s`: skipped: %s\n" % (topology, r.stdout.strip().splitlines()[-1:]))
                continue
            lines = r.stdout.splitlines()
            timing = [l for l in lines if l.startswith("guest %s:" % topology)]
            rows, header_seen = [], False
            for l in lines:
                if l.startswith("run ") and "first-touch" in l:
                    header_seen = True
                    continue
                cols = l.split()
                if header_seen and len(cols) == 6 and not l.startswith(("FAIL", "check_guest")):
                    rows.append(cols)
            self.md.append("`%s` (%s)%s:\n" % (topology, timing[0] if timing else "",
                           "" if r.returncode == 0 else ", **its checks failed**, see guest-%s/" % topology))
            header = ["run", "first-touch", "runner", "reuse", "home", "cross-node"]
            self.table(header, rows)
            self.write_csv("numa-guest-%s.csv" % topology, header, rows)

    def how_to_read(self):
        self.md.append("## How to read this report\n")
        self.md.append("- Every figure is a median over rounds in which the variants took turns, so slow "
                       "phases of a noisy machine hit all of them alike; compare within a row, not across "
                       "reports.")
        self.md.append("- Launch cost: lower is better; `static / stock` below 1 means ours is cheaper. "
                       "`omp static` is what a pool of spinning threads costs at best.")
        self.md.append("- Uneven work: efficiency 1 means as fast as a perfect split known in advance; a "
                       "static split without stealing loses on `linear` and `band`.")
        self.md.append("- Locality: 1 means every work-group ran on the same thread as in the launch "
                       "before, which is what NUMA first-touch placement needs.")
        self.md.append("- With more threads than CPUs (the second thread count on a small machine), threads "
                       "are preempted, which costs every scheduler locality and time.")
        self.md.append("")

    def run_all(self):
        self.launches = 20 if self.smoke else 100
        self.batches = 5 if self.smoke else 30
        self.machine()
        parts = (self.launch_cost, self.launch_breakdown, self.share_rule, self.contention, self.divrem,
                 self.waiters, self.remote, self.uneven, self.locality, self.bandwidth, self.dispatch, self.simulated, self.numa_guest)
        if self.only:
            unknown = set(self.only) - set(p.__name__ for p in parts)
            if unknown:
                raise SystemExit("run_bench.py: --only: no section %s; the sections: %s"
                                 % (", ".join(sorted(unknown)), ", ".join(p.__name__ for p in parts)))
            parts = [p for p in parts if p.__name__ in self.only]
        for part in parts:
            t0 = time.time()
            part()
            print("bench: %s done in %.0f s" % (part.__name__, time.time() - t0), flush=True)
        self.how_to_read()
        with open(os.path.join(self.out, "report.md"), "w") as f:
            f.write("\n".join(self.md) + "\n")
        print("bench: report in %s" % os.path.join(self.out, "report.md"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--out")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--threads")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--only", help="comma-separated sections, e.g. contention,launch_cost")
    ap.add_argument("--ours", help="another installed prefix of ours, for the main build's "
                    "'ours' variants (before/after figures; cmake/MakeStockPrefix.cmake makes one)")
    Bench(ap.parse_args()).run_all()


if __name__ == "__main__":
    sys.exit(main())
