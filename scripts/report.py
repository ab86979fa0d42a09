#!/usr/bin/env python3
"""Turn a results folder of scripts/run_experiment.py into a Markdown report with plots.

    scripts/report.py RESULTS_DIR [--out DIR] [--metric time_ms|wall_ms|cpu_ms]

Reads RESULTS_DIR/results.csv, or every results*.csv there (the shards of one
grid, or their concatenation), and the metadata*.json beside them. Writes
DIR/report.md (DIR defaults to RESULTS_DIR) and, in DIR/plots/, one SVG per
figure drawn by gnuplot from a .dat file that holds exactly the plotted
numbers, computed here from the CSV, and the gnuplot script that draws it
(NAME.gp: `cd plots && gnuplot NAME.gp` redraws NAME.svg):

  time_<workload>.svg  the metric (default time_ms, the work as the workload
                       timed it) against workers, one line per runtime and
                       policy: median over repetitions with a 95 %
                       distribution-free confidence interval of the median
  ratio.svg            clause/OTP: median clause time over median OTP time,
                       per workload, policy and worker count
  steals.svg           steals and migrations per run (medians) per workload
                       and policy, with all workers
  latency.svg          message delivery latency p50, p99, p99.9 (medians over
                       runs of --profile's per-run percentiles), all workers
  timeline.svg         the traced run's last events per worker (the
                       runner's timeline.json, drawn by scripts/timeline.py)

Only runs whose status is "ok" count; failed runs are listed. Exit status 1
when the folder holds no results or a failed run, 2 on bad input.
"""

import argparse
import glob
import json
import math
import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_experiment  # noqa: E402  (the CSV reader and its columns)


class ReportError(Exception):
    pass


