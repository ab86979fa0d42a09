#!/usr/bin/env python3
"""Run an experiment grid: Erlang workloads on clause, and on OTP as the baseline.

    scripts/run_experiment.py EXPERIMENT.toml [--quick] [--shard I/N] [--out DIR]
                              [--clause PATH] [--workloads DIR] [--repetitions N]
                              [--no-otp] [--no-progress]

An experiment file (TOML, see experiments/default.toml) names the workloads of
experiments/workloads/ with their arguments, and the configurations to run them
under: policies ("all" = every policy `clause --policy help` lists), worker
counts ("all" = one per CPU available to this process), send modes, timer modes,
lock kinds (`--locks`), CPU binding, repetitions, and whether the same .beam also runs on OTP
(`erl +S N`). `--quick` takes the file's [quick] table: fewer workloads, their
`quick_args`, fewer repetitions.

Every run is one fresh process. The runs of one repetition are shuffled with a
seeded generator, one repetition after the other, so that drift of the machine
(heat, other load) spreads over all configurations alike. Each run's standard
output must hold the workload's result line (`workload=NAME key=value ...
result=R time_ms=T`); R is checked against the value the workload must
compute (EXPECTED below): a wrong or missing result, a non-zero exit status or a
timeout marks the run failed, and the runner exits with status 1 after the
grid, whatever the speed of the run.

Output, in DIR (default build/experiments/NAME[-quick]):
  results.csv       one row per run (COLUMNS below); with --shard I/N,
                    results.shard-I-of-N.csv. Shards hold disjoint runs of the
                    same grid; concatenating their CSVs (repeated header lines
                    are skipped by the readers; scripts/merge_results.py checks
                    them) gives the whole grid. Shards spread over machines
                    must resolve the grid alike: give worker counts and
                    policies explicitly, as "all" depends on the machine
                    (merge_results.py refuses shards whose grids differ).
  metadata.json     commit, machine, CPU model, CPUs, kernel, OTP version,
                    dates, the experiment as run (metadata.shard-I-of-N.json)
  failed/           standard output and error of every failed run
  timeline.json     one more run, traced (--trace, the latest TIMELINE_LIMIT
                    events per worker): the workload the file's `timeline`
                    key names (default: its first) under its first policy
                    with 2 workers, for the report's timeline; `timeline =
                    false` leaves it out, as does every shard but the first

Wall time, CPU time (user + system) and peak RSS come from the kernel's
accounting of the child (os.wait4); time_ms is the work as the workload itself
timed it, without the runtime's start. clause runs with --profile=FILE.json and
the counters that matter (steals, migrations, slices, latency percentiles) go
into the row.
"""

import argparse
import csv
import datetime
import json
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

try:
    import tomllib
