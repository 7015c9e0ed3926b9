#!/usr/bin/env python3
"""Where a kernel's time goes, from a Symm trace (docs/Tracing.md).

    scripts/trace-phases.py TRACE.json [--kernel NAME] [--top N] [--merge]

A subgroup's kernel is its outermost slice; inside it, the trace holds the
begin and end of waits and ranges and the signals it sent. Each kernel run
becomes a sequence of marks (begin, each event, end); runs with the same
sequence are one shape. For each kernel and its N most common shapes (3 by
default) this prints how many subgroup runs had it and the median time
between consecutive marks, in microseconds, so a phase that takes most of
the kernel (the stores before a signal, a wait, the copy after it) shows
itself. --merge drops the numbers that end event names (a range's
argument, the rank a put goes to), so that `tile 3` and `tile 5` are one
phase and tiled kernels make one shape. The trace's clocks are those the
runtime aligned (one timeline for every rank).

    scripts/trace-phases.py TRACE.json --kernel NAME --launches [--rank R]

instead takes each launch of the kernel on rank R (0 by default; a
subgroup's n-th run is launch n) and prints, from the launch's first
begin, when its first subgroup entered each range and its last left it,
and the median subgroup's time in it: where the steps of a pipelined
kernel overlap, and which one adds to the launch.
"""
import argparse
import json
import re
import statistics
import sys
from collections import defaultdict


def marks_of(events, merge=False):
    """{(pid, tid): [(ts, label)]} for the begin and end of slices and the
    instants, time-sorted; flows and metadata are left out. With `merge`,
    a name's trailing number goes."""
    out = defaultdict(list)
    for e in events:
        ph = e.get("ph")
        if ph not in ("B", "E", "i", "I") or "ts" not in e:
            continue
        name = e.get("name", "?")
        if merge:
            name = re.sub(r" \d+$", "", name)
        label = {"B": "+", "E": "-"}.get(ph, "!") + name
        out[(e.get("pid"), e.get("tid"))].append((float(e["ts"]), label))
    for v in out.values():
        v.sort(key=lambda m: m[0])
    return out


def kernel_runs(marks):
    """{kernel: [[(ts, label)...]]}: each outermost slice with what it
    holds. A trace event's E carries no name in some writers, so depth
    decides which E closes the kernel."""
    runs = defaultdict(list)
    for seq in marks.values():
        depth, cur, name = 0, None, None
        for ts, label in seq:
            if label[0] == "+":
                if depth == 0:
                    cur, name = [(ts, "begin")], label[1:]
                else:
                    cur.append((ts, label))
                depth += 1
            elif label[0] == "-":
                if depth == 0:
                    continue  # an end whose begin was dropped
                depth -= 1
                if depth == 0:
                    cur.append((ts, "end"))
                    runs[name].append(cur)
                    cur = None
                else:
                    cur.append((ts, label))
            elif cur is not None:
                cur.append((ts, label))
    return runs


def launch_ranges(marks, kernel, rank):
    """[[(name, begin, end)...]] per launch of `kernel` on `rank`: the
    kernel's slice and every range inside it, one list per launch holding
    every subgroup's."""
    launches = defaultdict(list)
    for (pid, _), seq in marks.items():
        if pid != rank:
            continue
        n, stack = -1, []
        for ts, label in seq:
            if label[0] == "+":
                if not stack and label[1:] == kernel:
                    n += 1
                stack.append((label[1:], ts))
            elif label[0] == "-" and stack:
                name, begin = stack.pop()
                if n >= 0 and (stack or name == kernel):
                    launches[n].append((name, begin, ts))
    return [launches[n] for n in sorted(launches)]


def print_launches(marks, kernel, rank):
    ls = launch_ranges(marks, kernel, rank)
    if not ls:
        sys.exit("trace-phases.py: no launch of %s on rank %d" % (kernel, rank))
    print("%s on rank %d: %d launches" % (kernel, rank, len(ls)))
    for n, ranges in enumerate(ls):
        t0 = min(b for _, b, _ in ranges)
        by_name = defaultdict(list)
        for name, b, e in ranges:
            by_name[name].append((b, e))
        order = sorted(by_name, key=lambda k: (k != kernel, min(b for b, _ in by_name[k])))
        for name in order:
            iv = by_name[name]
            lo, hi = min(b for b, _ in iv) - t0, max(e for _, e in iv) - t0
            med = statistics.median(e - b for b, e in iv)
            head = "  launch %d: " % n if name == kernel else "    "
            print("%s%s from %.2f to %.2f us (span %.2f), median %.2f us in it, %d subgroup runs"
                  % (head, name, lo, hi, hi - lo, med, len(iv)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--kernel", help="only this kernel")
    ap.add_argument("--top", type=int, default=3, help="shapes per kernel")
    ap.add_argument("--merge", action="store_true",
                    help="one phase for names that differ only by a trailing number")
    ap.add_argument("--launches", action="store_true",
                    help="each launch of --kernel on --rank: its ranges' spans")
    ap.add_argument("--rank", type=int, default=0, help="the rank of --launches")
    args = ap.parse_args()
    if args.launches and not args.kernel:
        sys.exit("trace-phases.py: --launches needs --kernel")
    try:
        with open(args.trace) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("trace-phases.py: %s: %s" % (args.trace, e))
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    marks = marks_of(events, args.merge)
    if args.launches:
        print_launches(marks, args.kernel, args.rank)
        return
    runs = kernel_runs(marks)
    if args.kernel:
        runs = {k: v for k, v in runs.items() if k == args.kernel}
        if not runs:
            sys.exit("trace-phases.py: no kernel named %s in %s" % (args.kernel, args.trace))
    if not runs:
        sys.exit("trace-phases.py: %s holds no kernel slice" % args.trace)
    for kernel in sorted(runs):
        rs = runs[kernel]
        total = statistics.median(r[-1][0] - r[0][0] for r in rs)
        print("%s: %d subgroup runs, median %.2f us" % (kernel, len(rs), total))
        shapes = defaultdict(list)
        for r in rs:
            shapes[tuple(label for _, label in r)].append(r)
        for shape, group in sorted(shapes.items(), key=lambda kv: -len(kv[1]))[:args.top]:
            print("  %d runs:" % len(group))
            for i in range(len(shape) - 1):
                step = statistics.median(r[i + 1][0] - r[i][0] for r in group)
                print("    %8.2f us  %s -> %s" % (step, shape[i], shape[i + 1]))


if __name__ == "__main__":
    main()
