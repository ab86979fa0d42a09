#!/usr/bin/env python3
"""Tests of the experiment runner (scripts/run_experiment.py), the shard merge
(scripts/merge_results.py) and the report (scripts/report.py).

    CLAUSE=build/clause tests/experiments/test_experiments.py     (make test-experiments)

The unit tests check the experiment file's parsing and its errors, the result
line checks, CSV writing and reading, the grid, the shard split and the merge,
and that every report under papers/ is what its own CSV gives.
The end-to-end tests need $CLAUSE (default build/clause), erlc and erl: a
one-workload grid (every policy, 1 and 2 workers, OTP) run as two shards,
merged and reported; a workload printing a wrong result, which must fail the
run; an unknown workload, which must be refused.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, SCRIPTS)
import merge_results  # noqa: E402
import report as report_py  # noqa: E402
import run_experiment as rx  # noqa: E402

CLAUSE = os.path.abspath(os.environ.get("CLAUSE", os.path.join(ROOT, "build", "clause")))

EXPERIMENT = """
name = "t"
policies = "all"
workers = [1, "all"]
repetitions = 3
otp = true
seed = 7

[quick]
repetitions = 2
workloads = ["ring_small"]

[[workload]]
name = "pingpong"
args = [2, 100]

[[workload]]
id = "ring_small"
name = "threadring"
args = [10, 1000]
quick_args = [5, 12]
"""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


class Parsing(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def load(self, text, **kw):
        kw.setdefault("policies", ["erts", "global_fifo", "other"])
        kw.setdefault("cpus", 4)
        return rx.load_experiment(write(os.path.join(self.dir, "e.toml"), text), **kw)

    def test_full_grid(self):
        exp = self.load(EXPERIMENT)
        self.assertEqual(exp["policies"], ["erts", "global_fifo", "other"])  # "all" = every listed policy
        self.assertEqual(exp["workers"], [1, 4])  # "all" = the CPUs available
        self.assertEqual(exp["repetitions"], 3)
        self.assertEqual([(w["id"], w["name"], w["args"]) for w in exp["workloads"]],
                         [("pingpong", "pingpong", ["2", "100"]), ("ring_small", "threadring", ["10", "1000"])])

    def test_quick_grid(self):
        exp = self.load(EXPERIMENT, quick=True)
        self.assertEqual(exp["repetitions"], 2)
        self.assertEqual([(w["id"], w["args"]) for w in exp["workloads"]], [("ring_small", ["5", "12"])])

    def test_lock_kinds_axis(self):
        self.assertEqual(self.load(EXPERIMENT)["locks"], ["spin-futex"])  # the default kind only
        self.assertEqual(self.load(EXPERIMENT.replace("otp = true", 'otp = true\nlocks = "all"'))["locks"],
                         list(rx.LOCK_KINDS))
        exp = self.load(EXPERIMENT.replace("otp = true", 'otp = true\nlocks = ["pthread", "mcs"]'),
                        policies=["erts"])
        points = rx.configurations(exp)
        clause = [p for p in points if p["runtime"] == "clause"]
        # 2 workloads x 2 worker counts x 2 kinds, and OTP once per workload and count
        self.assertEqual(len(clause), 2 * 2 * 2)
        self.assertEqual(len(points) - len(clause), 2 * 2)
        self.assertEqual({p["locks"] for p in clause}, {"pthread", "mcs"})
        cmd = rx.command_for(dict(clause[1], run_index=0, repetition=1), "clause", "beams", None)
        self.assertEqual(cmd[cmd.index("--locks") + 1], clause[1]["locks"])
        if os.path.exists(CLAUSE):  # the runner's list is clause's
            listed = subprocess.run([CLAUSE, "--locks", "help"], capture_output=True, text=True, check=True)
            self.assertEqual([line.split()[0] for line in listed.stdout.splitlines()], list(rx.LOCK_KINDS))

    def test_busy_wait_axis(self):
        self.assertEqual(self.load(EXPERIMENT)["busy_wait"], [0])  # the seeds' idle strategy only
        exp = self.load(EXPERIMENT.replace("otp = true", "otp = true\nbusy_wait = [0, 10000]"), policies=["erts"])
        points = rx.configurations(exp)
        clause = [p for p in points if p["runtime"] == "clause"]
        # 2 workloads x 2 worker counts x 2 spin counts; OTP once per workload and count
        self.assertEqual(len(clause), 2 * 2 * 2)
        self.assertEqual(len(points) - len(clause), 2 * 2)
        self.assertEqual({p["busy_wait"] for p in clause}, {0, 10000})
        for point in clause:
            cmd = rx.command_for(dict(point, run_index=0, repetition=1), "clause", "beams", None)
            self.assertEqual(cmd[cmd.index("--busy-wait") + 1], str(point["busy_wait"]))
        for bad in ("[-1]", "[\"long\"]", "[1.5]", "[100000001]", "[true]"):
            with self.assertRaises(rx.ExperimentError) as ctx:
                self.load(EXPERIMENT.replace("otp = true", f"otp = true\nbusy_wait = {bad}"))
            self.assertIn("busy_wait must be integers", str(ctx.exception))

    def test_policy_parameters_axis(self):
        # A policy with parameters is a value of the policies axis like any other.
        exp = self.load(EXPERIMENT.replace('policies = "all"',
                                           'policies = ["erts", "erts:balance_every=64,steal=none"]'))
        self.assertEqual(exp["policies"], ["erts", "erts:balance_every=64,steal=none"])
        clause = [p for p in rx.configurations(exp) if p["runtime"] == "clause"]
        self.assertEqual({p["policy"] for p in clause}, {"erts", "erts:balance_every=64,steal=none"})
        point = next(p for p in clause if ":" in p["policy"])
        cmd = rx.command_for(dict(point, run_index=0, repetition=1), "clause", "beams", None)
        self.assertEqual(cmd[cmd.index("--policy") + 1], "erts:balance_every=64,steal=none")
        with self.assertRaises(rx.ExperimentError) as ctx:
            self.load(EXPERIMENT.replace('policies = "all"', 'policies = ["nope:k=1"]'))
        self.assertIn("unknown policy 'nope:k=1'", str(ctx.exception))
        defaults = {"erts": [("balance_every", "4"), ("steal", "longest"), ("wake", "lazy")], "global_fifo": []}
        self.assertEqual(rx.effective_params("erts", defaults), "balance_every=4,steal=longest,wake=lazy")
        self.assertEqual(rx.effective_params("erts:steal=none,balance_every=64", defaults),
                         "balance_every=64,steal=none,wake=lazy")
        self.assertEqual(rx.effective_params("global_fifo", defaults), "")
        if os.path.exists(CLAUSE):  # the runner reads clause's own defaults
            listed = rx.clause_policy_defaults(CLAUSE)
            self.assertEqual(listed["erts"], defaults["erts"])
            self.assertEqual(listed["global_fifo"], [])
            rx.check_policy_specs(CLAUSE, ["erts", "erts:balance_every=64"])
            with self.assertRaises(rx.ExperimentError) as ctx:
                rx.check_policy_specs(CLAUSE, ["erts:balance_every=x"])
            self.assertIn("balance_every must be an integer", str(ctx.exception))

    def test_workers_all_equal_to_one_is_not_doubled(self):
        self.assertEqual(self.load(EXPERIMENT, cpus=1)["workers"], [1])

    def test_errors(self):
        cases = [
            (EXPERIMENT.replace('name = "pingpong"', 'name = "pingpongg"'), "unknown workload 'pingpongg'"),
            (EXPERIMENT.replace("args = [2, 100]", "args = [2]"), "takes 2 argument(s)"),
            (EXPERIMENT.replace("args = [2, 100]", "args = [2, -1]"), "rounds must be an integer"),
            (EXPERIMENT.replace('policies = "all"', 'policies = ["erts", "nope"]'), "unknown policy 'nope'"),
            (EXPERIMENT.replace("repetitions = 3", "repetitions = 0"), "repetitions must be at least 1"),
            (EXPERIMENT.replace("otp = true", "otp = true\nsend_modes = [\"fast\"]"), "send mode"),
            (EXPERIMENT.replace("otp = true", "otp = true\nlocks = [\"spin\"]"), "locks must be among"),
            (EXPERIMENT.replace("otp = true", "otp = true\nworkers = [0]").replace('workers = [1, "all"]\n', ""),
             "workers must be"),
            (EXPERIMENT + "\nbogus = 1\n", "unknown key(s) bogus"),
            ('timeline = "nothing"\n' + EXPERIMENT, "timeline must be a workload id of the grid"),
            ("timeline = 3\n" + EXPERIMENT, "timeline must be a workload id"),
            (EXPERIMENT.replace('workloads = ["ring_small"]', 'workloads = ["nothing"]'), "unknown workload 'nothing'"),
            ("name = [", "not valid TOML"),
            ('name = "x"\n', "no [[workload]] entries"),
        ]
        for text, message in cases:
            with self.subTest(message=message):
                with self.assertRaises(rx.ExperimentError) as ctx:
                    self.load(text, quick="nothing" in text)
                self.assertIn(message, str(ctx.exception))
        with self.assertRaises(rx.ExperimentError):
            rx.load_experiment(os.path.join(self.dir, "missing.toml"), policies=["erts"], cpus=2)

    def test_workload_file_must_exist(self):
        empty = os.path.join(self.dir, "none")
        os.mkdir(empty)
        with self.assertRaises(rx.ExperimentError) as ctx:
            self.load(EXPERIMENT, workload_dir=empty)
        self.assertIn("has no pingpong.erl", str(ctx.exception))

    def test_default_experiment_loads(self):
        for quick in (False, True):
            exp = rx.load_experiment(os.path.join(ROOT, "experiments", "default.toml"), quick=quick,
                                     policies=["erts", "global_fifo"], cpus=2,
                                     workload_dir=os.path.join(ROOT, "experiments", "workloads"))
            self.assertEqual(exp["policies"], ["erts", "global_fifo"])
            self.assertTrue(exp["otp"])
        self.assertEqual({w["name"] for w in rx.load_experiment(
            os.path.join(ROOT, "experiments", "default.toml"), policies=["erts"], cpus=2)["workloads"]},
            set(rx.EXPECTED))


class ResultLines(unittest.TestCase):
    def test_expected_values(self):
        # Values printed by the workloads on OTP 25 with these arguments.
        self.assertEqual(rx.expected_result("threadring", ["100", "10007"]), 8)
        self.assertEqual(rx.expected_result("bang", ["8", "2000"]), 16008000)
        self.assertEqual(rx.expected_result("spawntree", ["18"]), 2584)
        self.assertEqual(rx.expected_result("mbrot", ["120", "4", "64"]), 3643)
        self.assertEqual(rx.expected_result("mixed", ["4", "50", "20", "2"]), 213446)
        self.assertEqual(rx.expected_result("pingpong", ["4", "2000"]), 16000)

    def test_check_output(self):
        good = "noise\nworkload=pingpong pairs=2 rounds=100 result=400 time_ms=1.500\n"
        self.assertEqual(rx.check_output("pingpong", ["2", "100"], good), ("ok", "400", "1.500"))
        self.assertEqual(rx.check_output("pingpong", ["2", "100"], good.replace("=400", "=399"))[0],
                         "wrong_result")
        self.assertEqual(rx.check_output("pingpong", ["2", "100"], good.replace("=400", "=four"))[0],
                         "wrong_result")
        self.assertEqual(rx.check_output("pingpong", ["2", "100"], "crashed\n")[0], "no_result")
        self.assertEqual(rx.check_output("bang", ["2", "100"], good)[0], "no_result")
        self.assertEqual(rx.parse_result_line(good),
                         {"workload": "pingpong", "pairs": "2", "rounds": "100", "result": "400", "time_ms": "1.500"})


def fake_rows(exp):
    rows = []
    for r in rx.grid(exp):
        row = {c: "" for c in rx.COLUMNS}
        row.update({"run_index": r["run_index"], "workload_id": r["workload_id"], "workload": r["workload"],
                    "params": "pairs=2 rounds=100", "runtime": r["runtime"], "policy": r["policy"],
                    "workers": r["workers"], "repetition": r["repetition"], "status": "ok",
                    "time_ms": "1.0", "result": "x,\"y\""})
        rows.append(row)
    return rows


class GridCsvShards(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.exp = rx.load_experiment(write(os.path.join(self.dir, "e.toml"), EXPERIMENT),
                                      policies=["erts", "global_fifo"], cpus=2)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_grid(self):
        runs = rx.grid(self.exp)
        # 2 workloads x 2 worker counts x (2 policies + OTP) x 3 repetitions
        self.assertEqual(len(runs), 2 * 2 * 3 * 3)
        self.assertEqual([r["run_index"] for r in runs], list(range(len(runs))))
        # Each repetition holds every configuration once, repetitions in order.
        points = len(runs) // 3
        for rep in range(3):
            block = runs[rep * points:(rep + 1) * points]
            self.assertEqual({r["repetition"] for r in block}, {rep + 1})
            self.assertEqual(len({(r["workload_id"], r["runtime"], r["policy"], r["workers"]) for r in block}), points)
        # Interleaved: the configurations are not in the fixed order, and the order is reproducible.
        self.assertNotEqual([r["policy"] for r in runs[:points]],
                            [p["policy"] for p in rx.configurations(self.exp)])
        self.assertEqual(runs, rx.grid(self.exp))

    def test_parse_shard(self):
        self.assertEqual(rx.parse_shard("2/8"), (2, 8))
        self.assertEqual(rx.parse_shard(" 1 / 1 "), (1, 1))
        for bad in ("0/3", "4/3", "1/0", "a/b", "3", "", "1/2/3"):
            with self.subTest(bad=bad):
                with self.assertRaises(rx.ExperimentError):
                    rx.parse_shard(bad)

    def test_shards_partition_the_grid(self):
        runs = rx.grid(self.exp)
        for n in (1, 2, 5, len(runs) + 3):
            shards = [rx.shard_runs(runs, (i, n)) for i in range(1, n + 1)]
            indexes = [r["run_index"] for s in shards for r in s]
            self.assertEqual(sorted(indexes), list(range(len(runs))), f"n={n}")
            sizes = [len(s) for s in shards]
            self.assertLessEqual(max(sizes) - min(sizes), 1)

    def test_csv_round_trip_and_concatenation(self):
        rows = fake_rows(self.exp)
        path = os.path.join(self.dir, "results.csv")
        rx.write_csv(path, rows)
        with open(path) as f:
            self.assertEqual(f.readline().rstrip("\n").split(","), rx.COLUMNS)
        back = rx.read_csv([path])
        self.assertEqual(len(back), len(rows))
        self.assertEqual(back[0]["result"], 'x,"y"')  # quoted by the writer
        self.assertEqual([int(r["run_index"]) for r in back], [r["run_index"] for r in rows])
        # Shard files concatenated with cat: the second header is skipped.
        a, b = os.path.join(self.dir, "a.csv"), os.path.join(self.dir, "b.csv")
        rx.write_csv(a, rows[:5])
        rx.write_csv(b, rows[5:])
        cat = os.path.join(self.dir, "cat.csv")
        with open(cat, "w") as out:
            for p in (a, b):
                with open(p) as f:
                    out.write(f.read())
        self.assertEqual([r["run_index"] for r in rx.read_csv([cat])], [str(r["run_index"]) for r in rows])
        # A file from before policies had parameters: policy_params reads empty.
        old = os.path.join(self.dir, "old.csv")
        before = [c for c in rx.COLUMNS if c != "policy_params"]
        with open(old, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=before, extrasaction="ignore", lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        self.assertEqual({r["policy_params"] for r in rx.read_csv([old])}, {""})
        # A file from before the lock kind and the busy-wait were columns: its
        # clause rows ran with the defaults of then, its OTP rows have none.
        older = os.path.join(self.dir, "older.csv")
        before = [c for c in rx.COLUMNS if c not in ("locks", "busy_wait", "busy_wait_found", "busy_wait_slept")]
        with open(older, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=before, extrasaction="ignore", lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        back = rx.read_csv([older])
        self.assertEqual({(r["runtime"], r["locks"], r["busy_wait"]) for r in back},
                         {("clause", "pthread", "0"), ("otp", "", "")})
        # Columns out of order, or one the runner never wrote, are refused.
        swapped = list(rx.COLUMNS)
        swapped[1], swapped[2] = swapped[2], swapped[1]
        for header in (swapped, rx.COLUMNS + ["extra"], [c for c in rx.COLUMNS if c != "time_ms"]):
            path = write(os.path.join(self.dir, "h.csv"), ",".join(header) + "\n")
            with self.assertRaises(rx.ExperimentError):
                rx.read_csv([path])
        bad = write(os.path.join(self.dir, "bad.csv"), "a,b\n1,2\n")
        with self.assertRaises(rx.ExperimentError):
            rx.read_csv([bad])

    def test_merge(self):
        rows = fake_rows(self.exp)
        meta = {"experiment": {"name": "t", "workers": [1, 2]}, "grid_runs": len(rows)}
        shard_dirs = []
        for i in (1, 2, 3):
            d = os.path.join(self.dir, f"shard{i}")
            os.mkdir(d)
            part = [r for r in rows if r["run_index"] % 3 == i - 1]
            rx.write_csv(os.path.join(d, f"results.shard-{i}-of-3.csv"), part)
            # Machines with different CPU counts may run shards of one grid.
            write(os.path.join(d, f"metadata.shard-{i}-of-3.json"),
                  json.dumps(dict(meta, shard=f"{i}/3", started_utc=f"2026-01-0{i}", finished_utc=f"2026-01-0{i}",
                                  experiment=dict(meta["experiment"], cpus=2 * i))))
            shard_dirs.append(d)
        out = os.path.join(self.dir, "merged")
        merged, m = merge_results.merge(out, shard_dirs)
        self.assertEqual([int(r["run_index"]) for r in merged], list(range(len(rows))))
        self.assertEqual(len(rx.read_csv([os.path.join(out, "results.csv")])), len(rows))
        self.assertEqual((m["started_utc"], m["finished_utc"], len(m["shards"])), ("2026-01-01", "2026-01-03", 3))
        with self.assertRaises(rx.ExperimentError) as ctx:  # a shard missing
            merge_results.merge(out, shard_dirs[:2])
        self.assertIn("runs missing", str(ctx.exception))
        self.assertEqual(len(merge_results.merge(out, shard_dirs[:2], partial=True)[0]),
                         len([r for r in rows if r["run_index"] % 3 != 2]))
        other = os.path.join(self.dir, "other")  # a shard of another grid
        shutil.copytree(shard_dirs[2], other)
        with open(os.path.join(other, "metadata.shard-3-of-3.json"), "w") as f:
            json.dump(dict(meta, experiment={"name": "t", "workers": [1, 4]}), f)
        with self.assertRaises(rx.ExperimentError) as ctx:
            merge_results.merge(out, shard_dirs[:2] + [other])
        self.assertIn("different experiments", str(ctx.exception))
        with self.assertRaises(rx.ExperimentError) as ctx:  # a shard twice
            merge_results.merge(out, shard_dirs + shard_dirs[:1])
        self.assertIn("appears twice", str(ctx.exception))


@unittest.skipUnless(shutil.which("gnuplot"), "needs gnuplot")
class Report(unittest.TestCase):
    def test_statistics_and_series(self):
        import report
        self.assertEqual(report.median([3, 1, 2]), 2)
        self.assertEqual(report.median([4, 1, 2, 3]), 2.5)
        # 6 samples: [min, max] covers the median with 1 - 2 / 64; 20 samples: ranks 6 and 15.
        self.assertEqual(report.median_ci([5, 1, 4, 2, 6, 3]), (1, 6, 1 - 2 / 64))
        lo, hi, cov = report.median_ci(list(range(1, 21)))
        self.assertEqual((lo, hi), (6, 15))
        self.assertGreaterEqual(cov, 0.95)
        # Configurations that differ only in send mode are separate series, and
        # each is compared with OTP.
        tmp = tempfile.mkdtemp()
        try:
            rows = []
            for i, (runtime, policy, send, t) in enumerate(
                    [("clause", "erts", "arrivals", 10), ("clause", "erts", "blocking", 30), ("otp", "otp", "", 20)] * 3):
                row = {c: "" for c in rx.COLUMNS}
                row.update({"run_index": i, "workload_id": "pingpong", "workload": "pingpong",
                            "params": "pairs=1 rounds=1", "runtime": runtime, "policy": policy, "workers": 1,
                            "cpus_available": 2, "send_mode": send, "timers": "thread" if send else "",
                            "binding": "none", "repetition": i // 3 + 1, "status": "ok", "time_ms": t + (i // 3) % 2,
                            "steals": 0, "migrations": 0, "slices": 5, "msg_delivery_p50_ns": 1000})
                rows.append(row)
            rx.write_csv(os.path.join(tmp, "results.csv"), rows)
            path, _plots, failed = report.build(tmp, tmp, "time_ms")
            with open(path) as f:
                text = f.read()
            self.assertEqual(failed, 0)
            self.assertIn("| clause erts arrivals | 10.00 [10.00, 11.00]", text)
            self.assertIn("| clause erts blocking | 30.00 [30.00, 31.00]", text)
            self.assertIn("| pingpong | 0.50 | 1.50 |", text)  # clause / OTP: 10/20 and 30/20
        finally:
            shutil.rmtree(tmp)


    def test_many_series_rank_by_geometric_mean(self):
        import report
        # Six policies at 1 and 2 workers: series in rows, ranked by their
        # geometric mean against OTP, with a count of workloads each wins.
        tmp = tempfile.mkdtemp()
        try:
            rows = []
            factor = {"a": 1.0, "b": 0.5, "c": 2.0, "d": 1.5, "e": 3.0, "f": 0.8}
            i = 0
            for rep in (1, 2, 3):
                for workload, otp_ms in (("pingpong", 100.0), ("threadring", 50.0)):
                    for n in (1, 2):
                        for runtime, policy in [("clause", p) for p in factor] + [("otp", "otp")]:
                            row = {c: "" for c in rx.COLUMNS}
                            t = otp_ms * (factor[policy] if runtime == "clause" else 1)
                            if policy == "f" and workload == "threadring":
                                t = otp_ms * 0.25  # f wins threadring
                            row.update({"run_index": i, "workload_id": workload, "workload": workload,
                                        "params": "x=1", "runtime": runtime, "policy": policy, "workers": n,
                                        "cpus_available": 2, "send_mode": "arrivals" if runtime == "clause" else "",
                                        "timers": "thread" if runtime == "clause" else "",
                                        "locks": "spin-futex" if runtime == "clause" else "",
                                        "busy_wait": "0" if runtime == "clause" else "", "binding": "none",
                                        "repetition": rep, "status": "ok", "time_ms": t, "migrations": 7,
                                        "jain_workers": 0.9})
                            rows.append(row)
                            i += 1
            rx.write_csv(os.path.join(tmp, "results.csv"), rows)
            path, plots, failed = report.build(tmp, tmp, "time_ms")
            with open(path) as f:
                text = f.read()
            self.assertEqual(failed, 0)
            section = text[text.index("### 2 workers\n"):]
            order = [line.split("|")[1].strip() for line in section.splitlines()[4:10]]
            self.assertEqual(order, ["f", "b", "a", "d", "c", "e"])
            self.assertIn("| f | 0.80 | 0.25 | 0.447 | 1 |", section)  # sqrt(0.8 * 0.25); wins threadring
            self.assertIn("| b | 0.50 | 0.50 | 0.500 | 1 |", section)  # wins pingpong
            self.assertIn("| e | 3.00 | 3.00 | 3.000 | 0 |", section)
            self.assertIn("### Migrations (`total.migrations_in`)\n", text)
            self.assertIn("| a | 7 | 7 |", text)
            self.assertTrue(os.path.exists(os.path.join(plots, "geomean.svg")))
            self.assertFalse(os.path.exists(os.path.join(plots, "ratio.svg")))
        finally:
            shutil.rmtree(tmp)


class Papers(unittest.TestCase):
    """Every report under papers/ is what scripts/report.py makes of the CSV and
    metadata it ships with: regenerated, its text and plotted data are the same."""

    def test_reports_regenerate_from_their_csv(self):
        papers = os.path.join(ROOT, "papers")
        folders = [d for d in sorted(os.listdir(papers)) if os.path.exists(os.path.join(papers, d, "results.csv"))] \
            if os.path.isdir(papers) else []
        for d in folders:
            with self.subTest(paper=d), tempfile.TemporaryDirectory() as tmp:
                src = os.path.join(papers, d)
                proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "report.py"), src, "--out", tmp],
                                      capture_output=True, text=True)
                # A paper may ship runs that failed (a timeout): the report
                # lists them and report.py says so with status 1.
                with open(os.path.join(src, "results.csv"), newline="") as f:
                    failed = sum(1 for row in csv.DictReader(f) if row["status"] != "ok")
                self.assertEqual(proc.returncode, 1 if failed else 0, proc.stderr)
                if failed:
                    self.assertIn(f"report: {failed} failed run(s)", proc.stderr)
                shipped = sorted(f for f in os.listdir(os.path.join(src, "plots")))
                self.assertEqual(sorted(os.listdir(os.path.join(tmp, "plots"))), shipped)
                for name in ["report.md"] + [os.path.join("plots", f) for f in shipped if f.endswith((".dat", ".gp"))]:
                    with open(os.path.join(src, name)) as a, open(os.path.join(tmp, name)) as b:
                        self.assertEqual(a.read(), b.read(), f"{d}/{name} differs from what its CSV gives")


@unittest.skipUnless(os.access(CLAUSE, os.X_OK) and shutil.which("erl"), "needs clause and OTP")
class EndToEnd(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def runner(self, *args):
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, "run_experiment.py"), "--clause", CLAUSE,
                               "--no-progress"] + list(args), capture_output=True, text=True)

    def test_one_workload_grid_in_two_shards(self):
        exp = write(os.path.join(self.dir, "one.toml"),
                    'name = "one"\npolicies = "all"\nworkers = [1, 2]\nrepetitions = 2\notp = true\n'
                    '[[workload]]\nname = "pingpong"\nargs = [2, 300]\n')
        policies = rx.clause_policies(CLAUSE)
        for i in (1, 2):
            proc = self.runner(exp, "--shard", f"{i}/2", "--out", os.path.join(self.dir, f"s{i}"))
            self.assertEqual(proc.returncode, 0, proc.stderr)
        # The first shard makes the traced run, the second does not.
        self.assertTrue(os.path.exists(os.path.join(self.dir, "s1", "timeline.json")))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "s2", "timeline.json")))
        merged = os.path.join(self.dir, "merged")
        proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "merge_results.py"), merged,
                               os.path.join(self.dir, "s1"), os.path.join(self.dir, "s2")],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = rx.read_csv([os.path.join(merged, "results.csv")])
        self.assertEqual(len(rows), 2 * (len(policies) + 1) * 2)
        self.assertEqual({r["status"] for r in rows}, {"ok"})
        self.assertEqual({r["result"] for r in rows}, {"1200"})
        self.assertEqual({r["policy"] for r in rows}, set(policies) | {"otp"})
        self.assertEqual({r["workers"] for r in rows}, {"1", "2"})
        for r in rows:
            self.assertGreater(float(r["time_ms"]), 0)
            self.assertGreater(float(r["wall_ms"]), float(r["time_ms"]))
            self.assertGreater(int(r["max_rss_kb"]), 1000)
            if r["runtime"] == "clause":
                self.assertGreater(int(r["slices"]), 0)  # from --profile's JSON
                self.assertGreaterEqual(int(r["receives"]), 1200)
                self.assertGreater(int(r["msg_delivery_count"]), 0)
                self.assertEqual(r["latency_sample_interval"], "16")  # --profile's default
                # the locks' costs: the executor mutex is taken before every slice
                self.assertGreaterEqual(int(r["lock_exec_acquisitions"]), int(r["slices"]))
                self.assertGreater(int(r["lock_rq_acquisitions"]), 0)
                self.assertLessEqual(int(r["lock_exec_contended"]), int(r["lock_exec_acquisitions"]))
                self.assertGreaterEqual(int(r["lock_exec_hold_ns"]), 0)
            else:
                self.assertEqual(r["slices"], "")
                self.assertEqual(r["lock_exec_acquisitions"], "")
        with open(os.path.join(merged, "metadata.json")) as f:
            meta = json.load(f)
        for key in ("commit", "cpu_model", "kernel", "otp_release", "cpus_available", "started_utc"):
            self.assertTrue(meta.get(key), key)
        proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "report.py"), merged],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("report: " + os.path.join(merged, "report.md"), proc.stdout)
        with open(os.path.join(merged, "report.md")) as f:
            report = f.read()
        # Every policy by default: more series than the per-series plots
        # can show, so the report ranks them with one plot of geometric means.
        wide = len(policies) > report_py.WIDE_SERIES
        plots = ("time_pingpong.svg", "geomean.svg") if wide else ("time_pingpong.svg", "ratio.svg", "steals.svg",
                                                                    "latency.svg")
        self.assertEqual(meta["timeline"]["workers"], 2)
        self.assertEqual(meta["timeline"]["workload_id"], "pingpong")
        with open(os.path.join(merged, "timeline.json")) as f:
            traced = json.load(f)
        self.assertEqual(traced["otherData"]["workers"], 2)
        self.assertEqual(traced["otherData"]["trace_limit"], rx.TIMELINE_LIMIT)
        for plot in plots + ("timeline.svg",):
            self.assertIn(f"(plots/{plot})", report)
            with open(os.path.join(merged, "plots", plot)) as f:
                self.assertIn("<svg", f.read())
        self.assertIn(f"{len(rows)} runs, {len(rows)} ok, 0 failed", report)

    def test_policy_parameters_in_the_csv(self):
        exp = write(os.path.join(self.dir, "params.toml"),
                    'name = "params"\npolicies = ["erts", "erts:balance_every=64"]\nworkers = [2]\n'
                    'repetitions = 1\notp = false\n[[workload]]\nname = "pingpong"\nargs = [2, 50]\n')
        out = os.path.join(self.dir, "params")
        proc = self.runner(exp, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = rx.read_csv([os.path.join(out, "results.csv")])
        self.assertEqual({(r["policy"], r["policy_params"]) for r in rows},
                         {("erts", "balance_every=4,steal=longest,wake=lazy"),
                          ("erts:balance_every=64", "balance_every=64,steal=longest,wake=lazy")})
        self.assertEqual({r["status"] for r in rows}, {"ok"})
        # A value clause refuses stops the runner before any run, with clause's reason.
        bad = write(os.path.join(self.dir, "bad.toml"),
                    'policies = ["erts:balance_every=-3"]\nworkers = [1]\nrepetitions = 1\notp = false\n'
                    '[[workload]]\nname = "pingpong"\nargs = [2, 50]\n')
        proc = self.runner(bad, "--out", os.path.join(self.dir, "bad"))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("balance_every must be an integer from 0", proc.stderr)

    def test_every_workload_on_clause_and_otp(self):
        # Small arguments; the runner checks each result against EXPECTED, on
        # both runtimes, under every policy.
        tiny = {"pingpong": [3, 50], "threadring": [7, 100], "bang": [3, 50], "big": [5, 20],
                "fjthrput": [4, 20], "fjcreate": [50], "spawntree": [10], "chameneos": [5, 60],
                "serialmsg": [2, 10, 5], "timers": [6, 3, 1], "mbrot": [24, 3, 30], "mixed": [2, 5, 4, 1]}
        self.assertEqual(set(tiny), set(rx.EXPECTED))
        exp = write(os.path.join(self.dir, "all.toml"), 'policies = "all"\nworkers = [2]\nrepetitions = 1\n' +
                    "".join(f'[[workload]]\nname = "{n}"\nargs = {a}\n' for n, a in tiny.items()))
        out = os.path.join(self.dir, "all")
        proc = self.runner(exp, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        rows = rx.read_csv([os.path.join(out, "results.csv")])
        self.assertEqual(len(rows), len(tiny) * (len(rx.clause_policies(CLAUSE)) + 1))
        self.assertEqual({r["status"] for r in rows}, {"ok"})
        self.assertEqual({r["workload"] for r in rows if r["runtime"] == "otp"}, set(tiny))

    def test_wrong_result_fails_the_run(self):
        exp = write(os.path.join(self.dir, "wrong.toml"),
                    'policies = ["erts"]\nworkers = [1]\nrepetitions = 1\notp = false\n'
                    '[[workload]]\nname = "pingpong"\nargs = [2, 50]\n')
        out = os.path.join(self.dir, "out")
        proc = self.runner(exp, "--out", out, "--workloads", os.path.join(HERE, "wrong"))
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("wrong_result", proc.stderr)
        self.assertIn("result 199, expected 200", proc.stderr)
        with open(os.path.join(out, "results.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([(r["status"], r["result"], r["exit_status"]) for r in rows], [("wrong_result", "199", "0")])
        self.assertTrue(os.listdir(os.path.join(out, "failed")))
        # The report lists it and fails too.
        proc = subprocess.run([sys.executable, os.path.join(SCRIPTS, "report.py"), out], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 1)
        with open(os.path.join(out, "report.md")) as f:
            self.assertIn("## Failed runs", f.read())

    def test_bad_input_is_refused(self):
        exp = write(os.path.join(self.dir, "bad.toml"), '[[workload]]\nname = "nosuch"\nargs = [1]\n')
        proc = self.runner(exp, "--out", os.path.join(self.dir, "o"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("unknown workload 'nosuch'", proc.stderr)
        proc = self.runner(os.path.join(ROOT, "experiments", "default.toml"), "--shard", "3/2",
                           "--out", os.path.join(self.dir, "o"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("bad shard '3/2'", proc.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)