except ImportError:  # Python < 3.11
    sys.exit("run_experiment: needs Python 3.11 or later (tomllib)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ExperimentError(Exception):
    """A problem with the experiment's description or the command line."""


# ---- the workloads: arguments and the result each must print ----------------

def _fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def _smallest_factor(n):
    d = 3
    while d * d <= n:
        if n % d == 0:
            return d
        d += 2
    return n


def _mbrot_inside(size, workers, max_iter):
    """The count mbrot.erl computes, with the same float operations in the same
    order (IEEE doubles in both), so the two agree bit for bit."""
    del workers  # the split over processes does not change the count
    step = 2.5 / size
    inside = 0
    for row in range(size):
        ci = -1.25 + row * step
        for col in range(size):
            cr = -2.0 + col * step
            zr = zi = 0.0
            k = max_iter
            while k > 0:
                zr2 = zr * zr
                zi2 = zi * zi
                if zr2 + zi2 > 4.0:
                    break
                zr, zi = zr2 - zi2 + cr, 2.0 * zr * zi + ci
                k -= 1
            if k == 0:
                inside += 1
    return inside


# name -> (argument names, function of the integer arguments giving the result)
EXPECTED = {
    "pingpong": (("pairs", "rounds"), lambda p, r: 2 * p * r),
    "threadring": (("procs", "hops"), lambda n, h: h % n + 1),
    "bang": (("senders", "messages"), lambda s, m: s * m * (m + 1) // 2),
    "big": (("procs", "pings"), lambda n, k: 2 * n * k),
    "fjthrput": (("actors", "messages"), lambda a, m: a * m),
    "fjcreate": (("procs",), lambda n: n),
    "spawntree": (("n",), _fib),
    "chameneos": (("creatures", "meetings"), lambda c, m: 2 * m),
    "serialmsg": (("pairs", "messages", "length"), lambda p, m, l: p * m * l),
    "timers": (("procs", "rounds", "timeout_ms"), lambda p, r, t: p * r),
    "mbrot": (("size", "workers", "maxiter"), _mbrot_inside),
    "mixed": (("rings", "ring_size", "laps", "jobs"),
              lambda r, s, l, j: r * s * l + j * _smallest_factor(104723 * 104729)),
}
# Lower bounds the workloads need (big picks a peer other than itself).
MINIMUM = {"big": {"procs": 2}, "threadring": {"procs": 1}, "chameneos": {"creatures": 2}}

_expected_cache = {}


def expected_result(workload, args):
    """The result line's value that `workload` run with `args` must print."""
    key = (workload, tuple(args))
    if key not in _expected_cache:
        _names, fn = EXPECTED[workload]
        _expected_cache[key] = fn(*[int(a) for a in args])
    return _expected_cache[key]


RESULT_LINE = re.compile(r"^workload=\S+(\s+\S+=\S+)*\s*$")


def parse_result_line(stdout):
    """The key=value fields of the last result line in a run's output, or None."""
    found = None
    for line in stdout.splitlines():
        line = line.strip()
        if RESULT_LINE.match(line):
            found = dict(field.split("=", 1) for field in line.split())
    return found


def check_output(workload, args, stdout):
    """(status, result, time_ms): status is "ok", "no_result" or "wrong_result"."""
    fields = parse_result_line(stdout)
    if fields is None or fields.get("workload") != workload or "result" not in fields:
        return "no_result", "", ""
    result = fields["result"]
    time_ms = fields.get("time_ms", "")
    try:
        value = int(result)
    except ValueError:
        return "wrong_result", result, time_ms
    if value != expected_result(workload, args):
        return "wrong_result", result, time_ms
    return "ok", result, time_ms


# ---- the experiment file ------------------------------------------------------

# The kinds `clause --locks help` lists (how the executor's two locks are
# built), the default first.
LOCK_KINDS = ("spin-futex", "pthread", "adaptive", "ticket", "mcs", "cas")
LOCK_DEFAULT = LOCK_KINDS[0]


def clause_policy_defaults(clause):
    """The policies `clause --policy help` lists (a line starting with the
    name), each with its parameters' defaults in order (the indented
    "key=default" lines under it): {name: [(key, default), ...]}."""
    proc = subprocess.run([clause, "--policy", "help"], capture_output=True, text=True)
    policies = {}
    current = None
    for line in (proc.stdout + proc.stderr).splitlines():
        match = re.match(r"^([a-z][a-z0-9_]*)\b", line)
        if match and not line.lower().startswith(("policies", "usage", "available")):
            current = match.group(1)
            policies[current] = []
            continue
        param = re.match(r"^\s+([a-z][a-z0-9_]*)=(\S*)", line)
        if param and current:
            policies[current].append((param.group(1), param.group(2)))
    if not policies:
        raise ExperimentError(f"{clause} --policy help listed no policies")
    return policies


def clause_policies(clause):
    """The names of the policies `clause --policy help` lists."""
    return list(clause_policy_defaults(clause))


def policy_name(spec):
    """The policy a --policy value names: "erts" of "erts:balance_every=64"."""
    return spec.split(":", 1)[0]


def effective_params(spec, defaults):
    """The parameters a --policy value runs with, every one in the policy's
    order: "key=value,key=value" (its defaults where spec gives none)."""
    given = {}
    if ":" in spec:
        for item in spec.split(":", 1)[1].split(","):
            key, _, value = item.partition("=")
            given[key] = value
    return ",".join(f"{k}={given.get(k, d)}" for k, d in defaults.get(policy_name(spec), []))


def check_policy_specs(clause, specs):
    """Refuses a policy with parameters that clause refuses, with clause's
    own one-line reason (it parses --policy before --help)."""
    for spec in specs:
        if ":" not in spec:
            continue
        proc = subprocess.run([clause, "--policy", spec, "--help"], capture_output=True, text=True)
        if proc.returncode != 0:
            reason = (proc.stderr.splitlines() or ["refused"])[0]
            raise ExperimentError(f"policy {spec!r}: {reason}")


def available_cpus():
    return len(os.sched_getaffinity(0))


def _as_list(value, what):
    if isinstance(value, (str, int)):
        return [value]
    if isinstance(value, list) and value:
        return value
    raise ExperimentError(f"{what}: expected a value or a non-empty list, got {value!r}")


def load_experiment(path, quick=False, policies=None, cpus=None, workload_dir=None):
    """Read an experiment file into a plain dict with everything resolved:
    workloads (id, name, args), policies, workers (integers), send_modes,
    timers, locks, binding, repetitions, otp, profile, timeout_s, seed.
    `policies` is the list "all" stands for; `cpus` what "all" workers means."""
    try:
        with open(path, "rb") as f:
            spec = tomllib.load(f)
    except OSError as e:
        raise ExperimentError(f"{path}: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError(f"{path}: not valid TOML: {e}")
    known = {"name", "description", "policies", "workers", "send_modes", "timers", "locks", "busy_wait", "binding",
             "repetitions", "otp", "profile", "timeout_s", "seed", "quick", "workload", "timeline"}
    unknown = set(spec) - known
    if unknown:
        raise ExperimentError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    cpus = cpus or available_cpus()
    exp = {
        "name": spec.get("name", os.path.splitext(os.path.basename(path))[0]),
        "description": spec.get("description", ""),
        "quick": quick,
        "otp": bool(spec.get("otp", True)),
        "profile": bool(spec.get("profile", True)),
        "timeout_s": float(spec.get("timeout_s", 300)),
        "seed": int(spec.get("seed", 1)),
        "cpus": cpus,
    }
    quick_spec = spec.get("quick", {})
    unknown = set(quick_spec) - {"repetitions", "workloads"}
    if unknown:
        raise ExperimentError(f"{path}: [quick]: unknown key(s) {', '.join(sorted(unknown))}")
    if quick and not quick_spec:
        raise ExperimentError(f"{path}: --quick given but the file has no [quick] table")
    exp["repetitions"] = int((quick_spec if quick and "repetitions" in quick_spec else spec)
                             .get("repetitions", 5))
    if exp["repetitions"] < 1:
        raise ExperimentError(f"{path}: repetitions must be at least 1")

    pol = _as_list(spec.get("policies", "all"), "policies")
    if pol == ["all"]:
        if policies is None:
            raise ExperimentError("policies = \"all\" needs the list of clause's policies")
        pol = list(policies)
    elif policies is not None:
        for p in pol:
            if not isinstance(p, str) or policy_name(p) not in policies:
                raise ExperimentError(f"{path}: unknown policy {p!r} (clause has: {', '.join(policies)})")
    exp["policies"] = pol

    workers = []
    for w in _as_list(spec.get("workers", [1, "all"]), "workers"):
        if w == "all":
            w = cpus
        if not isinstance(w, int) or not 1 <= w <= 1024:
            raise ExperimentError(f"{path}: workers must be 1..1024 or \"all\", got {w!r}")
        if w not in workers:
            workers.append(w)
    exp["workers"] = workers
    exp["send_modes"] = _as_list(spec.get("send_modes", ["arrivals"]), "send_modes")
    exp["timers"] = _as_list(spec.get("timers", ["thread"]), "timers")
    exp["binding"] = _as_list(spec.get("binding", ["none"]), "binding")
    locks = _as_list(spec.get("locks", [LOCK_DEFAULT]), "locks")
    exp["locks"] = list(LOCK_KINDS) if locks == ["all"] else locks
    for k in exp["locks"]:
        if k not in LOCK_KINDS:
            raise ExperimentError(f"{path}: locks must be among {', '.join(LOCK_KINDS)} or \"all\", got {k!r}")
    exp["busy_wait"] = _as_list(spec.get("busy_wait", [0]), "busy_wait")
    for n in exp["busy_wait"]:
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 100000000:
            raise ExperimentError(f"{path}: busy_wait must be integers 0..100000000 (--busy-wait N), got {n!r}")
    for m in exp["send_modes"]:
        if m not in ("arrivals", "blocking"):
            raise ExperimentError(f"{path}: send mode must be arrivals or blocking, got {m!r}")
    for m in exp["timers"]:
        if m not in ("thread", "workers"):
            raise ExperimentError(f"{path}: timers must be thread or workers, got {m!r}")

    entries = spec.get("workload", [])
    if not entries:
        raise ExperimentError(f"{path}: no [[workload]] entries")
    workloads, ids = [], set()
    for entry in entries:
        unknown = set(entry) - {"name", "id", "args", "quick_args"}
        if unknown:
            raise ExperimentError(f"{path}: [[workload]] {entry.get('name')!r}: unknown key(s) "
                                  f"{', '.join(sorted(unknown))}")
        name = entry.get("name")
        if name not in EXPECTED:
            raise ExperimentError(f"{path}: unknown workload {name!r} (known: {', '.join(sorted(EXPECTED))})")
        if workload_dir and not os.path.exists(os.path.join(workload_dir, name + ".erl")):
            raise ExperimentError(f"{path}: workload {name!r} has no {name}.erl in {workload_dir}")
        wid = entry.get("id", name)
        if wid in ids:
            raise ExperimentError(f"{path}: workload id {wid!r} appears twice (give each an id)")
        ids.add(wid)
        args = entry.get("quick_args", entry.get("args")) if quick else entry.get("args")
        arg_names = EXPECTED[name][0]
        if not isinstance(args, list) or len(args) != len(arg_names):
            raise ExperimentError(f"{path}: workload {wid!r} takes {len(arg_names)} argument(s) "
                                  f"({' '.join(arg_names)}), got {args!r}")
        for a, an in zip(args, arg_names):
            if not isinstance(a, int) or a < MINIMUM.get(name, {}).get(an, 0):
                raise ExperimentError(f"{path}: workload {wid!r}: {an} must be an integer "
                                      f">= {MINIMUM.get(name, {}).get(an, 0)}, got {a!r}")
        workloads.append({"id": wid, "name": name, "args": [str(a) for a in args]})
    if quick:
        chosen = quick_spec.get("workloads")
        if chosen:
            for wid in chosen:
                if wid not in ids:
                    raise ExperimentError(f"{path}: [quick] names unknown workload {wid!r}")
            workloads = [w for w in workloads if w["id"] in chosen]
    exp["workloads"] = workloads
    timeline = spec.get("timeline", True)
    if timeline is True:
        exp["timeline"] = workloads[0]["id"] if workloads else None
    elif timeline is False:
        exp["timeline"] = None
    elif isinstance(timeline, str) and timeline in {w["id"] for w in workloads}:
        exp["timeline"] = timeline
    else:
        raise ExperimentError(f"{path}: timeline must be a workload id of the grid ("
                              f"{', '.join(w['id'] for w in workloads)}), true or false, got {timeline!r}")
    return exp


# ---- the grid -----------------------------------------------------------------

def configurations(exp):
    """Every (workload, runtime configuration) point, in a fixed order."""
    points = []
    for w in exp["workloads"]:
        for workers in exp["workers"]:
            for binding in exp["binding"]:
                for policy in exp["policies"]:
                    for send in exp["send_modes"]:
                        for timers in exp["timers"]:
                            for locks in exp.get("locks", [LOCK_DEFAULT]):
                                for spin in exp.get("busy_wait", [0]):
                                    points.append({"workload_id": w["id"], "workload": w["name"],
                                                   "args": w["args"], "runtime": "clause", "policy": policy,
                                                   "workers": workers, "send_mode": send, "timers": timers,
                                                   "locks": locks, "busy_wait": spin, "binding": binding})
                if exp["otp"]:
                    points.append({"workload_id": w["id"], "workload": w["name"], "args": w["args"],
                                   "runtime": "otp", "policy": "otp", "workers": workers,
                                   "send_mode": "", "timers": "", "locks": "", "busy_wait": "",
                                   "binding": binding})
    return points


def grid(exp):
    """All runs: each repetition holds every point once, shuffled by a generator
    seeded with the experiment's seed and the repetition, so the order is the
    same on every machine and every shard. run_index numbers the runs 0..N-1."""
    points = configurations(exp)
    runs = []
    for rep in range(1, exp["repetitions"] + 1):
        order = list(range(len(points)))
        random.Random(exp["seed"] * 1000003 + rep).shuffle(order)
        for i in order:
            runs.append(dict(points[i], repetition=rep, run_index=len(runs)))
    return runs


def parse_shard(text):
    """"I/N" (1 <= I <= N) -> (I, N)."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not match:
        raise ExperimentError(f"bad shard {text!r}: expected I/N, such as 2/8")
    i, n = int(match.group(1)), int(match.group(2))
    if n < 1 or not 1 <= i <= n:
        raise ExperimentError(f"bad shard {text!r}: need 1 <= I <= N")
    return i, n


def shard_runs(runs, shard):
    """The runs of shard (I, N): every N-th run starting at the (I-1)-th, so a
    shard samples every repetition and configuration alike."""
    i, n = shard
    return [r for r in runs if r["run_index"] % n == i - 1]


# ---- running ------------------------------------------------------------------

COLUMNS = [
    "run_index", "experiment", "workload_id", "workload", "params", "runtime", "policy", "policy_params", "workers",
    "cpus_available", "send_mode", "timers", "locks", "busy_wait", "binding", "repetition", "status", "exit_status", "result",
    "time_ms", "wall_ms", "cpu_ms", "user_ms", "sys_ms", "max_rss_kb",
    "slices", "reductions", "steals", "steal_attempts", "migrations", "wakeups", "sleeps", "balance_taken",
    "spawned", "sends", "receives", "timer_fires", "jain_workers",
    "rq_wait_p50_ns", "rq_wait_p99_ns", "rq_wait_p999_ns",
    "msg_delivery_p50_ns", "msg_delivery_p99_ns", "msg_delivery_p999_ns", "msg_delivery_count",
    "latency_sample_interval", "busy_wait_found", "busy_wait_slept",
    "lock_exec_acquisitions", "lock_exec_contended", "lock_exec_wait_ns", "lock_exec_hold_ns",
    "lock_rq_acquisitions", "lock_rq_contended", "lock_rq_wait_ns", "lock_rq_hold_ns",
]
# Columns a results file may lack, written before they existed, and what such
# a file's clause rows meant (OTP rows read empty): before the locks column,
# the locks were glibc's default mutex.
# The locks' totals (--profile's "locks"): column lock_SHORT_FIELD per lock.
LOCK_COLUMNS = {"exec": "executor", "rq": "run_queue"}
LOCK_FIELDS = ("acquisitions", "contended", "wait_ns", "hold_ns")
COLUMNS_ADDED_LATER = {"locks": "pthread", "policy_params": "", "busy_wait": "0",
                       "busy_wait_found": "", "busy_wait_slept": "",
                       **{f"lock_{short}_{field}": "" for short in LOCK_COLUMNS for field in LOCK_FIELDS}}


def profile_fields(profile):
    """The CSV's share of a --profile JSON document."""
    total = profile.get("total", {})
    msgs = profile.get("messages", {})
    lat = profile.get("latencies", {})
    rq = lat.get("run_queue_wait", {})
    md = lat.get("message_delivery", {})
    return {
        "slices": total.get("slices", ""),
        "reductions": total.get("reductions", ""),
        "steals": total.get("steals", ""),
        "steal_attempts": total.get("steal_attempts", ""),
        "migrations": total.get("migrations_in", ""),
        "wakeups": total.get("wakeups_sent", ""),
        "sleeps": total.get("sleeps", ""),
        "balance_taken": total.get("balance_taken", ""),
        "spawned": profile.get("processes", {}).get("spawned", ""),
        "sends": sum(msgs.get(k, 0) for k in ("sends_direct", "sends_arrivals", "sends_self")),
        "receives": msgs.get("receives", ""),
        "timer_fires": profile.get("timers", {}).get("fired", ""),
        "jain_workers": profile.get("fairness", {}).get("jain_worker_running", ""),
        "rq_wait_p50_ns": rq.get("p50_ns", ""),
        "rq_wait_p99_ns": rq.get("p99_ns", ""),
        "rq_wait_p999_ns": rq.get("p99.9_ns", ""),
        "msg_delivery_p50_ns": md.get("p50_ns", ""),
        "msg_delivery_p99_ns": md.get("p99_ns", ""),
        "msg_delivery_p999_ns": md.get("p99.9_ns", ""),
        "msg_delivery_count": md.get("count", ""),
        "latency_sample_interval": profile.get("configuration", {}).get("sample_interval", ""),
        "busy_wait_found": total.get("busy_wait_found", ""),
        "busy_wait_slept": total.get("busy_wait_slept", ""),
        **lock_fields(profile.get("locks")),
    }


def lock_fields(locks):
    """The executor's two locks' totals (empty when not measured)."""
    return {f"lock_{short}_{field}": (locks[name]["total"][field] if locks else "")
            for short, name in LOCK_COLUMNS.items() for field in LOCK_FIELDS}


def command_for(run, clause, beam_dir, profile_path):
    beam = os.path.join(beam_dir, run["workload"] + ".beam")
    if run["runtime"] == "clause":
        cmd = [clause, "--schedulers", str(run["workers"]), "--policy", run["policy"],
               "--send-mode", run["send_mode"], "--timers", run["timers"],
               "--locks", run.get("locks", LOCK_DEFAULT), "--busy-wait", str(run.get("busy_wait", 0))]
        if run["binding"] != "none":
            cmd += ["--scheduler-cpus", run["binding"]]
        if profile_path:
            cmd.append("--profile=" + profile_path)
        return cmd + [beam] + run["args"]
    cmd = ["erl", "-noshell", "+S", f"{run['workers']}:{run['workers']}"]
    if run["binding"] != "none":
        cmd += ["+sbt", "db"]
    return cmd + ["-pa", beam_dir, "-run", run["workload"], "main"] + run["args"] + ["-s", "init", "stop"]


def execute(cmd, timeout_s):
    """Run cmd; (exit status or None on timeout, stdout, stderr, wall_s, rusage)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout_s, kill)
        timer.start()
        try:
            _pid, status, usage = os.wait4(proc.pid, 0)
        except BaseException:  # interrupted (Ctrl-C): leave no run behind
            kill()
            os.wait4(proc.pid, 0)
            proc.returncode = -signal.SIGKILL
            raise
        finally:
            timer.cancel()
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped: Popen must not wait
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    return (None if timed_out.is_set() else proc.returncode), stdout, stderr, wall, usage


# The traced run keeps this many events per worker: the end of the run, a
# picture of about a few thousand slices that stays readable.
TIMELINE_LIMIT = 3000
TIMELINE_WORKERS = 2


def traced_run(exp, clause, beam_dir, out):
    """The timeline's run: out/timeline.json and what it was, or None (with a
    warning) when it failed; the grid's status does not depend on it."""
    workload = next(w for w in exp["workloads"] if w["id"] == exp["timeline"])
    path = os.path.join(out, "timeline.json")
    if os.path.exists(path):
        os.remove(path)
    run = {"runtime": "clause", "workload": workload["name"], "args": workload["args"],
           "workers": TIMELINE_WORKERS, "policy": exp["policies"][0], "send_mode": exp["send_modes"][0],
           "timers": exp["timers"][0], "locks": exp["locks"][0], "busy_wait": exp["busy_wait"][0],
           "binding": exp["binding"][0]}
    cmd = command_for(run, clause, beam_dir, None)
    cmd[1:1] = [f"--trace={path}", f"--trace-limit={TIMELINE_LIMIT}"]
    status, _out, err, _wall, _usage = execute(cmd, exp["timeout_s"])
    if status != 0 or not os.path.exists(path):
        sys.stderr.write(f"run_experiment: the traced run failed (status {status}): {err.strip()[:200]}\n")
        return None
    return {"workload_id": workload["id"], "workload": workload["name"], "args": workload["args"],
            "policy": run["policy"], "workers": TIMELINE_WORKERS, "trace_limit": TIMELINE_LIMIT,
            "file": "timeline.json",
            "command": " ".join(os.path.basename(c) if c.endswith(".beam") or c == clause else c for c in cmd)}


def run_one(run, exp, clause, beam_dir, work_dir, failed_dir):
    profile_path = None
    if run["runtime"] == "clause" and exp["profile"]:
        profile_path = os.path.join(work_dir, f"profile-{run['run_index']}.json")
    cmd = command_for(run, clause, beam_dir, profile_path)
    code, stdout, stderr, wall, usage = execute(cmd, exp["timeout_s"])
    if code is None:
        status, result, time_ms = "timeout", "", ""
    else:
        status, result, time_ms = check_output(run["workload"], run["args"], stdout)
        if code != 0:
            status = f"exit_{code}"
    row = {c: "" for c in COLUMNS}
    row.update({
        "run_index": run["run_index"], "experiment": exp["name"] + ("-quick" if exp["quick"] else ""),
        "workload_id": run["workload_id"], "workload": run["workload"],
        "params": " ".join(f"{n}={a}" for n, a in zip(EXPECTED[run["workload"]][0], run["args"])),
        "runtime": run["runtime"], "policy": run["policy"],
        "policy_params": exp.get("policy_params", {}).get(run["policy"], "") if run["runtime"] == "clause" else "",
        "workers": run["workers"], "cpus_available": exp["cpus"], "send_mode": run["send_mode"], "timers": run["timers"],
        "locks": run.get("locks", ""), "busy_wait": run.get("busy_wait", ""),
        "binding": run["binding"], "repetition": run["repetition"], "status": status,
        "exit_status": "" if code is None else code, "result": result, "time_ms": time_ms,
        "wall_ms": f"{wall * 1000:.3f}",
        "user_ms": f"{usage.ru_utime * 1000:.3f}", "sys_ms": f"{usage.ru_stime * 1000:.3f}",
        "cpu_ms": f"{(usage.ru_utime + usage.ru_stime) * 1000:.3f}",
        "max_rss_kb": usage.ru_maxrss,
    })
    if profile_path and os.path.exists(profile_path):
        try:
            with open(profile_path) as f:
                row.update(profile_fields(json.load(f)))
        except (OSError, ValueError):
            pass
        os.unlink(profile_path)
    if status != "ok":
        os.makedirs(failed_dir, exist_ok=True)
        with open(os.path.join(failed_dir, f"run-{run['run_index']}.txt"), "w") as f:
            f.write(f"command: {' '.join(cmd)}\nstatus: {status}\n--- stdout\n{stdout}--- stderr\n{stderr}")
    return row


class Progress:
    """done/total, elapsed and estimated remaining time on stderr: a bar
    rewritten in place on a terminal, one line per run otherwise."""

    def __init__(self, total, enabled=True):
        self.total, self.done, self.failed = total, 0, 0
        self.start = time.monotonic()
        self.enabled = enabled
        self.tty = sys.stderr.isatty()

    @staticmethod
    def clock(seconds):
        seconds = int(seconds)
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"

    def step(self, row):
        self.done += 1
        self.failed += row["status"] != "ok"
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        remaining = elapsed / self.done * (self.total - self.done)
        width = 30
        filled = width * self.done // max(self.total, 1)
        text = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"elapsed {self.clock(elapsed)} remaining ~{self.clock(remaining)}"
                + (f" failed {self.failed}" if self.failed else ""))
        if self.tty:
            sys.stderr.write("\r" + text + ("\n" if self.done == self.total else ""))
        else:
            sys.stderr.write(f"{text}  {row['workload_id']} {row['runtime']} {row['policy']} "
                             f"w={row['workers']} rep={row['repetition']} {row['status']}\n")
        sys.stderr.flush()


def write_csv(path, rows):
    """rows (dicts keyed by COLUMNS) into a new CSV file with a header."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(row)


def read_csv(paths):
    """Rows of one or more results CSVs, or of their concatenation: a line
    repeating the header (the next shard's) is skipped. Every file must have
    the same header. A file written before some columns existed
    (COLUMNS_ADDED_LATER) has the others in the same order; its clause rows
    read as if they said what the missing columns' defaults were then."""
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                continue
            missing = [c for c in COLUMNS if c not in header]
            if [c for c in COLUMNS if c in header] != header or any(c not in COLUMNS_ADDED_LATER for c in missing):
                raise ExperimentError(f"{path}: not a results file of this runner (header differs)")
            for record in reader:
                if record == header:
                    continue
                if len(record) != len(header):
                    raise ExperimentError(f"{path}: line {reader.line_num} has {len(record)} fields, "
                                          f"expected {len(header)}")
                row = dict(zip(header, record))
                for c in missing:
                    row[c] = COLUMNS_ADDED_LATER[c] if row["runtime"] == "clause" else ""
                rows.append(row)
    return rows


# ---- metadata -----------------------------------------------------------------

def _command_output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def machine_metadata(clause):
    cpu_model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "commit": _command_output(["git", "-C", ROOT, "rev-parse", "HEAD"]),
        "describe": _command_output(["git", "-C", ROOT, "describe", "--always", "--dirty"]),
        "clause_version": _command_output([clause, "--version"]),
        "hostname": platform.node(),
        "cpu_model": cpu_model,
        "cpus_online": os.cpu_count(),
        "cpus_available": available_cpus(),
        "kernel": platform.release(),
        "os": _command_output(["sh", "-c", ". /etc/os-release && echo \"$PRETTY_NAME\""]),
        "otp_release": _command_output(["erl", "-noshell", "-eval",
                                        "io:format(\"~s (erts ~s)\", [erlang:system_info(otp_release), "
                                        "erlang:system_info(version)]), halt()."]),
        "python": platform.python_version(),
    }


# ---- main ---------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description="Run an experiment grid on clause and OTP.",
                                 epilog="See the top of this file for the experiment file and the output.")
    ap.add_argument("experiment", help="experiment file (TOML), e.g. experiments/default.toml")
    ap.add_argument("--quick", action="store_true", help="the file's [quick] grid")
    ap.add_argument("--shard", help="run only shard I of N (I/N, 1-based)")
    ap.add_argument("--out", help="results folder (default build/experiments/NAME[-quick])")
    ap.add_argument("--clause", default=os.path.join(ROOT, "build", "clause"), help="the clause executable")
    ap.add_argument("--workloads", default=os.path.join(ROOT, "experiments", "workloads"),
                    help="folder of the workloads' .erl files")
    ap.add_argument("--repetitions", type=int, help="override the file's repetitions")
    ap.add_argument("--no-otp", action="store_true", help="skip the OTP baseline")
    ap.add_argument("--no-progress", action="store_true", help="no progress output")
    opts = ap.parse_args(argv)
    try:
        return run(opts)
    except ExperimentError as e:
        print(f"run_experiment: {e}", file=sys.stderr)
        return 2


