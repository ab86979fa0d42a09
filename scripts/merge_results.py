#!/usr/bin/env python3
"""Merge the shards of one experiment grid into one results folder.

    scripts/merge_results.py OUT_DIR SHARD [SHARD...] [--partial]

Each SHARD is a results folder (its results*.csv and metadata*.json are taken)
or a results CSV. Sharded runs (scripts/run_experiment.py --shard I/N) write
disjoint runs of the same grid with the same columns, so concatenating their
CSVs is the merge; this script does it with checks: the same header
everywhere, no run twice, every run of the grid present (the metadata gives
the grid's size; --partial accepts missing runs), and every shard from the
same experiment. It writes OUT_DIR/results.csv (rows in run order) and
OUT_DIR/metadata.json (the first shard's, with the shards' dates and hosts),
and the traced run's timeline.json of the shard that made it, which
scripts/report.py then reads. Exit status 1 when a check fails.
"""

import argparse
import glob
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_experiment  # noqa: E402


def collect(sources):
    csvs, metas = [], []
    for src in sources:
        if os.path.isdir(src):
            found = sorted(glob.glob(os.path.join(src, "results*.csv")))
            if not found:
                raise run_experiment.ExperimentError(f"{src}: no results*.csv")
            csvs += found
            metas += sorted(glob.glob(os.path.join(src, "metadata*.json")))
        elif os.path.isfile(src):
            csvs.append(src)
            base = os.path.basename(src)
            if base.startswith("results") and base.endswith(".csv"):
                meta = os.path.join(os.path.dirname(src), "metadata" + base[len("results"):-4] + ".json")
                if os.path.exists(meta):
                    metas.append(meta)
        else:
            raise run_experiment.ExperimentError(f"{src}: no such file or folder")
    return csvs, metas


def merge(out_dir, sources, partial=False):
    """Check and merge; returns (rows, metadata). Raises ExperimentError."""
    csvs, meta_paths = collect(sources)
    rows = run_experiment.read_csv(csvs)
    by_index = {}
    for r in rows:
        i = int(r["run_index"])
        if i in by_index:
            raise run_experiment.ExperimentError(f"run {i} appears twice (overlapping shards?)")
        by_index[i] = r
    metas = []
    for mp in meta_paths:
        with open(mp) as f:
            metas.append(json.load(f))
    # The grid as each shard resolved it; the machine's CPU count may differ
    # between shards (it only matters when it resolved "all" workers, and then
    # the worker counts differ too).
    experiments = {json.dumps({k: v for k, v in (m.get("experiment") or {}).items() if k != "cpus"}, sort_keys=True)
                   for m in metas}
    if len(experiments) > 1:
        raise run_experiment.ExperimentError("the shards come from different experiments (their metadata differ)")
    grid_runs = {m.get("grid_runs") for m in metas} - {None}
    if len(grid_runs) > 1:
        raise run_experiment.ExperimentError(f"the shards disagree on the grid's size: {sorted(grid_runs)}")
    if grid_runs:
        total = grid_runs.pop()
        missing = sorted(set(range(total)) - set(by_index))
        if missing and not partial:
            raise run_experiment.ExperimentError(
                f"{len(missing)} of {total} runs missing (first: {missing[:10]}); --partial accepts that")
    merged = sorted(by_index.values(), key=lambda r: int(r["run_index"]))
    meta = dict(metas[0]) if metas else {}
    if metas:
        meta["shard"] = None
        meta["shards"] = [{"shard": m.get("shard"), "hostname": m.get("hostname"), "cpu_model": m.get("cpu_model"),
                           "started_utc": m.get("started_utc"), "finished_utc": m.get("finished_utc")} for m in metas]
        meta["started_utc"] = min(m.get("started_utc", "") for m in metas)
        meta["finished_utc"] = max(m.get("finished_utc", "") for m in metas)
        meta["shard_runs"] = len(merged)
        meta["failed_runs"] = sum(r["status"] != "ok" for r in merged)
    os.makedirs(out_dir, exist_ok=True)
    # The traced run is made by one shard (the first); its file comes along.
    meta["timeline"] = None
    for mp, m in zip(meta_paths, metas):
        timeline = m.get("timeline")
        if timeline and os.path.exists(os.path.join(os.path.dirname(mp), timeline["file"])):
            shutil.copyfile(os.path.join(os.path.dirname(mp), timeline["file"]),
                            os.path.join(out_dir, timeline["file"]))
            meta["timeline"] = timeline
            break
    run_experiment.write_csv(os.path.join(out_dir, "results.csv"), merged)
    if metas:
        with open(os.path.join(out_dir, "metadata.json"), "w") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
    return merged, meta


def main(argv=None):
    ap = argparse.ArgumentParser(description="Merge the shards of an experiment grid.")
    ap.add_argument("out", help="folder for the merged results.csv and metadata.json")
    ap.add_argument("shards", nargs="+", help="shard results folders or CSV files")
    ap.add_argument("--partial", action="store_true", help="accept a grid with missing runs")
    opts = ap.parse_args(argv)
    try:
        rows, _meta = merge(opts.out, opts.shards, opts.partial)
    except (run_experiment.ExperimentError, OSError, ValueError) as e:
        print(f"merge_results: {e}", file=sys.stderr)
        return 1
    print(f"merge_results: {len(rows)} runs -> {os.path.join(opts.out, 'results.csv')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
