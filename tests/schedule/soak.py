#!/usr/bin/env python3
"""Every golden under many seeded schedules (make soak-schedules; hours, not part of make test).

    tests/schedule/soak.py CLAUSE [--seeds N] [--first-seed F] [--jobs J] [--programs "NAME ..."] [--policies "P ..."]

Runs every program of tests/programs/ under seeds F..F+N-1 (default 1..1000) of
`--schedule random:seed=S` and of `--schedule pct:seed=S,depth=D` (D from 1
to 3 by seed) for each seed policy (erts, global_fifo; --policies names
others), with 1, 2 or 4 workers by seed, as many runs at once as --jobs
(default: one per CPU). Each run's stdout, stderr and status, through
tests/golden/normalize, must be the golden's expected ones. Prints a line
per thousand runs, then a table of runs and failures per program, and each
failure with the first lines of a diff against the golden, the command that
runs it again writing its schedule's log and the command that replays that
log. Exit status 1 when any run failed.
--first-seed lets the thousand seeds run in portions (1..100, 101..200, ...),
each a run of its own, when hours at once are not to be had. The programs,
their headers and expected outputs are taken as they are at the start; give
it a copy of the binary when the tree may be rebuilt meanwhile.
"""
import argparse
import concurrent.futures
import difflib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402  (how a golden runs and is compared)


def spec_of(mode, seed):
    return f"random:seed={seed}" if mode == "random" else f"pct:seed={seed},depth={1 + seed % 3}"


def differing_lines(got, want, limit=20):
    """The first lines of a diff of want (the golden's) against got: what a
    failure printed, for its cause (a rerun of a timing-dependent failure
    may not show it again)."""
    lines = list(difflib.unified_diff(want.decode(errors="replace").splitlines(),
                                      got.decode(errors="replace").splitlines(), "expected", "got", lineterm="", n=1))
    return "".join(f"\n    {line}" for line in lines[:limit]) + ("\n    ..." if len(lines) > limit else "")


def outcome(clause, tmp, name, options, want):
    """None when the run gave the golden's output, else what differed."""
    done, _cmd = check.run(clause, tmp, name, options, sources=tmp)
    if done is None:
        return "timed out"
    stdout, stderr = check.normalize(done.stdout), check.normalize(done.stderr)
    if done.returncode != want[2]:
        return f"status {done.returncode}, expected {want[2]}" + differing_lines(stderr, want[1])
    if stdout != want[0]:
        return "stdout differs" + differing_lines(stdout, want[0])
    if stderr != want[1]:
        return "stderr differs" + differing_lines(stderr, want[1])
    return None


def main():
    ap = argparse.ArgumentParser(description="Every golden under many seeded schedules.")
    ap.add_argument("clause")
    ap.add_argument("--seeds", type=int, default=1000)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--programs", help="only these programs (names under tests/programs/)")
    ap.add_argument("--policies", default="erts global_fifo")
    opts = ap.parse_args()
    if opts.seeds < 1 or opts.jobs < 1 or opts.first_seed < 1:
        ap.error("--seeds, --first-seed and --jobs must be at least 1")
    clause = os.path.abspath(opts.clause)
    programs = sorted(os.path.basename(p)[:-4] for p in os.listdir(os.path.join(check.ROOT, "tests", "programs"))
                      if p.endswith(".erl"))
    if opts.programs:
        unknown = set(opts.programs.split()) - set(programs)
        if unknown:
            ap.error(f"no program {', '.join(sorted(unknown))} under tests/programs/")
        programs = opts.programs.split()
    policies = opts.policies.split()
    with tempfile.TemporaryDirectory(prefix="clause-soak-") as tmp:
        subprocess.run(["erlc", "-W0", "-o", tmp] + [os.path.join("tests", "programs", n + ".erl") for n in programs],
                       cwd=check.ROOT, check=True)
        # The sources (their headers) and expected outputs as they are now:
        # a portion takes hours, and the tree may change under it.
        for name in programs:
            shutil.copy(os.path.join(check.ROOT, "tests", "programs", name + ".erl"), tmp)
        expected = {}
        for name in programs:
            parts = [open(os.path.join(check.GOLDEN, "expected", f"{name}.{p}"), "rb").read()
                     for p in ("stdout", "stderr")]
            expected[name] = parts + [int(open(os.path.join(check.GOLDEN, "expected", f"{name}.status")).read())]
        runs = [(name, policy, mode, seed) for name in programs for policy in policies
                for mode in ("random", "pct") for seed in range(opts.first_seed, opts.first_seed + opts.seeds)]

        def one(run):
            name, policy, mode, seed = run
            options = ["--policy", policy, "--schedulers", str((1, 2, 4)[seed % 3]), "--schedule",
                       spec_of(mode, seed)]
            return options, outcome(clause, tmp, name, options, expected[name])

        per_program = {name: [0, 0] for name in programs}
        failed = []
        with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
            for done, (run, (options, why)) in enumerate(zip(runs, pool.map(one, runs)), 1):
                per_program[run[0]][0] += 1
                if why:
                    per_program[run[0]][1] += 1
                    failed.append((run[0], options, why))
                if done % 1000 == 0:
                    print(f"soak: {done} of {len(runs)} runs, {len(failed)} failed", flush=True)
    print(f"soak: {len(runs)} runs ({len(programs)} programs x {len(policies)} policies x 2 modes x "
          f"{opts.seeds} seeds from {opts.first_seed}), {len(failed)} failed")
    print(f"  {'program':32} {'runs':>7} {'failed':>7}")
    for name in programs:
        runs_of, failed_of = per_program[name]
        if failed_of or len(programs) <= 40:
            print(f"  {name:32} {runs_of:>7} {failed_of:>7}")
    for name, options, why in failed:
        source = os.path.join(check.ROOT, "tests", "programs", name + ".erl")
        args = check.header(source, "args").split()
        beam = f"{name}.beam"
        print(f"FAIL {name} {' '.join(options)}: {why}")
        print(f"  run it again, writing its log: {shlex.join([clause] + options + ['--schedule-log', 'run.log', beam] + args)}")
        replay = [clause] + options[:4] + ["--replay", "run.log", beam] + args
        print(f"  then replay the log: {shlex.join(replay)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
