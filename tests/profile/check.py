#!/usr/bin/env python3
"""--profile end to end: the JSON document validates against
metrics/profile.schema.json under every configuration, and its counters match
what the programs are known to do.

    tests/profile/check.py CLAUSE

Runs tests/profile/spawn_and_wait.erl (compiled with erlc), which spawns
exactly N processes and times out K receives, and the native workloads.
Exits 1 on the first mismatch, with what differed.
"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = json.load(open(os.path.join(ROOT, "metrics", "profile.schema.json")))
N, K = 300, 7
failures = []


def run(clause, args, tmp, text=False):
    """Runs clause with --profile=FILE (and --profile when text); the document, stderr, status."""
    path = os.path.join(tmp, "profile.json")
    if os.path.exists(path):
        os.remove(path)
    options = ["--profile=" + path] + (["--profile"] if text else [])
    done = subprocess.run([clause] + options + args, capture_output=True, text=True, timeout=120)
    doc = json.load(open(path))
    try:
        jsonschema.validate(doc, SCHEMA)
    except jsonschema.ValidationError as e:
        failures.append(f"{' '.join(args)}: schema: {e.message} at {list(e.absolute_path)}")
    return doc, done.stderr, done.returncode


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: {got}, expected {want}")


def check_slices(name, doc, workers):
    """Every slice timed, per worker and in total; the longest slice is their maximum."""
    for w, worker in enumerate(doc["workers"]):
        expect(f"{name}: worker {w} slice durations", worker["slice_duration"]["count"], worker["slices"])
    total = doc["total"]
    expect(f"{name}: slice durations", total["slice_duration"]["count"], total["slices"])
    longest = doc["longest_slice"]
    if longest is None:
        failures.append(f"{name}: no longest slice")
        return
    expect(f"{name}: longest slice is the maximum", longest["duration_ns"], total["slice_duration"]["max_ns"])
    expect(f"{name}: longest slice's worker", longest["duration_ns"],
           doc["workers"][longest["worker"]]["slice_duration"]["max_ns"] if longest["worker"] < workers else None)
    # A BEAM program's slices start and end in its functions (or the
    # engine's own code, null, for a spawn's first slice or an exit).
    for side in ("in", "out", "builtin"):
        place = longest[side]
        expect(f"{name}: longest slice {side}", place is None or (":" in place and "/" in place), True)


def check_locks(name, doc, workers, every_one_timed=False):
    """The locks' costs: a row per worker and the timer thread, totals their
    sums, a worker's executor-mutex acquisitions at least its slices (it
    takes the mutex before each), the timed ones within them."""
    locks = doc["locks"]
    if locks is None:
        failures.append(f"{name}: locks not measured")
        return
    for lock in ("executor", "run_queue"):
        threads = locks[lock]["threads"]
        expect(f"{name}: {lock} threads", [t["thread"] for t in threads],
               [f"worker {w}" for w in range(workers)] + ["timer thread"])
        total = locks[lock]["total"]
        for field in ("acquisitions", "timed"):
            expect(f"{name}: {lock} total {field}", total[field], sum(t["costs"][field] for t in threads))
        expect(f"{name}: {lock} longest wait", total["wait_max_ns"], max(t["costs"]["wait_max_ns"] for t in threads))
        for t in threads:
            c = t["costs"]
            where = f"{name}: {lock} {t['thread']}"
            expect(f"{where} timed within acquisitions", c["timed"] <= c["acquisitions"], True)
            expect(f"{where} contended within acquisitions", c["contended"] <= c["acquisitions"], True)
            expect(f"{where} waits only when contended", c["contended"] > 0 or c["wait_ns"] == 0, True)
            if every_one_timed:
                expect(f"{where} every acquisition timed", c["timed"], c["acquisitions"])
                expect(f"{where} longest wait within the waits", c["wait_max_ns"] <= c["wait_ns"], True)
    for w in range(workers):
        costs = locks["executor"]["threads"][w]["costs"]
        expect(f"{name}: worker {w} takes the executor mutex for every slice",
               costs["acquisitions"] >= doc["workers"][w]["slices"], True)
        if doc["workers"][w]["slices"] > 100 and not every_one_timed:
            expect(f"{name}: worker {w} times some acquisitions", 0 < costs["timed"] < costs["acquisitions"], True)


def main():
    clause = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["erlc", "-o", tmp, os.path.join(ROOT, "tests", "profile", "spawn_and_wait.erl")], check=True)
        beam = os.path.join(tmp, "spawn_and_wait.beam")
        configs = [["--policy", "erts"], ["--policy", "global_fifo", "--send-mode", "blocking", "--timers", "workers"]]
        for config in configs:
            for workers in ("1", "2"):
                args = config + ["--schedulers", workers, beam, str(N), str(K)]
                doc, _, status = run(clause, args, tmp)
                name = " ".join(args[:-3])
                expect(f"{name}: status", status, 0)
                expect(f"{name}: spawns", doc["processes"]["spawned"], N)
                expect(f"{name}: receive timeouts fired", doc["timers"]["receive_timeouts_fired"], K)
                expect(f"{name}: timers fired", doc["timers"]["fired"], K)
                expect(f"{name}: late fires recorded", doc["timers"]["late"]["count"], K)
                expect(f"{name}: workers", len(doc["workers"]), int(workers))
                if workers == "1":
                    expect(f"{name}: steals", doc["total"]["steals"], 0)
                # every spawned process sends once; main takes each
                expect(f"{name}: receives", doc["messages"]["receives"], N)
                check_slices(name, doc, int(workers))
                check_locks(name, doc, int(workers))
        # Text and JSON at once; the text ends with the counters' line.
        doc, err, status = run(clause, ["--native", "spawn_exit", "500"], tmp, text=True)
        expect("spawn_exit: status", status, 0)
        expect("spawn_exit: spawns", doc["processes"]["spawned"], 500)
        expect("spawn_exit: text report", "clause profile:" in err and "latencies (us)" in err, True)
        expect("spawn_exit: sampling said", "about 1 in 16 enqueues and sends timed" in err, True)
        expect("spawn_exit: slice durations in the text", "slice durations (us)" in err, True)
        expect("spawn_exit: longest slice in the text", "longest slice: " in err, True)
        expect("spawn_exit: longest slice native", [doc["longest_slice"][k] for k in ("in", "out", "builtin")],
               [None, None, None])
        hw = doc["hardware_counters"]
        if hw["unavailable"] is not None:
            # PAPI-absent: one line with PAPI's reason
            lines = [line for line in err.splitlines() if line.startswith("hardware counters:")]
            expect("unavailable counters: report lines", len(lines), 1)
            expect("unavailable counters: reason", "PAPI" in lines[0], True)
        # No counters asked for.
        doc, _, status = run(clause, ["--profile-events=none", "--native", "pingpong", "3", "50"], tmp)
        expect("--profile-events=none", doc["hardware_counters"], None)
        expect("pingpong: receives", doc["messages"]["receives"], 3 * 50 * 2 + 2 * 3)
        expect("default sample interval", doc["configuration"]["sample_interval"], 16)
        expect("default lock kind", doc["configuration"]["locks"], "spin-futex")
        # The lock kind is part of the configuration, in both reports.
        doc, err, status = run(clause, ["--locks", "mcs", "--native", "pingpong", "3", "50"], tmp, text=True)
        expect("--locks mcs: status", status, 0)
        expect("--locks mcs: JSON", doc["configuration"]["locks"], "mcs")
        expect("--locks mcs: text", "mcs locks" in err, True)
        # The policy's effective parameters (defaults included) and --busy-wait, in both reports.
        expect("default policy parameters", doc["configuration"]["policy_params"],
               {"balance_every": 4, "steal": "longest", "wake": "lazy"})
        expect("default busy-wait", doc["configuration"]["busy_wait"], 0)
        doc, err, status = run(clause, ["--policy", "erts:balance_every=64", "--busy-wait", "1000",
                                        "--native", "pingpong", "3", "50"], tmp, text=True)
        expect("erts:balance_every=64: status", status, 0)
        expect("erts:balance_every=64: JSON", doc["configuration"]["policy_params"],
               {"balance_every": 64, "steal": "longest", "wake": "lazy"})
        expect("erts:balance_every=64: text", "policy erts:balance_every=64,steal=longest,wake=lazy" in err, True)
        expect("--busy-wait 1000: JSON", doc["configuration"]["busy_wait"], 1000)
        expect("--busy-wait 1000: text", "busy-wait 1000" in err, True)
        doc, _, status = run(clause, ["--policy", "global_fifo", "--native", "pingpong", "3", "50"], tmp)
        expect("global_fifo: no parameters", doc["configuration"]["policy_params"], {})
        expect("no schedule", [doc["configuration"][k] for k in ("schedule", "timer_mode")], [None, "thread"])
        # A seeded schedule and its replay: named in both reports, and the
        # timers are the controller's whatever --timers says.
        log = os.path.join(tmp, "schedule.log")
        args = ["--schedulers", "2", beam, str(N), str(K)]
        doc, err, status = run(clause, ["--schedule", "pct:seed=5,depth=2", "--schedule-log", log, "--timers",
                                        "workers"] + args, tmp, text=True)
        expect("--schedule pct: status", status, 0)
        expect("--schedule pct: JSON", [doc["configuration"][k] for k in ("schedule", "timer_mode")],
               ["pct:seed=5,depth=2,steps=1000", "logical"])
        expect("--schedule pct: text", "timers on the schedule's logical clock" in err
               and "schedule pct:seed=5,depth=2" in err, True)
        expect("--schedule pct: receive timeouts fired", doc["timers"]["receive_timeouts_fired"], K)
        doc, err, status = run(clause, ["--replay", log] + args, tmp)
        expect("--replay: status", status, 0)
        expect("--replay: JSON", [doc["configuration"][k] for k in ("schedule", "timer_mode")],
               ["replay:" + log, "logical"])
        # The watchdog: on by default and silent under a real policy; --watchdog 0 turns it off.
        expect("default watchdog", doc["watchdog"], {"ms": 30000, "count": 0, "events": []})
        doc, err, status = run(clause, ["--watchdog", "0", "--native", "pingpong", "3", "50"], tmp, text=True)
        expect("--watchdog 0: status", status, 0)
        expect("--watchdog 0: JSON", doc["watchdog"], {"ms": 0, "count": 0, "events": []})
        expect("--watchdog 0: text", "watchdog: off" in err, True)
        # Every send and slice timed: one delivery per message, one wait per slice.
        doc, _, status = run(clause, ["--profile-sample=1", "--native", "pingpong", "3", "50"], tmp)
        expect("--profile-sample=1: interval", doc["configuration"]["sample_interval"], 1)
        expect("--profile-sample=1: deliveries", doc["latencies"]["message_delivery"]["count"], 3 * 50 * 2 + 2 * 3)
        expect("--profile-sample=1: waits", doc["latencies"]["run_queue_wait"]["count"], doc["total"]["slices"])
        expect("--profile-sample=1: timed slices", doc["total"]["running_timed_slices"], doc["total"]["slices"])
        check_locks("--profile-sample=1", doc, len(doc["workers"]), every_one_timed=True)
        doc, err, status = run(clause, ["--profile-sample=1", "--schedulers", "2", "--locks", "cas", "--native",
                                        "pingpong", "3", "50"], tmp, text=True)
        check_locks("--locks cas --schedulers 2 --profile-sample=1", doc, 2, every_one_timed=True)
        expect("locks in the text", "locks (cas; every acquisition timed)" in err, True)
        # clause's own counters through PAPI, as any PAPI tool reads them.
        doc, _, status = run(clause, ["--profile-events=sde:::clause::slices", "--native", "yield_storm", "5", "20"], tmp)
        event = doc["hardware_counters"]["events"][0]
        expect("SDE slices usable", event["usable"], True)
        expect("SDE slices", event["values"], [doc["total"]["slices"]])
        # A file that cannot be written: said on stderr, the status is the program's.
        done = subprocess.run([clause, "--profile=" + os.path.join(tmp, "no", "such.json"), "--native",
                               "spawn_exit", "10"], capture_output=True, text=True, timeout=60)
        expect("unwritable file: status", done.returncode, 0)
        expect("unwritable file: message", "--profile=" in done.stderr, True)
    for f in failures:
        print("profile check: " + f)
    print(f"profile check: {'FAILED' if failures else 'passed'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
