#!/usr/bin/env python3
"""--trace end to end: the file is Chrome trace-event JSON (the fields every
event type needs), every slice lies on a worker's track, and its slice,
steal, migration, sleep and balance counts equal --profile's counters of
the same run; --trace-limit keeps the latest events per worker and says how
many it dropped; --trace-sample records one slice in N with every arrow
whole; a registered process's slices carry its name.

    tests/trace/check.py CLAUSE

Exits 1 on the first run that differs, with what differed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENDS = {"budget", "yield", "trap", "wait", "exit", "blocked", "collect"}
INSTANTS = {"steal", "migration", "sleep", "wakeup", "balance"}
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: {got}, expected {want}")


def run(clause, args, tmp, extra=()):
    """Runs clause with --trace and --profile (every event timed); the trace, the profile, the status."""
    trace, profile = os.path.join(tmp, "trace.json"), os.path.join(tmp, "profile.json")
    for path in (trace, profile):
        if os.path.exists(path):
            os.remove(path)
    done = subprocess.run([clause, "--trace=" + trace, "--profile=" + profile, "--profile-sample=1",
                           "--profile-events=none"] + list(extra) + args, capture_output=True, text=True, timeout=120)
    return json.load(open(trace)), json.load(open(profile)), done.returncode


def check_format(name, doc, workers):
    """Required fields per event type; slices and instants on worker tracks; per-track order."""
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        failures.append(f"{name}: no traceEvents list")
        return
    threads = set()
    collectors = doc.get("otherData", {}).get("collectors", 0)
    for e in events:
        for field in ("name", "ph", "pid", "tid", "ts"):
            if field not in e:
                failures.append(f"{name}: event without {field}: {e}")
                return
        if e["ph"] == "M":
            expect(f"{name}: metadata name", e["name"] in ("process_name", "thread_name"), True)
            expect(f"{name}: metadata args", isinstance(e.get("args", {}).get("name"), str), True)
            if e["name"] == "thread_name":
                threads.add(e["tid"])
        elif e["ph"] == "X" and e.get("cat") in ("collection", "builtin"):
            # A collection, or a builtin's work, on a collector thread: on that collector's track, after the workers'.
            a = e.get("args", {})
            ok = (e["name"] == e["cat"] and isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0
                  and a.get("pid", "").startswith("<0.") and isinstance(a.get("reductions"), int)
                  and a.get("worker") in range(workers) and e["tid"] in range(workers, workers + collectors))
            if not ok:
                failures.append(f"{name}: malformed {e['cat']} {e}")
                return
        elif e["ph"] == "X":
            a = e.get("args", {})
            ok = (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0 and e["ts"] >= 0
                  and a.get("pid", "").startswith("<0.") and isinstance(a.get("reductions"), int)
                  and a.get("end") in ENDS and "name" in a and e["tid"] in range(workers))
            if not ok:
                failures.append(f"{name}: malformed slice {e}")
                return
        elif e["ph"] in ("s", "f"):
            ok = (e["name"] == "wake" and isinstance(e.get("id"), int) and e["tid"] in range(workers)
                  and e.get("args", {}).get("woken", "").startswith("<0.") and (e["ph"] == "s" or e.get("bp") == "e"))
            if not ok:
                failures.append(f"{name}: malformed flow event {e}")
                return
        elif e["ph"] == "i":
            # The watchdog's act is global (a line across every track).
            ok = ((e["name"] in INSTANTS and e.get("s") == "t" or e["name"] == "watchdog" and e.get("s") == "g")
                  and e["tid"] in range(workers))
            if not ok:
                failures.append(f"{name}: malformed instant {e}")
                return
        else:
            failures.append(f"{name}: unexpected phase {e['ph']}")
            return
    expect(f"{name}: a named track per worker and collector", threads, set(range(workers + collectors)))
    other = doc.get("otherData", {})
    for field in ("program", "workers", "collectors", "trace_limit", "trace_sample", "events_recorded", "events_dropped",
                  "dropped_per_worker", "dropped_under_lock"):
        expect(f"{name}: otherData has {field}", field in other, True)
    expect(f"{name}: otherData workers", other.get("workers"), workers)


def check_flows(name, doc, complete):
    """A flow's id is unique; its end lies at the start of a slice of the woken
    process, on the end's track; complete (nothing dropped): every started
    flow that its process ran after has its end, and every end its start."""
    starts, ends = {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] in ("s", "f"):
            table = starts if e["ph"] == "s" else ends
            if e["id"] in table:
                failures.append(f"{name}: flow id {e['id']} {e['ph']} twice")
                return
            table[e["id"]] = e
    slice_starts = {(e["tid"], e["ts"], e["args"]["pid"]) for e in doc["traceEvents"] if e["ph"] == "X"}
    for fid, e in ends.items():
        if (e["tid"], e["ts"], e["args"]["woken"]) not in slice_starts:
            failures.append(f"{name}: flow {fid} ends at no slice start of {e['args']['woken']}")
            return
        if complete and fid not in starts:
            failures.append(f"{name}: flow {fid} ends without a start")
            return
        if fid in starts and starts[fid]["args"]["woken"] != e["args"]["woken"]:
            failures.append(f"{name}: flow {fid} wakes one process and ends at another")
            return
    if complete:
        # A wake at the very end (the program stopping) may have no slice after it.
        expect(f"{name}: flows without an end", len(set(starts) - set(ends)) <= 2, True)
    return len(ends)


def count(doc, ph, event_name=None, tid=None):
    return sum(1 for e in doc["traceEvents"] if e["ph"] == ph and (event_name is None or e["name"] == event_name)
               and (tid is None or e["tid"] == tid))


def check_counts(name, trace, profile):
    """At full recording the trace's counts are --profile's, worker by worker."""
    for w, m in enumerate(profile["workers"]):
        expect(f"{name}: worker {w} slices", count(trace, "X", tid=w), m["slices"])
        expect(f"{name}: worker {w} steals", count(trace, "i", "steal", w), m["steals"])
        expect(f"{name}: worker {w} migrations", count(trace, "i", "migration", w), m["migrations_in"])
        expect(f"{name}: worker {w} sleeps", count(trace, "i", "sleep", w), m["sleeps"])
        expect(f"{name}: worker {w} balance moves", count(trace, "i", "balance", w), m["balance_taken"])
        reds = sum(e["args"]["reductions"] for e in trace["traceEvents"] if e["ph"] == "X" and e["tid"] == w)
        expect(f"{name}: worker {w} reductions", reds, m["reductions"])
    expect(f"{name}: nothing dropped", trace["otherData"]["events_dropped"], 0)


def main():
    clause = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["erlc", "-o", tmp, os.path.join(ROOT, "tests", "trace", "named.erl"),
                        os.path.join(ROOT, "tests", "trace", "backtrack.erl"),
                        os.path.join(ROOT, "experiments", "workloads", "mixed.erl")], check=True)
        beam = os.path.join(tmp, "named.beam")
        # re:run's long matches go on on a collector: a "builtin" span each, as --profile counts them.
        trace, profile, status = run(clause, ["--schedulers", "1", os.path.join(tmp, "backtrack.beam")], tmp)
        expect("backtrack: status", status, 0)
        check_format("backtrack", trace, 1)
        builtins = [e for e in trace["traceEvents"] if e["ph"] == "X" and e.get("cat") == "builtin"]
        expect("backtrack: a builtin span per match", len(builtins), 2)
        expect("backtrack: --profile's count", profile["collectors"]["builtins"], 2)
        # erts balances mixed's queues: the moves on the track of the worker that gained. Whether
        # a run's queues are ever uneven enough depends on timing (a machine busy with other checks
        # gave none once in a CI run): up to five runs for one that balanced, each one checked.
        args = ["--schedulers", "2", os.path.join(tmp, "mixed.beam"), "10", "20", "20", "4"]
        for _ in range(5):
            trace, profile, status = run(clause, args, tmp)
            expect("mixed: status", status, 0)
            check_format("mixed", trace, 2)
            check_counts("mixed", trace, profile)
            if count(trace, "i", "balance") > 0:
                break
        expect("mixed: balance moves drawn", count(trace, "i", "balance") > 0, True)
        programs = [["--native", "pingpong", "4", "200"], ["--native", "yield_storm", "8", "100"], [beam, "6"]]
        for program in programs:
            for workers in (1, 2):
                args = ["--schedulers", str(workers)] + program
                name = " ".join(a if not a.endswith(".beam") else "named.beam" for a in args)
                trace, profile, status = run(clause, args, tmp)
                expect(f"{name}: status", status, 0)
                check_format(name, trace, workers)
                check_counts(name, trace, profile)
                flows = check_flows(name, trace, True)
                if program[1:2] == ["pingpong"]:
                    # Every message but the first of each pair wakes its waiting receiver.
                    expect(f"{name}: wakes drawn", (flows or 0) > 4 * 200, True)
                if program[0] == beam:
                    named = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["args"]["name"] == "trace_echo"]
                    expect(f"{name}: the registered server's slices are named", len(named) > 0, True)
                    expect(f"{name}: its slices are titled by name", all(e["name"] == "trace_echo" for e in named),
                           True)
        # Every stealing policy records its steals on the thief's track.
        for policy in ("cilk", "eevdf", "go", "otp", "tokio", "global_fifo"):
            args = ["--policy", policy, "--schedulers", "2", "--native", "yield_storm", "8", "100"]
            trace, profile, status = run(clause, args, tmp)
            expect(f"{policy}: status", status, 0)
            check_format(policy, trace, 2)
            check_counts(policy, trace, profile)
            check_flows(policy, trace, True)
        # A small limit: the latest per worker, the rest counted as dropped.
        limit = 50
        trace, profile, status = run(clause, ["--schedulers", "2", "--native", "yield_storm", "8", "100"], tmp,
                                     [f"--trace-limit={limit}"])
        check_format("--trace-limit", trace, 2)
        other = trace["otherData"]
        expect("--trace-limit: limit", other["trace_limit"], limit)
        # Each worker's ring holds its slices and instants; balance moves and
        # the watchdog's act come from one more ring (written under the
        # run-queue lock) though they are drawn on a worker's track.
        under_lock = ("balance", "watchdog")
        kept = [sum(1 for e in trace["traceEvents"] if e["ph"] in ("X", "i") and e["tid"] == w
                    and e["name"] not in under_lock) for w in range(2)]
        kept_under_lock = sum(1 for e in trace["traceEvents"] if e["ph"] == "i" and e["name"] in under_lock)
        expect("--trace-limit: kept within the limit", all(k <= limit for k in kept), True)
        expect("--trace-limit: kept within the limit under the lock", kept_under_lock <= limit, True)
        expect("--trace-limit: recorded = kept + dropped", other["events_recorded"],
               sum(kept) + kept_under_lock + other["events_dropped"])
        expect("--trace-limit: dropped per ring", sum(other["dropped_per_worker"]) + other["dropped_under_lock"],
               other["events_dropped"])
        expect("--trace-limit: something dropped", other["events_dropped"] > 0, True)
        check_flows("--trace-limit", trace, False)
        # The latest are kept: the last slice of the run is in the file.
        last = max(e["ts"] + e.get("dur", 0) for e in trace["traceEvents"] if e["ph"] == "X")
        expect("--trace-limit: the end of the run is kept", last > 0, True)
        # One slice in 10 per worker, and every arrow's two ends (a woken
        # process's slice is recorded whatever the count).
        sample = 10
        trace, profile, status = run(clause, ["--schedulers", "2", "--native", "pingpong", "4", "200"], tmp,
                                     [f"--trace-sample={sample}"])
        check_format("--trace-sample", trace, 2)
        expect("--trace-sample: in the file", trace["otherData"]["trace_sample"], sample)
        flows = check_flows("--trace-sample", trace, True) or 0
        slices, total = count(trace, "X"), sum(m["slices"] for m in profile["workers"])
        expect("--trace-sample: one slice in N, and those arrows end at",
               total // sample - 2 <= slices <= total // sample + 2 + flows, True)
        expect("--trace-sample: fewer slices than the run's", slices < total // 2, True)
        expect("--trace-sample: some arrows", flows > 0, True)
        # Bad limits: one line and status 2.
        for bad in ("--trace-limit=0", "--trace-limit=x"):
            done = subprocess.run([clause, bad, "--native", "spawn_exit", "1"], capture_output=True, text=True)
            expect(f"{bad}: status", done.returncode, 2)
            expect(f"{bad}: message", done.stderr.startswith("clause: --trace-limit: "), True)
        # The timeline: one box per slice in its data, an SVG drawn.
        if shutil.which("gnuplot"):
            trace_path = os.path.join(tmp, "named.json")
            subprocess.run([clause, "--schedulers", "2", "--trace=" + trace_path, beam, "4"], check=True,
                           capture_output=True)
            svg = os.path.join(tmp, "timeline.svg")
            done = subprocess.run([os.path.join(ROOT, "scripts", "timeline.py"), trace_path, "-o", svg],
                                  capture_output=True, text=True)
            expect("timeline.py: status", (done.returncode, done.stderr), (0, ""))
            slices = count(json.load(open(trace_path)), "X")
            rows = [line for line in open(os.path.join(tmp, "timeline.dat")) if not line.startswith("#")]
            expect("timeline.py: a box per slice", len(rows), slices)
            expect("timeline.py: an SVG", os.path.getsize(svg) > 0 and "<svg" in open(svg).read(), True)
            done = subprocess.run([os.path.join(ROOT, "scripts", "timeline.py"), beam, "-o", svg],
                                  capture_output=True, text=True)
            expect("timeline.py: a file that is not a trace", done.returncode, 2)
        # A file that cannot be written: said on stderr, the status is the program's.
        done = subprocess.run([clause, "--trace=" + os.path.join(tmp, "no", "such.json"), "--native",
                               "spawn_exit", "10"], capture_output=True, text=True, timeout=60)
        expect("unwritable file: status", done.returncode, 0)
        expect("unwritable file: message", "--trace=" in done.stderr, True)
    for f in failures:
        print("trace check: " + f)
    print(f"trace check: {'FAILED' if failures else 'passed'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
