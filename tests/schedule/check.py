#!/usr/bin/env python3
"""Seeded schedules end to end (--schedule, --schedule-log, --replay).

    tests/schedule/check.py CLAUSE [--seeds N] [--all] [--jobs J]

- Goldens under seeds: a sample of the goldens (timers, receive timeouts,
  links, monitors, ETS, standard input and output) under N seeds (default
  10) of each mode, random and pct; seed k runs under the k-th policy of
  `--policy help` (shifted per program) with 1, 2 or 4 workers. Every run's
  output must equal the golden's expected one (through tests/golden/normalize),
  and a second run of the same seed must give the same stdout, stderr, status,
  --profile counters and --trace file, byte for byte (only the output for a
  program that calls os:getpid(), the one thing it reads of its run). --all runs every golden under every
  policy at 1, 2 and 4 workers instead (minutes, not part of make test).
- The race: tests/schedule/race_counter.erl loses an update in some orders;
  seeds 1..100 of random must find one, its log must replay it exactly, and
  replaying that log against another program must name the step where it
  diverged (status 65).
- Bad input: an unknown mode, a missing seed, depth 0, an unreadable or
  malformed log are one line each and status 2.

Exits 1 when anything differed, after printing what.
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "golden")
SAMPLE = ["receive_timeouts", "after_infinity", "timer_bifs", "timer_lib", "timer_server_calls",
          "sleep_with_messages", "time_bifs", "links", "exit_signals", "monitors", "crash_report", "ets_shared",
          "ets_ownership", "ets_counters", "names", "messages", "spawn_messaging", "gen_server_counter",
          "supervisor_shutdown", "io_devices", "stdin_lines", "stdin_read_terms"]
# --profile's figures that measure time (or are chosen by it): the rest are counts a seed repeats.
TIMING = re.compile(r"(_ns$|_ms$|buckets|^longest_slice|jain_worker_running|^hardware_counters|^locks\.)")
failures = []


def fail(text):
    """Noted for the summary and printed at once (an --all run takes a while)."""
    failures.append(text)
    print("FAIL schedule:", text, flush=True)


def header(source, key):
    for line in open(source, encoding="utf-8"):
        if line.startswith(f"%% {key}:"):
            return line.split(":", 1)[1].strip()
    return ""


def normalize(data):
    return subprocess.run([os.path.join(GOLDEN, "normalize")], input=data, capture_output=True).stdout


def counters(doc, prefix=""):
    """The profile's counts, flattened, timing figures left out."""
    out = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.update(counters(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.update(counters(v, f"{prefix}[{i}]"))
    elif not TIMING.search(prefix):
        out[prefix] = doc
    return out


def run(clause, tmp, name, options, profile=None, trace=None, sources=None):
    """One run of program name (its .beam in tmp, its headers read from its
    source in sources, tests/programs by default)."""
    source = os.path.join(sources or os.path.join(ROOT, "tests", "programs"), name + ".erl")
    args = header(source, "args").split()
    extra = header(source, "clause-options").split()
    stdin = header(source, "stdin")
    cmd = [clause] + options + extra + (["--profile=" + profile, "--profile-events=none"] if profile else [])
    cmd += ["--trace=" + trace] if trace else []
    cmd += [os.path.join(tmp, name + ".beam")] + args
    with open(os.path.join(GOLDEN, "stdin", stdin) if stdin else os.devnull, "rb") as f:
        try:
            done = subprocess.run(cmd, stdin=f, capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:
            return None, cmd
    return done, cmd


def check_seed(clause, tmp, name, options, label):
    p1, p2 = os.path.join(tmp, label + ".1.json"), os.path.join(tmp, label + ".2.json")
    t1, t2 = os.path.join(tmp, label + ".1.trace"), os.path.join(tmp, label + ".2.trace")
    first, cmd = run(clause, tmp, name, options, p1, t1)
    second, _ = run(clause, tmp, name, options, p2, t2)
    shown = " ".join(cmd[1:])
    if first is None or second is None:
        return f"{name}: timed out: {shown}"
    want = [open(os.path.join(GOLDEN, "expected", f"{name}.{part}"), "rb").read() for part in ("stdout", "stderr")]
    status = int(open(os.path.join(GOLDEN, "expected", f"{name}.status")).read())
    if first.returncode != status or normalize(first.stdout) != want[0] or normalize(first.stderr) != want[1]:
        return f"{name}: not the golden's output (status {first.returncode}, expected {status}): {shown}"
    if (first.stdout, first.stderr, first.returncode) != (second.stdout, second.stderr, second.returncode):
        return f"{name}: two runs of one seed differ: {shown}"
    source = open(os.path.join(ROOT, "tests", "programs", name + ".erl"), encoding="utf-8").read()
    if "os:getpid" in source:
        # A name made of the OS pid differs in length from run to run, and
        # so do the reductions and words that handle it: only the output is
        # the seed's.
        return None
    c1, c2 = counters(json.load(open(p1))), counters(json.load(open(p2)))
    if c1 != c2:
        keys = sorted(k for k in set(c1) | set(c2) if c1.get(k) != c2.get(k))
        return f"{name}: --profile counters differ between two runs ({', '.join(keys[:5])}): {shown}"
    if open(t1, "rb").read() != open(t2, "rb").read():
        return f"{name}: --trace differs between two runs: {shown}"
    for path in (p1, p2, t1, t2):
        os.remove(path)
    return None


def goldens(clause, tmp, seeds, everything, jobs):
    policies = [line.split()[0] for line in subprocess.run([clause, "--policy", "help"], capture_output=True,
                                                           text=True).stdout.splitlines()
                if line and not line.startswith(" ")]
    programs = sorted(os.path.basename(p)[:-4] for p in os.listdir(os.path.join(ROOT, "tests", "programs"))
                      if p.endswith(".erl")) if everything else SAMPLE
    # One erlc for them all: each start costs about 0.3 s of CPU.
    subprocess.run(["erlc", "-W0", "-o", tmp] + [os.path.join("tests", "programs", name + ".erl") for name in programs],
                   cwd=ROOT, check=True)
    runs = []
    for i, name in enumerate(programs):
        for seed in range(1, seeds + 1):
            for mode in ("random", "pct"):
                spec = f"random:seed={seed}" if mode == "random" else f"pct:seed={seed},depth={1 + seed % 3}"
                if everything:
                    combos = [(p, n) for p in policies for n in (1, 2, 4)]
                else:
                    combos = [(policies[(seed + i) % len(policies)], (1, 2, 4)[seed % 3])]
                for policy, workers in combos:
                    label = f"{name}-{mode}-{seed}-{policy}-{workers}"
                    runs.append((name, ["--policy", policy, "--schedulers", str(workers), "--schedule", spec], label))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for done, result in enumerate(pool.map(lambda r: check_seed(clause, tmp, *r), runs), 1):
            if result:
                fail(result)
            if everything and done % 1000 == 0:
                print(f"schedule: {done} of {len(runs)} runs checked", flush=True)
    return len(runs)


# Programs with ports: their output comes from other OS processes in real
# time, so a seed does not repeat their runs step for step (--profile's
# counts and --trace differ from run to run); under seeded schedules they
# must still give the golden's output, every worker's sleep waiting for the
# ports' poller (schedule.c: quiet) instead of finding a deadlock, and for
# as long as the next timer is ahead (port_late_reply: answers 100 and
# 200 ms late under timeouts of 5 s).
PORT_PROGRAMS = ["os_cmd", "ports_spawn", "port_late_reply"]


def ports(clause, tmp):
    subprocess.run(["erlc", "-W0", "-o", tmp] + [os.path.join("tests", "programs", n + ".erl") for n in PORT_PROGRAMS],
                   cwd=ROOT, check=True)
    count = 0
    for name in PORT_PROGRAMS:
        want = [open(os.path.join(GOLDEN, "expected", f"{name}.{part}"), "rb").read() for part in ("stdout", "stderr")]
        status = int(open(os.path.join(GOLDEN, "expected", f"{name}.status")).read())
        for seed in (1, 2, 3):
            for spec in (f"random:seed={seed}", f"pct:seed={seed},depth=2"):
                done, cmd = run(clause, tmp, name, ["--schedulers", "2", "--schedule", spec])
                count += 1
                shown = " ".join(cmd[1:])
                if done is None:
                    fail(f"{name}: timed out: {shown}")
                elif done.returncode != status or normalize(done.stdout) != want[0] or normalize(done.stderr) != want[1]:
                    fail(f"{name}: not the golden's output (status {done.returncode}, expected {status}): {shown}")
    return count


def race(clause, tmp):
    subprocess.run(["erlc", "-o", tmp, os.path.join("tests", "schedule", "race_counter.erl")], cwd=ROOT, check=True)
    beam = os.path.join(tmp, "race_counter.beam")
    log = os.path.join(tmp, "race.log")
    found = None
    for seed in range(1, 101):
        done = subprocess.run([clause, "--schedulers", "2", "--schedule", f"random:seed={seed}", "--schedule-log",
                               log, beam], capture_output=True, text=True, timeout=60)
        if done.stdout == "counter 1\n":
            found = seed
            break
    if not found:
        fail("race_counter: no seed of 1..100 lost an update")
        return
    again = os.path.join(tmp, "again.log")
    done = subprocess.run([clause, "--schedulers", "2", "--replay", log, "--schedule-log", again, beam],
                          capture_output=True, text=True, timeout=60)
    if (done.stdout, done.stderr, done.returncode) != ("counter 1\n", "", 0):
        fail(f"race_counter: the replay of seed {found} gave {done.stdout!r} {done.stderr!r} {done.returncode}")
    steps = lambda path: open(path).read().split("\n", 1)[1]
    if steps(log) != steps(again):
        fail(f"race_counter: the replay of seed {found} took other steps than its log")
    other = os.path.join(tmp, "monitors.beam")
    if not os.path.exists(other):
        subprocess.run(["erlc", "-o", tmp, os.path.join("tests", "programs", "monitors.erl")], cwd=ROOT, check=True)
    done = subprocess.run([clause, "--schedulers", "2", "--replay", log, other], capture_output=True, text=True,
                          timeout=60)
    lines = done.stderr.splitlines()
    if done.returncode != 65 or not lines or not re.match(r"clause: --replay .*: diverged at step \d+: ", lines[-1]):
        fail(f"race_counter's log replayed against monitors: status {done.returncode}, stderr {done.stderr!r}")
    print(f"schedule: race_counter lost an update under random:seed={found}; its log replayed it")


def bad_input(clause, tmp):
    beam = os.path.join(tmp, "race_counter.beam")
    malformed = os.path.join(tmp, "malformed.log")
    with open(malformed, "w") as f:
        f.write("clause-schedule-log 1 workers=2 policy=erts:balance_every=4,steal=longest,wake=lazy schedule=x\n"
                "1 0 <0.1.0>\nnonsense\n")
    cases = [(["--schedule", "fifo:seed=1"], "unknown mode"), (["--schedule", "random"], "needs a seed"),
             (["--schedule", "pct:seed=1,depth=0"], "depth '0'"),
             (["--schedule", "pct:seed=1"], "needs a depth"),
             (["--replay", os.path.join(tmp, "no-such.log")], "No such file"),
             (["--replay", malformed], "line 3"),
             (["--replay", beam], "not a schedule log")]
    for options, words in cases:
        done = subprocess.run([clause, "--schedulers", "2"] + options + [beam], capture_output=True, text=True,
                              timeout=60)
        first = done.stderr.splitlines()[0] if done.stderr else ""
        if done.returncode != 2 or words not in first:
            fail(f"{' '.join(options)}: status {done.returncode}, first line {first!r} (expected 2 and '{words}')")


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: tests/schedule/check.py CLAUSE [--seeds N] [--all] [--jobs J]")
    clause = os.path.abspath(sys.argv[1])
    rest = sys.argv[2:]
    seeds = int(rest[rest.index("--seeds") + 1]) if "--seeds" in rest else 10
    jobs = int(rest[rest.index("--jobs") + 1]) if "--jobs" in rest else os.cpu_count()
    tmp = tempfile.mkdtemp(prefix="schedule-check-")
    try:
        count = goldens(clause, tmp, seeds, "--all" in rest, jobs)
        print(f"schedule: {count} seeded runs of goldens, each run twice")
        print(f"schedule: {ports(clause, tmp)} seeded runs of programs with ports, output checked")
        race(clause, tmp)
        bad_input(clause, tmp)
    finally:
        shutil.rmtree(tmp)
    print(f"schedule: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