def run(opts):
    shard = parse_shard(opts.shard) if opts.shard else None
    if not (os.path.isfile(opts.clause) and os.access(opts.clause, os.X_OK)):
        raise ExperimentError(f"{opts.clause}: no clause executable (run make first)")
    for tool in ("erlc", "erl"):
        if shutil.which(tool) is None:
            raise ExperimentError(f"{tool} not found (scripts/deps.sh installs erlang-base)")
    defaults = clause_policy_defaults(opts.clause)
    exp = load_experiment(opts.experiment, quick=opts.quick, policies=list(defaults), workload_dir=opts.workloads)
    check_policy_specs(opts.clause, exp["policies"])
    exp["policy_params"] = {spec: effective_params(spec, defaults) for spec in exp["policies"]}
    if opts.repetitions is not None:
        if opts.repetitions < 1:
            raise ExperimentError("--repetitions must be at least 1")
        exp["repetitions"] = opts.repetitions
    if opts.no_otp:
        exp["otp"] = False
    out = opts.out or os.path.join(ROOT, "build", "experiments", exp["name"] + ("-quick" if opts.quick else ""))
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="clause-exp-") as work_dir:
        return run_grid(opts, exp, shard, out, work_dir)


def run_grid(opts, exp, shard, out, work_dir):
    """Compile the workloads into work_dir, run the grid (or shard), write the CSV and metadata."""
    beam_dir = os.path.join(work_dir, "beam")
    os.makedirs(beam_dir)
    names = sorted({w["name"] for w in exp["workloads"]})
    # fjcreate calls fjthrput:work/1.
    sources = sorted(set(names) | ({"fjthrput"} if "fjcreate" in names else set()))
    compiled = subprocess.run(["erlc", "-o", beam_dir] +
                              [os.path.join(opts.workloads, n + ".erl") for n in sources],
                              capture_output=True, text=True)
    if compiled.returncode != 0:
        raise ExperimentError("erlc failed:\n" + compiled.stdout + compiled.stderr)

    runs = grid(exp)
    total_runs = len(runs)
    if shard:
        runs = shard_runs(runs, shard)
    suffix = f".shard-{shard[0]}-of-{shard[1]}" if shard else ""
    csv_path = os.path.join(out, f"results{suffix}.csv")
    meta_path = os.path.join(out, f"metadata{suffix}.json")
    failed_dir = os.path.join(out, "failed")
    if os.path.isdir(failed_dir):
        shutil.rmtree(failed_dir)

    meta = machine_metadata(opts.clause)
    meta.update({
        "experiment_file": os.path.relpath(os.path.abspath(opts.experiment), ROOT),
        "experiment": {k: v for k, v in exp.items()},
        "command": " ".join([os.path.relpath(sys.argv[0], ROOT) if sys.argv and sys.argv[0] else
                             "scripts/run_experiment.py"] + sys.argv[1:]),
        "shard": f"{shard[0]}/{shard[1]}" if shard else None,
        "grid_runs": total_runs,
        "shard_runs": len(runs),
        "started_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "timing": "time_ms: the work as timed by the workload; wall_ms, cpu_ms, max_rss_kb: the whole "
                  "process (start-up included) from os.wait4",
        "clause_profile": exp["profile"],
    })
    sys.stderr.write(f"run_experiment: {len(runs)} runs ({len(exp['workloads'])} workloads, policies "
                     f"{', '.join(exp['policies'])}{', otp' if exp['otp'] else ''}; workers "
                     f"{', '.join(map(str, exp['workers']))} of {exp['cpus']} CPUs; "
                     f"{exp['repetitions']} repetitions) -> {csv_path}\n")
    progress = Progress(len(runs), enabled=not opts.no_progress)
    rows = []
    # The CSV is rewritten after every run, so an interrupted grid keeps what it measured.
    for r in runs:
        rows.append(run_one(r, exp, opts.clause, beam_dir, work_dir, failed_dir))
        write_csv(csv_path, rows)
        progress.step(rows[-1])
    if not rows:
        write_csv(csv_path, rows)
    if exp["timeline"] and (not shard or shard[0] == 1):
        meta["timeline"] = traced_run(exp, opts.clause, beam_dir, out)
    meta["finished_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    meta["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    failed = [row for row in rows if row["status"] != "ok"]
    meta["failed_runs"] = len(failed)
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print(f"results: {csv_path}")
    print(f"metadata: {meta_path}")
    if failed:
        for row in failed[:20]:
            print(f"run_experiment: FAILED run {row['run_index']}: {row['workload_id']} ({row['params']}) on "
                  f"{row['runtime']} {row['policy']} workers={row['workers']}: {row['status']} "
                  f"(result {row['result'] or 'none'}, expected "
                  f"{expected_result(row['workload'], [p.split('=')[1] for p in row['params'].split()])})",
                  file=sys.stderr)
        print(f"run_experiment: {len(failed)} of {len(rows)} runs failed; their output is in {failed_dir}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
