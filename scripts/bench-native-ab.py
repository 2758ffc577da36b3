#!/usr/bin/env python3
"""A/B of two `texscope` binaries natively by CPU time, for a machine shared with other work.

Wall-clock rates of `texscope bench` swing several-fold when other processes take the 2 cores
(2026-12-06, load average 14: identical code measured 0.38x-2.84x itself in alternating turns); the
CPU time of a process much less. For each format, runs `BIN bench --runs N --format F` of A then B
(ROUNDS alternating turns) and reads each child's user+system CPU time (getrusage); prints the
median CPU seconds of each and the median over turns of B's time over A's (below 1: B is faster).
A turn's time includes the process's start, generating the seeded surface (codec::sample) and BC1,
which `texscope bench` always measures first: the same work on both sides.
Usage: scripts/bench-native-ab.py A_BIN B_BIN [--rounds N] [--runs N] FORMAT...
   or: scripts/bench-native-ab.py A_BIN B_BIN [--rounds N] -- ARG... (one row: BIN ARG..., each
       `{out}` in ARG replaced by a fresh empty folder per turn, e.g. `export DIR --out {out}`)
"""
import resource
import statistics
import subprocess
import sys
import tempfile

args = sys.argv[1:]


def opt(name, default):
    if name in args:
        i = args.index(name)
        v = args[i + 1]
        del args[i : i + 2]
        return v
    return default


rounds = int(opt("--rounds", "5"))
runs = opt("--runs", "10")
command = None
if "--" in args:
    command = args[args.index("--") + 1 :]
    del args[args.index("--") :]
a, b, *formats = args
rows = [(" ".join(command), command)] if command else [
    (f, ["bench", "--runs", runs, "--format", f]) for f in formats]
label = "command" if command else "format"
print(f"| {label} | A CPU s (median) | B CPU s (median) | B/A (median of {rounds} turns) |")
print("|---|---|---|---|")
for name, argv in rows:
    t = {a: [], b: []}
    for _ in range(rounds):
        for binary in (a, b):
            with tempfile.TemporaryDirectory() as out:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                subprocess.run([binary] + [x.replace("{out}", out) for x in argv], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
            t[binary].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    ratio = statistics.median(y / x for x, y in zip(t[a], t[b]))
    print(f"| {name} | {statistics.median(t[a]):.2f} | {statistics.median(t[b]):.2f} | {ratio:.2f} |")
