#!/usr/bin/env python3
"""Draw a --trace file's timeline: each worker's slices over time, coloured by process.

    scripts/timeline.py FILE.json -o timeline.svg [--title TEXT]

One row per worker track; each slice a box from its start to its end, its
colour chosen from the process's pid (the same process has the same colour
on every worker, so a migration shows as a colour changing rows); time a
worker spent asleep or looking for work is left blank. The plotted numbers
go to timeline.dat and the gnuplot script to timeline.gp beside the SVG
(`gnuplot timeline.gp` in that folder redraws it), as scripts/report.py
keeps its figures. Exit status 2 on bad input, 1 when gnuplot fails.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

# Distinguishable colours (Tableau's 10, then 10 darker shades).
PALETTE = [0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F, 0xEDC948, 0xB07AA1, 0xFF9DA7, 0x9C755F, 0xBAB0AC,
           0x2B4C6F, 0xA65C16, 0x9E2F32, 0x3F7A75, 0x2F6B2A, 0xA88A1E, 0x734C68, 0xB8626B, 0x5E4535, 0x6F6862]
SVG = "set terminal svg size 900,{height} dynamic font 'sans,11' background rgb 'white'\n"


def fail(message, status=2):
    print(f"timeline: {message}", file=sys.stderr)
    sys.exit(status)


def main():
    parser = argparse.ArgumentParser(description="Draw a clause --trace file as a timeline (gnuplot SVG).")
    parser.add_argument("trace")
    parser.add_argument("-o", "--output", required=True, help="the SVG to write")
    parser.add_argument("--title", help="the figure's title (default: the traced program)")
    args = parser.parse_args()
    try:
        doc = json.load(open(args.trace))
        events = doc["traceEvents"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f"{args.trace}: not a trace file ({e})")
    if not args.output.endswith(".svg"):
        fail("the output must be an .svg file")
    if shutil.which("gnuplot") is None:
        fail("gnuplot not found (scripts/deps.sh installs gnuplot-nox)", 1)
    tracks = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    slices = [e for e in events if e.get("ph") == "X"]
    if not tracks:
        fail(f"{args.trace}: no worker tracks")
    out_dir = os.path.dirname(os.path.abspath(args.output))
    base = os.path.splitext(os.path.basename(args.output))[0]
    # The first slice shown starts the axis: a trace that dropped its oldest
    # events begins where its rings do.
    origin = min((e["ts"] for e in slices), default=0.0)
    with open(os.path.join(out_dir, base + ".dat"), "w") as f:
        f.write("# worker start_ms end_ms colour pid\n")
        for e in slices:
            start = (e["ts"] - origin) / 1000.0
            end = start + e["dur"] / 1000.0
            pid = e["args"]["pid"]
            number = int(pid.split(".")[1]) if pid.count(".") == 2 else 0
            f.write(f"{e['tid']} {start:.6f} {end:.6f} {PALETTE[number % len(PALETTE)]} {pid}\n")
    rows = sorted(tracks)
    other = doc.get("otherData", {})
    title = args.title or f"clause {other.get('program', '')}: slices per worker"
    dropped = other.get("events_dropped", 0)
    if dropped:
        title += f" (the latest events; {dropped} earlier ones dropped)"
    ytics = ", ".join(f"'{tracks[t]}' {t}" for t in rows)
    height = max(200, 80 + 40 * len(rows))
    script = (SVG.format(height=height) + f"set output '{base}.svg'\n"
              f"set title '{title}' noenhanced\n"
              "set xlabel 'time since the first slice shown (ms)'\n"
              f"set yrange [{max(rows) + 0.6}:{min(rows) - 0.6}]\n"  # worker 0 on top
              f"set ytics ({ytics})\n"
              "unset key\nset grid xtics\nset style fill solid 1.0 noborder\n"
              # A box per slice: centre, half widths, colour.
              f"plot '{base}.dat' using (($2+$3)/2):1:(($3-$2)/2):(0.35):4 with boxxyerror lc rgb variable\n")
    with open(os.path.join(out_dir, base + ".gp"), "w") as f:
        f.write(script)
    if not slices:
        fail(f"{args.trace}: no slices to draw")
    proc = subprocess.run(["gnuplot"], input=script, text=True, cwd=out_dir, capture_output=True)
    if proc.returncode != 0:
        fail("gnuplot failed:\n" + proc.stderr, 1)


if __name__ == "__main__":
    main()