def median(values):
    s = sorted(values)
    n = len(s)
    if n == 0:
        return math.nan
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def median_ci(values, level=0.95):
    """(low, high, coverage): the order-statistic confidence interval of the
    median. For n samples, [x_(k), x_(n+1-k)] covers the median with
    probability 1 - 2 P(Binomial(n, 1/2) < k); k is the largest whose
    coverage is at least `level`. With fewer than 6 samples no interval
    reaches 95 % and [min, max] is given with its (lower) coverage."""
    s = sorted(values)
    n = len(s)
    if n == 0:
        return math.nan, math.nan, 0.0
    def coverage(k):
        tail = sum(math.comb(n, i) for i in range(k)) / 2 ** n
        return 1 - 2 * tail
    best = 1
    for k in range(1, n // 2 + 1):
        if coverage(k) >= level:
            best = k
    return s[best - 1], s[n - best], coverage(best)


def to_float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def load(results_dir):
    paths = sorted(glob.glob(os.path.join(results_dir, "results*.csv")))
    if os.path.exists(os.path.join(results_dir, "results.csv")):
        paths = [os.path.join(results_dir, "results.csv")]
    if not paths:
        raise ReportError(f"{results_dir}: no results*.csv")
    rows = run_experiment.read_csv(paths)
    seen = {}
    for r in rows:
        if r["run_index"] in seen:
            raise ReportError(f"run {r['run_index']} appears twice in {', '.join(paths)}")
        seen[r["run_index"]] = r
    metas = []
    for mp in sorted(glob.glob(os.path.join(results_dir, "metadata*.json"))):
        with open(mp) as f:
            metas.append(json.load(f))
    return paths, rows, metas


SERIES_FIELDS = ("runtime", "policy", "send_mode", "timers", "binding", "locks", "busy_wait")
# Above this many clause series the tables put series in rows (one row per
# series, one column per workload) and the per-workload bar plots give way
# to one plot of each series' geometric mean.
WIDE_SERIES = 4


def gnuplot(script, plots_dir):
    """Run a plot script in plots_dir, and keep it there as NAME.gp beside NAME.svg
    and NAME.dat, so a figure can be redrawn (or restyled) from its data alone."""
    name = script.split("set output '", 1)[1].split(".svg'", 1)[0]
    with open(os.path.join(plots_dir, name + ".gp"), "w") as f:
        f.write(script)
    proc = subprocess.run(["gnuplot"], input=script, text=True, cwd=plots_dir, capture_output=True)
    if proc.returncode != 0:
        raise ReportError("gnuplot failed:\n" + proc.stderr)


SVG = "set terminal svg size 900,420 dynamic font 'sans,11' background rgb 'white'\n"


def write_bars(path, comment, columns, rows):
    """A gnuplot histogram data file: one line per row label, one column per
    (title, values) in columns; None is written as NaN (not drawn)."""
    with open(path, "w") as f:
        f.write(comment + "\n")
        f.write("label " + " ".join(f"\"{title}\"" for title, _v in columns) + "\n")
        for i, label in enumerate(rows):
            f.write(label + " " + " ".join("NaN" if v[i] is None else f"{v[i]:.6g}" for _t, v in columns) + "\n")


def fmt(v, digits=3):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float) and abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}g}" if isinstance(v, float) else str(v)


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def wide_sections(workloads, series, clause_series, workers, stats, otp_key, short, series_name, med_col, plots_dir,
                  metric, rows):
    """The report's sections after the times when many clause series are
    compared (policies, parameters): one row per series, one column per
    workload, a ranking by geometric mean against OTP, and one plot of it."""
    md = []
    max_workers = max(workers)
    max_w = f"{max_workers} worker{'s' if max_workers > 1 else ''}"
    have_otp = any(s[0] == "otp" for s in series)

    def ratio(w, s, n):
        c, o = stats.get((w,) + s + (n,)), stats.get(otp_key(w, s, n))
        return c[0] / o[0] if c and o and o[0] > 0 else None

    if have_otp:
        md.append("## clause / OTP\n")
        md.append(f"Median clause `{metric}` over median OTP `{metric}`, same `.beam`, same worker count (below 1: "
                  "clause is faster). The geometric mean is over the workloads with a value; `best` counts the "
                  "workloads on which the series is the fastest clause series at that worker count.\n")
        geo = {}
        for n in workers:
            fastest = {}
            for w in workloads:
                timed = [(stats[(w,) + s + (n,)][0], s) for s in clause_series if (w,) + s + (n,) in stats]
                if timed:
                    fastest[w] = min(timed)[1]
            md.append(f"### {n} worker{'s' if n > 1 else ''}\n")
            md.append("| series | " + " | ".join(workloads) + " | geometric mean | best |")
            md.append("|---|" + "---|" * (len(workloads) + 2))
            ranked = []
            for s in clause_series:
                r = [ratio(w, s, n) for w in workloads]
                geo[(s, n)] = geometric_mean([x for x in r if x])
                ranked.append((geo[(s, n)] if geo[(s, n)] is not None else math.inf, s, r))
            for g, s, r in sorted(ranked, key=lambda t: t[0]):
                best = sum(1 for w in workloads if fastest.get(w) == s)
                md.append(f"| {short(s)} | " + " | ".join(f"{x:.2f}" if x else "–" for x in r) +
                          f" | {f'{g:.3f}' if g != math.inf else '–'} | {best} |")
            md.append("")
        with open(os.path.join(plots_dir, "geomean.dat"), "w") as f:
            f.write(f"# geometric mean over workloads of median clause {metric} / median OTP {metric}, from the CSV\n")
            f.write("series " + " ".join(f"\"{n} worker{'s' if n > 1 else ''}\"" for n in workers) + "\n")
            for s in clause_series:
                f.write(f"\"{short(s)}\" " + " ".join(f"{geo[(s, n)]:.4f}" if geo.get((s, n)) else "NaN"
                                                      for n in workers) + "\n")
        gnuplot(SVG + "set output 'geomean.svg'\nset title 'clause / OTP, geometric mean over workloads (below 1: "
                "clause faster)'\nset style data histograms\nset style histogram cluster gap 1\n"
                "set style fill solid 0.8 border -1\nset xtics rotate by 45 right noenhanced\n"
                "set ylabel 'clause / OTP'\nset yrange [0:*]\nset grid ytics\nset key outside right top noenhanced\n"
                "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2\n"
                f"plot for [i=2:{len(workers) + 1}] 'geomean.dat' using i:xtic(1) title columnheader(i)\n", plots_dir)
        md.append("![clause/OTP geometric mean per series](plots/geomean.svg)\n")

    intervals = sorted({r["latency_sample_interval"] for r in rows
                        if r["runtime"] == "clause" and r.get("latency_sample_interval")}, key=int)
    sampled = (f"; latencies timed on about 1 in {' or '.join(intervals)} sends and enqueues (`--profile-sample`)"
               if intervals and intervals != ["1"] else "")
    md.append(f"## Counters with {max_w}\n")
    md.append(f"From `--profile`, medians over the runs with {max_w}{sampled}. Latencies in microseconds (each "
              "percentile at most about 3 % above the exact value); Jain's index of the workers' running time "
              "(1: every worker ran alike).\n")
    for title, column, scale in [("Migrations (`total.migrations_in`)", "migrations", 1),
                                 ("Steals (`total.steals`)", "steals", 1),
                                 ("Message delivery p99, µs", "msg_delivery_p99_ns", 1000),
                                 ("Run-queue wait p99, µs", "rq_wait_p99_ns", 1000),
                                 ("Jain's index of the workers' running time", "jain_workers", 1),
                                 ("Idle spells that found work spinning (`--busy-wait`)", "busy_wait_found", 1)]:
        table = [(s, [med_col(w, s, max_workers, column) for w in workloads]) for s in clause_series]
        if not any(v is not None for _s, vs in table for v in vs):
            continue
        md.append(f"### {title}\n")
        md.append("| series | " + " | ".join(workloads) + " |")
        md.append("|---|" + "---|" * len(workloads))
        for s, vs in table:
            md.append(f"| {short(s)} | " + " | ".join(fmt(v / scale) if v is not None else "–" for v in vs) + " |")
        md.append("")

    md.append("## Whole process: wall time and peak RSS\n")
    md.append(f"Medians with {max_w}, start-up included: wall ms / RSS MB.\n")
    md.append("| series | " + " | ".join(workloads) + " |")
    md.append("|---|" + "---|" * len(workloads))
    for s in series:
        cells = []
        for w in workloads:
            wall, rss = med_col(w, s, max_workers, "wall_ms"), med_col(w, s, max_workers, "max_rss_kb")
            cells.append(f"{fmt(wall)} / {fmt(rss / 1024) if rss else '–'}")
        md.append(f"| {series_name(s)} | " + " | ".join(cells) + " |")
    md.append("")
    return md


