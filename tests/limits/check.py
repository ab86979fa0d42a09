#!/usr/bin/env python3
"""Exhaustion and limits: each case ends with its documented line and status.

    tests/limits/check.py CLAUSE [--full]

Every case of README.md's "Limits" table runs here with what it must print:
the exact stderr (one line, or none) and status, and its stdout (which must
keep every line the program wrote before a runtime failure). Cases that run
out of memory run under an address-space limit (ulimit -v), small so that
it is reached in seconds; the cases that work run at a tenth of the
table's size unless --full is given (10^6 processes waiting, 3.4 GB and
about a minute; 10^7 messages queued). Programs: limits_grow.erl (runs
until something runs out) and limits_bounded.erl (bounded cases). Exits 1
when a case differed, after printing each difference.
"""
import concurrent.futures
import os
import re
import resource
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_OF_MEMORY = r"clause: runtime failure in <0\.\d+\.0>: out of memory[a-z ']*\n"
# Lines a spawning case prints: its name, then 0, 10000, 20000, ... each whole.
PROGRESS = re.compile(r"(?:0\n(?:\d+0000\n)*)?")


def address_space(kb):
    """preexec_fn: ulimit -v KB for the child."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (kb * 1024, kb * 1024))
    return limit


def progress_kept(name):
    """stdout of a spawning case: its name, then whole progress lines in order."""
    def check(out):
        if not out.startswith(name + "\n"):
            return False
        lines = out[len(name) + 1:]
        if not PROGRESS.fullmatch(lines):
            return False
        counts = [int(x) for x in lines.split()]
        return counts == list(range(0, 10000 * len(counts), 10000))
    return check


def cases(tmp, full):
    grow = os.path.join(tmp, "limits_grow.beam")
    bounded = os.path.join(tmp, "limits_bounded.beam")
    procs = 1000000 if full else 100000
    messages = 10000000 if full else 1000000
    newer, newer_max = newer_opcodes(tmp, bounded)
    garbage = os.path.join(tmp, "garbage.beam")
    with open(garbage, "wb") as f:
        f.write(b"not a beam file\n")
    renamed = os.path.join(tmp, "renamed.beam")
    shutil.copy(bounded, renamed)
    shutil.copy(grow, os.path.join(tmp, "elsewhere.beam"))
    nomain = os.path.join(tmp, "limits_nomain.beam")
    # (name, clause options and arguments, ulimit -v KB, status, stderr regex, stdout or its check)
    return [
        ("address space: processes spawn, messages queue", [grow, "spawn_queue"], 300000, 70, OUT_OF_MEMORY,
         progress_kept("spawn_queue")),
        ("--max-heap reached building a list", ["--max-heap", "16M", grow, "heap"], None, 70,
         r"clause: runtime failure in <0\.1\.0>: the heap cap \(--max-heap\) was exceeded\n", "heap\n"),
        (f"{procs} processes waiting", [bounded, "procs", str(procs)], None, 0, "",
         f"{procs} waiting\n{procs} ended\n"),
        ("processes beyond memory", [grow, "spawn"], 300000, 70, OUT_OF_MEMORY, progress_kept("spawn")),
        (f"{messages} messages queued on one process", [bounded, "messages", str(messages)], None, 0, "",
         f"{messages} queued\n{messages} received\n"),
        ("recursion 10^6 deep", [bounded, "depth", "1000000"], None, 0, "", "1000000 deep\n"),
        ("unbounded recursion", [grow, "recurse"], 300000, 70, OUT_OF_MEMORY, "recurse\n"),
        ("atom table full, caught", [bounded, "atoms"], None, 0, "", re.compile(r"system_limit at atom\d+\n")),
        ("atom table full, uncaught", [grow, "atoms"], None, 127, r"clause: exception error: system_limit\n",
         "atoms\n"),
        ("binary too large for memory", [grow, "binary"], None, 70, OUT_OF_MEMORY, "binary\n"),
        ("not a BEAM file", [garbage], None, 1, re.escape(f"clause: {garbage}: not a BEAM file (bad magic)") + "\n",
         ""),
        ("BEAM of a later OTP", [newer], None, 1,
         re.escape(f"clause: {newer}: Code chunk: uses opcodes up to {newer_max}, newer than OTP 25 (") + r"\d+\)\n",
         ""),
        ("program file named otherwise: runs its module, as escript", [renamed, "depth", "3"], None, 0, "",
         "3 deep\n"),
        ("module file holding another module", [bounded, "call", "elsewhere"], None, 0,
         re.escape(f"clause: cannot load module elsewhere: {tmp}/elsewhere.beam: holds module limits_grow, "
                   "not the file's name") + "\n",
         re.compile(r"\{'EXIT',\{undef,\[\{elsewhere,main,\[\[\]\],\[\]\},.*\n", re.DOTALL)),
        ("no main/1", [nomain], None, 127, r"clause: exception error: undefined function limits_nomain:main/1\n", ""),
        ("arguments not UTF-8", [bounded, "args", "caf\xe9".encode("latin-1"), "é".encode(), b"\xff\xfe"], None, 0,
         "", "[[99,97,102,233],[233],[255,254]]\n"),
    ]


def newer_opcodes(tmp, beam):
    """A copy of beam whose Code header claims opcodes 20 past its own."""
    data = bytearray(open(beam, "rb").read())
    at = data.index(b"Code") + 16  # id, size, header size, instruction set: then the highest opcode
    highest = struct.unpack(">I", data[at:at + 4])[0] + 20
    data[at:at + 4] = struct.pack(">I", highest)
    path = os.path.join(tmp, "newer.beam")
    with open(path, "wb") as f:
        f.write(data)
    return path, highest


def run_case(clause, case):
    name, argv, limit_kb, status, stderr_re, stdout_want = case
    started = time.monotonic()
    try:
        done = subprocess.run([clause] + argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                              preexec_fn=address_space(limit_kb) if limit_kb else None)
    except subprocess.TimeoutExpired:
        return name, "timed out after 120 s", 120.0
    seconds = time.monotonic() - started
    out, err = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
    problems = []
    if done.returncode != status:
        problems.append(f"status {done.returncode}, expected {status}")
    if not re.fullmatch(stderr_re, err):
        problems.append(f"stderr {err[-300:]!r} does not match {stderr_re!r}")
    if callable(stdout_want):
        good = stdout_want(out)
    elif isinstance(stdout_want, re.Pattern):
        good = stdout_want.fullmatch(out) is not None
    else:
        good = out == stdout_want
    if not good:
        problems.append(f"stdout {out[-300:]!r} is not what it should be")
    return name, "; ".join(problems), seconds


def printed_while_waiting(clause, bounded):
    """A program that printed a line and then waits has it on its pipe
    before it ends: what it printed is not lost when it is killed."""
    started = time.monotonic()
    child = subprocess.Popen([clause, bounded, "print_and_wait"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    try:
        ready, _, _ = select.select([child.stdout], [], [], 20)
        line = child.stdout.readline() if ready else b""
    finally:
        child.kill()
        child.wait()
    problem = "" if line == b"printed\n" else f"stdout {line!r} within 20 s, expected 'printed'"
    return "output on its pipe while the program waits", problem, time.monotonic() - started


def closed_pipe(clause, bounded, how, status, stderr_want):
    """Output into a pipe whose reader closed it: the write fails, the
    program's io call raises terminated (as on OTP), nothing is killed by
    SIGPIPE."""
    started = time.monotonic()
    child = subprocess.Popen([clause, bounded, "closed_pipe", how], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = child.stdout.readline()
    child.stdout.close()
    try:
        err = child.stderr.read().decode("utf-8", "replace")
        status_got = child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        return f"output into a closed pipe ({how})", "timed out after 60 s", time.monotonic() - started
    problems = []
    if line != b"line 1\n":
        problems.append(f"first line {line!r}")
    if status_got != status:
        problems.append(f"status {status_got}, expected {status}")
    if err != stderr_want:
        problems.append(f"stderr {err[-300:]!r}, expected {stderr_want!r}")
    return f"output into a closed pipe ({how})", "; ".join(problems), time.monotonic() - started


def main():
    if len(sys.argv) < 2 or len(sys.argv) > 3 or (len(sys.argv) == 3 and sys.argv[2] != "--full"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    clause = os.path.abspath(sys.argv[1])
    full = len(sys.argv) == 3
    with tempfile.TemporaryDirectory(prefix="clause-limits-") as tmp:
        nomain = os.path.join(tmp, "limits_nomain.erl")
        with open(nomain, "w") as f:
            f.write("-module(limits_nomain).\n-export([start/0]).\nstart() -> ok.\n")
        sources = [os.path.join(HERE, "limits_grow.erl"), os.path.join(HERE, "limits_bounded.erl"), nomain]
        subprocess.run(["erlc", "-W0", "-o", tmp] + sources, check=True)
        failed = 0
        # Two at a time: the memory cases each take a core while they fill their limit.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda c: run_case(clause, c), cases(tmp, full)))
        bounded = os.path.join(tmp, "limits_bounded.beam")
        results.append(printed_while_waiting(clause, bounded))
        uncaught = "clause: exception error: terminated\n"
        results.append(closed_pipe(clause, bounded, "direct", 127, uncaught))
        results.append(closed_pipe(clause, bounded, "server", 127, uncaught))
        results.append(closed_pipe(clause, bounded, "caught", 0, "terminated caught\n"))
        for name, problem, seconds in results:
            print(f"{'FAIL' if problem else 'ok  '} {name} ({seconds:.1f} s){': ' + problem if problem else ''}")
            failed += bool(problem)
    print(f"limits: {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