def timeline_section(results_dir, timeline, plots_dir, md):
    """The traced run as a picture, when the runner made one."""
    trace = os.path.join(results_dir, timeline["file"]) if timeline else None
    if not trace or not os.path.exists(trace):
        return
    title = (f"{timeline['workload']} {' '.join(timeline['args'])}, {timeline['policy']}, "
             f"{timeline['workers']} workers")
    done = subprocess.run([os.path.join(os.path.dirname(os.path.abspath(__file__)), "timeline.py"), trace,
                           "-o", os.path.join(plots_dir, "timeline.svg"), "--title", title],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise ReportError("timeline.py failed:\n" + done.stderr)
    md.append("## A timeline\n")
    md.append(f"One more run of `{timeline['workload_id']}` ({title}), traced with `--trace` keeping each worker's "
              f"latest {timeline['trace_limit']} events: each worker's slices over time, a colour per process (a "
              f"process changing rows migrated), blank while the worker slept or looked for work. "
              f"`{timeline['command']}`; open `{timeline['file']}` in Perfetto's UI for the steals, balance moves, "
              "sleeps and the arrows from each send to the slice it woke.\n")
    md.append("![timeline](plots/timeline.svg)\n")


def build(results_dir, out_dir, metric):
    paths, rows, metas = load(results_dir)
    if not rows:
        raise ReportError(f"{results_dir}: the results hold no runs")
    have_plot = shutil.which("gnuplot") is not None
    if not have_plot:
        raise ReportError("gnuplot not found (scripts/deps.sh installs gnuplot-nox)")
    plots_dir = os.path.join(out_dir, "plots")
    os.makedirs(plots_dir, exist_ok=True)
    for old in glob.glob(os.path.join(plots_dir, "*")):
        os.unlink(old)
    ok = [r for r in rows if r["status"] == "ok"]
    failed = [r for r in rows if r["status"] != "ok"]
    meta = metas[0] if metas else {}

    # The experiment file's order where the metadata gives it, else first appearance.
    workloads = [w["id"] for w in meta.get("experiment", {}).get("workloads", [])
                 if any(r["workload_id"] == w["id"] for r in rows)]
    for r in rows:
        if r["workload_id"] not in workloads:
            workloads.append(r["workload_id"])
    params = {r["workload_id"]: f"{r['workload']} {r['params']}" for r in rows}
    # A series is one runtime configuration: (runtime, policy, send mode,
    # timers, binding, lock kind, busy-wait); its name shows the settings that
    # vary in the grid.
    series = []
    for r in rows:
        s = tuple(r.get(f) or "" for f in SERIES_FIELDS)
        if s not in series:
            series.append(s)
    series.sort(key=lambda s: (s[0] == "otp",) + s[1:])
    varying = [i for i in (2, 3, 5, 6, 4) if len({s[i] for s in series if s[0] == "clause" or i == 4}) > 1]

    def short(s):
        """The series' name without its runtime: the policy and the varying settings."""
        parts = [] if s[0] == "otp" else [s[1]]
        parts += [("bound " + s[4] if s[4] != "none" else "unbound") if i == 4
                  else (s[i] + " locks" if i == 5 else "busy-wait " + s[i] if i == 6 else s[i])
                  for i in varying if s[i] or i == 4]
        return " ".join(parts)

    def series_name(s):
        return ("OTP" if s[0] == "otp" else "clause") + (" " + short(s) if short(s) else "")

    def otp_key(w, s, n):
        """The OTP point a clause series at n workers compares with: same binding."""
        return (w, "otp", "otp", "", "", s[4], "", "", n)
    workers = sorted({int(r["workers"]) for r in rows})
    max_workers = max(workers)
    max_w = f"{max_workers} worker{'s' if max_workers > 1 else ''}"
    cpus = sorted({r["cpus_available"] for r in rows})

    groups = {}
    for r in ok:
        key = (r["workload_id"],) + tuple(r.get(f) or "" for f in SERIES_FIELDS) + (int(r["workers"]),)
        groups.setdefault(key, []).append(r)

    def values(key, column):
        return [v for v in (to_float(r[column]) for r in groups.get(key, [])) if v is not None]

    stats = {}
    for key in groups:
        v = values(key, metric)
        lo, hi, cov = median_ci(v)
        stats[key] = (median(v), lo, hi, cov, len(v))

    md = []
    title = meta.get("experiment", {}).get("name", os.path.basename(os.path.abspath(results_dir)))
    quick = meta.get("experiment", {}).get("quick")
    md.append(f"# Experiment report: {title}{' (--quick grid)' if quick else ''}\n")
    md.append(f"Generated by `scripts/report.py` from {', '.join('`' + os.path.basename(p) + '`' for p in paths)} "
              f"({len(rows)} runs, {len(ok)} ok, {len(failed)} failed). Every number and figure below is "
              f"computed from that file.\n")
    md.append("## Set-up\n")
    md.append("| | |\n|---|---|")
    for label, field in [("commit", "describe"), ("clause", "clause_version"), ("OTP", "otp_release"),
                         ("CPU", "cpu_model"), ("CPUs online / available to the runs", None),
                         ("kernel", "kernel"), ("OS", "os"), ("started (UTC)", "started_utc"),
                         ("finished (UTC)", "finished_utc"), ("experiment file", "experiment_file"),
                         ("command", "command")]:
        if field is None:
            value = f"{meta.get('cpus_online', '?')} / {', '.join(cpus)}"
        else:
            value = meta.get(field, "")
        if field == "command":
            value = f"`{value}`"
        md.append(f"| {label} | {value} |")
    if "load_average_start" in meta:
        md.append(f"| load average (1, 5, 15 min) at start / end | {meta['load_average_start']} / "
                  f"{meta.get('load_average_end', '?')} (other work on the machine shows here) |")
    exp = meta.get("experiment", {})
    md.append(f"| worker counts | {', '.join(map(str, workers))} (clause `--schedulers N`, OTP `+S N:N`) |")
    if exp:
        md.append(f"| send mode, timers, binding | {', '.join(exp.get('send_modes', []))}; "
                  f"{', '.join(exp.get('timers', []))}; {', '.join(exp.get('binding', []))} |")
        if exp.get("locks"):
            md.append(f"| lock kinds | {', '.join(exp['locks'])} |")
        if exp.get("busy_wait", [0]) != [0]:
            md.append(f"| busy-wait (`--busy-wait N`) | {', '.join(map(str, exp['busy_wait']))} |")
        md.append(f"| repetitions | {exp.get('repetitions')} per configuration, interleaved (each repetition "
                  f"runs every configuration once, in a shuffled order) |")
        md.append(f"| clause `--profile` | {'on (its counters are in the CSV; its clock reads are in the times)' if exp.get('profile') else 'off'} |")
    md.append("")
    md.append(f"Metric: `{metric}`" + {
        "time_ms": " — the work as the workload timed it (`erlang:monotonic_time`), without the runtime's start.",
        "wall_ms": " — the whole process, start-up included.",
        "cpu_ms": " — user + system CPU time of the whole process."}.get(metric, "") +
        " Medians over repetitions; the interval is the distribution-free confidence interval of the median "
        "(order statistics), with its coverage.\n")

    # ---- times per workload
    md.append("## Time per workload\n")
    for w in workloads:
        dat = os.path.join(plots_dir, f"time_{w}.dat")
        with open(dat, "w") as f:
            f.write(f"# {metric} of {params[w]}: per series, workers median low high (from the CSV)\n")
            for s in series:
                f.write(f"\n\n# {series_name(s)}\n")
                for n in workers:
                    st = stats.get((w,) + s + (n,))
                    if st:
                        f.write(f"{n} {st[0]:.6g} {st[1]:.6g} {st[2]:.6g}\n")
        plot = []
        for i, s in enumerate(series):
            if any((w,) + s + (n,) in stats for n in workers):
                # Series side by side around each worker count, so their intervals do not overlap.
                shift = (i - (len(series) - 1) / 2) * 0.05
                plot.append(f"'time_{w}.dat' index {i} using ($1{shift:+.3f}):2:3:4 with yerrorlines lw 2 "
                            f"title '{series_name(s)}'")
        md.append(f"### {w}: `{params[w]}`\n")
        if not plot:
            md.append("No successful run.\n")
            continue
        gnuplot(SVG + f"set output 'time_{w}.svg'\nset title '{params[w]}' noenhanced\n"
                f"set xlabel 'workers'\nset ylabel '{metric} (median, 95% CI)' noenhanced\n"
                f"set xtics ({', '.join(str(n) for n in workers)})\nset xrange [{min(workers) - 0.5}:{max(workers) + 0.5}]\n"
                "set yrange [0:*]\nset key outside right top noenhanced\nset grid\n"
                f"plot {', '.join(plot)}\n", plots_dir)
        md.append(f"![{metric} of {w}](plots/time_{w}.svg)\n")
        md.append("| series | " + " | ".join(f"{n} worker{'s' if n > 1 else ''}" for n in workers) + " |")
        md.append("|---|" + "---|" * len(workers))
        for s in series:
            cells = []
            for n in workers:
                st = stats.get((w,) + s + (n,))
                cells.append(f"{st[0]:.2f} [{st[1]:.2f}, {st[2]:.2f}] ({st[3] * 100:.1f} %, n={st[4]})"
                             if st else "–")
            md.append(f"| {series_name(s)} | " + " | ".join(cells) + " |")
        md.append("")

    def med_col(w, s, n, column):
        v = values((w,) + s + (n,), column)
        return median(v) if v else None

    clause_series = [s for s in series if s[0] == "clause"]
    if len(clause_series) > WIDE_SERIES:
        md += wide_sections(workloads, series, clause_series, workers, stats, otp_key, short, series_name,
                            med_col, plots_dir, metric, rows)
    else:
        # ---- clause / OTP ratios
        if any(s[0] == "otp" for s in series) and clause_series:
            cols = [(s, n) for n in workers for s in clause_series
                    if any((w,) + s + (n,) in stats and otp_key(w, s, n) in stats for w in workloads)]
        else:
            cols = []
        if cols:
            with open(os.path.join(plots_dir, "ratio.dat"), "w") as f:
                f.write(f"# median clause {metric} / median OTP {metric}, from the CSV\n")
                f.write("workload " + " ".join(f"\"{short(s)}, {n}w\"" for s, n in cols) + "\n")
                for w in workloads:
                    vals = []
                    for s, n in cols:
                        c, o = stats.get((w,) + s + (n,)), stats.get(otp_key(w, s, n))
                        vals.append(f"{c[0] / o[0]:.4f}" if c and o and o[0] > 0 else "NaN")
                    f.write(f"{w} " + " ".join(vals) + "\n")
            gnuplot(SVG + "set output 'ratio.svg'\nset title 'clause / OTP (median time ratio; below 1: clause faster)'\n"
                    "set style data histograms\nset style histogram cluster gap 1\nset style fill solid 0.8 border -1\n"
                    "set xtics rotate by 30 right noenhanced\nset ylabel 'clause / OTP'\nset yrange [0:*]\nset grid ytics\n"
                    "set key outside right top noenhanced\nset arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2\n"
                    f"plot for [i=2:{len(cols) + 1}] 'ratio.dat' using i:xtic(1) title columnheader(i)\n", plots_dir)
            md.append("## clause / OTP\n")
            md.append(f"Median clause `{metric}` over median OTP `{metric}`, same `.beam`, same worker count "
                      "(below 1: clause is faster).\n")
            md.append("![clause/OTP ratio](plots/ratio.svg)\n")
            md.append("| workload | " + " | ".join(f"{short(s)}, {n} w" for s, n in cols) + " |")
            md.append("|---|" + "---|" * len(cols))
            geo = {c: [] for c in cols}
            for w in workloads:
                cells = []
                for c in cols:
                    a, o = stats.get((w,) + c[0] + (c[1],)), stats.get(otp_key(w, c[0], c[1]))
                    if a and o and o[0] > 0:
                        cells.append(f"{a[0] / o[0]:.2f}")
                        geo[c].append(a[0] / o[0])
                    else:
                        cells.append("–")
                md.append(f"| {w} | " + " | ".join(cells) + " |")
            md.append("| geometric mean | " + " | ".join(
                f"{math.exp(sum(map(math.log, geo[c])) / len(geo[c])):.2f}" if geo[c] else "–" for c in cols) + " |")
            md.append("")

        # ---- steals and migrations, latency: clause, all workers
        if clause_series:
            steal_cols = [(f"{k} ({short(s)})", [med_col(w, s, max_workers, k) for w in workloads])
                          for s in clause_series for k in ("steals", "migrations")]
            steal_cols = [c for c in steal_cols if any(v is not None for v in c[1])]
            write_bars(os.path.join(plots_dir, "steals.dat"),
                       f"# medians per run with {max_w}, from the CSV", steal_cols, workloads)
            if steal_cols:
                gnuplot(SVG + f"set output 'steals.svg'\nset title 'steals and migrations per run, {max_w} (medians)'\n"
                        "set style data histograms\nset style histogram cluster gap 1\nset style fill solid 0.8 border -1\n"
                        "set xtics rotate by 30 right noenhanced\nset yrange [0:*]\nset grid ytics\nset key outside right top noenhanced\n"
                        f"plot for [i=2:{len(steal_cols) + 1}] 'steals.dat' using i:xtic(1) title columnheader(i)\n",
                        plots_dir)
            md.append("## Steals and migrations\n")
            md.append(f"From `--profile` (`total.steals`, `total.migrations_in`), medians per run with {max_w}.\n")
            if steal_cols:
                md.append("![steals and migrations](plots/steals.svg)\n")
            md.append("| workload | " + " | ".join(f"{k}, {short(s)}" for s in clause_series for k in ("steals", "migrations", "slices")) + " |")
            md.append("|---|" + "---|" * (3 * len(clause_series)))
            for w in workloads:
                md.append(f"| {w} | " + " | ".join(fmt(med_col(w, s, max_workers, k)) for s in clause_series
                                                  for k in ("steals", "migrations", "slices")) + " |")
            md.append("")

            pcts = [("msg_delivery_p50_ns", "p50"), ("msg_delivery_p99_ns", "p99"), ("msg_delivery_p999_ns", "p99.9")]
            lat_cols = []
            for s in clause_series:
                for col, p in pcts:
                    v = [med_col(w, s, max_workers, col) for w in workloads]
                    if any(v):  # a column without any value would stop gnuplot
                        lat_cols.append((f"{p} ({short(s)})", [x / 1000 if x else None for x in v]))
            write_bars(os.path.join(plots_dir, "latency.dat"),
                       f"# message delivery latency, microseconds, medians over runs with {max_w}, from the CSV",
                       lat_cols, workloads)
            if lat_cols:
                gnuplot(SVG + f"set output 'latency.svg'\nset title 'message delivery latency, {max_w} (medians of per-run percentiles)'\n"
                        "set style data histograms\nset style histogram cluster gap 1\nset style fill solid 0.8 border -1\n"
                        "set xtics rotate by 30 right noenhanced\nset logscale y\nset ylabel 'microseconds'\nset grid ytics\nset key outside right top noenhanced\n"
                        f"plot for [i=2:{len(lat_cols) + 1}] 'latency.dat' using i:xtic(1) title columnheader(i)\n",
                        plots_dir)
            md.append("## Latency percentiles\n")
            intervals = sorted({r["latency_sample_interval"] for r in rows
                                if r["runtime"] == "clause" and r.get("latency_sample_interval")}, key=int)
            sampled = (f", timed on about 1 in {' or '.join(intervals)} sends and enqueues (`--profile-sample`)"
                       if intervals and intervals != ["1"] else "")
            md.append(f"Message delivery (sent to taken by a receive) and run-queue wait (queued to running), from "
                      f"`--profile`'s histograms (each percentile at most about 3 % above the exact value){sampled}; "
                      f"medians over the runs with {max_w}, in microseconds.\n")
            if lat_cols:
                md.append("![message delivery latency](plots/latency.svg)\n")
            head = [f"delivery {p}, {short(s)}" for s in clause_series for _c, p in pcts] + \
                   [f"run-queue wait p99, {short(s)}" for s in clause_series]
            md.append("| workload | " + " | ".join(head) + " |")
            md.append("|---|" + "---|" * len(head))
            for w in workloads:
                cells = []
                for s in clause_series:
                    for col, _p in pcts:
                        m = med_col(w, s, max_workers, col)
                        cells.append(fmt(m / 1000) if m else "–")
                for s in clause_series:
                    m = med_col(w, s, max_workers, "rq_wait_p99_ns")
                    cells.append(fmt(m / 1000) if m else "–")
                md.append(f"| {w} | " + " | ".join(cells) + " |")
            md.append("")

        # ---- whole-process cost
        md.append("## Whole process: wall time, CPU time, peak RSS\n")
        md.append(f"Medians with {max_w}, start-up included (OTP's start is most of its wall time at these "
                  "sizes).\n")
        md.append("| workload | " + " | ".join(f"{series_name(s)}: wall ms / CPU ms / RSS MB" for s in series) + " |")
        md.append("|---|" + "---|" * len(series))
        for w in workloads:
            cells = []
            for s in series:
                wall, cpu, rss = (med_col(w, s, max_workers, c) for c in ("wall_ms", "cpu_ms", "max_rss_kb"))
                cells.append(f"{fmt(wall)} / {fmt(cpu)} / {fmt(rss / 1024) if rss else '–'}")
            md.append(f"| {w} | " + " | ".join(cells) + " |")
        md.append("")

    timeline_section(results_dir, meta.get("timeline"), plots_dir, md)

    if failed:
        md.append("## Failed runs\n")
        md.append("| run | workload | runtime | policy | workers | status | result |\n|---|---|---|---|---|---|---|")
        for r in failed:
            md.append(f"| {r['run_index']} | {r['workload_id']} | {r['runtime']} | {r['policy']} | {r['workers']} | "
                      f"{r['status']} | {r['result'] or '–'} |")
        md.append("")
    report = os.path.join(out_dir, "report.md")
    with open(report, "w") as f:
        f.write("\n".join(md))
    return report, plots_dir, len(failed)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Markdown report with plots from a results folder.")
    ap.add_argument("results", help="folder written by scripts/run_experiment.py")
    ap.add_argument("--out", help="where report.md and plots/ go (default: the results folder)")
    ap.add_argument("--metric", default="time_ms", choices=["time_ms", "wall_ms", "cpu_ms"])
    opts = ap.parse_args(argv)
    if not os.path.isdir(opts.results):
        print(f"report: {opts.results}: no such folder", file=sys.stderr)
        return 2
    out = opts.out or opts.results
    os.makedirs(out, exist_ok=True)
    try:
        report, plots, failed = build(opts.results, out, opts.metric)
    except (ReportError, run_experiment.ExperimentError) as e:
        print(f"report: {e}", file=sys.stderr)
        return 2
    print(f"report: {report}")
    print(f"plots: {plots}/")
    if failed:
        print(f"report: {failed} failed run(s), listed in the report", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
