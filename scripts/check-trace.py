#!/usr/bin/env python3
# ===- check-trace.py - Check a trace that symm writes -------------------=== #
#
# Checks a Chrome trace-event JSON file written under SYMM_TRACE (symm-run
# --trace) against what docs/Tracing.md promises: valid JSON in the object
# form, a process (named "rank R") for every rank, every B event ended by an
# E event of the same name on its thread, in order, timestamps that never go
# back on a thread, flow starts and finishes that pair up by id, and no
# flow whose finish (the satisfied wait) is earlier than its start (the
# signal) by more than --flow-tolerance: the ranks' clocks are aligned at
# symm_finalize, and a flow that goes back further says they are not. Prints
# what it found, with the largest step back of a flow and, for each pair of
# ranks, the shortest flow from one to the other, or the first problem, and
# exits with 1. (The runtime draws a flow from the latest signal before the
# wait's end, so its flows never go back; the shortest flow from rank A to
# rank B bounds how far B's clock may run ahead of A's.)
#
# ===---------------------------------------------------------------------=== #

import argparse
import json
import sys


def fail(message):
    print(f"check-trace: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trace")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--min-flows", type=int, default=0,
                        help="at least this many signal-to-wait flows")
    parser.add_argument("--kernel", action="append", default=[],
                        help="a kernel every rank must show")
    parser.add_argument("--range", action="append", default=[],
                        help="a symm.trace range (name prefix) every rank "
                        "must show")
    parser.add_argument("--flow-tolerance", type=float, default=5.0,
                        metavar="US",
                        help="how far (microseconds) a flow may go back in "
                        "time, from the signal to the wait it satisfied, "
                        "before the ranks' clocks count as misaligned "
                        "(default 5)")
    args = parser.parse_args()

    try:
        with open(args.trace) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{args.trace} is not a JSON file: {e}")
    if not isinstance(trace, dict) or not isinstance(
            trace.get("traceEvents"), list):
        fail("the trace is not an object with a traceEvents list")
    events = trace["traceEvents"]

    processes = {e["pid"]: e["args"]["name"] for e in events
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
    for rank in range(args.ranks):
        if processes.get(rank) != f"rank {rank}":
            fail(f"rank {rank} has no process (processes: {processes})")
    if len(processes) != args.ranks:
        fail(f"{len(processes)} processes for {args.ranks} ranks")

    stacks, last, names = {}, {}, {}
    flows_s, flows_f = {}, {}
    slices = 0
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph not in ("M", "B", "E", "i", "s", "f"):
            fail(f"event {i} has phase {ph!r}, which symm does not write")
        if ph == "M":
            continue
        for key in ("pid", "tid", "ts", "name"):
            if key not in e:
                fail(f"event {i} ({ph}) has no {key}")
        if e["pid"] not in processes:
            fail(f"event {i} is on pid {e['pid']}, which is no rank")
        thread = (e["pid"], e["tid"])
        ts = float(e["ts"])
        if ts < last.get(thread, float("-inf")):
            fail(f"event {i} goes back in time on pid {thread[0]} tid "
                 f"{thread[1]}: {ts} after {last[thread]}")
        last[thread] = ts
        stack = stacks.setdefault(thread, [])
        if ph == "B":
            stack.append(e["name"])
            names.setdefault(e["pid"], set()).add(e["name"])
        elif ph == "E":
            if not stack or stack[-1] != e["name"]:
                fail(f"event {i} ends {e['name']!r} on pid {thread[0]} tid "
                     f"{thread[1]}, where {stack[-1] if stack else 'nothing'!r}"
                     " is open")
            stack.pop()
            slices += 1
        elif ph in ("s", "f"):
            table = flows_s if ph == "s" else flows_f
            if e.get("id") in table:
                fail(f"flow id {e.get('id')} has two {ph} events")
            table[e.get("id")] = (ts, e["pid"], e["tid"])
    for thread, stack in stacks.items():
        if stack:
            fail(f"{stack[-1]!r} on pid {thread[0]} tid {thread[1]} never "
                 "ends")
    if set(flows_s) != set(flows_f):
        fail(f"flows without a pair: {sorted(set(flows_s) ^ set(flows_f))}")
    # A wait ends after the signal that satisfied it: a flow that goes back
    # shows clocks that disagree.
    backward, backward_id, shortest = 0.0, None, {}
    for id, (start, spid, stid) in flows_s.items():
        finish, fpid, ftid = flows_f[id]
        back = start - finish
        if back > args.flow_tolerance:
            fail(f"flow {id} goes back {back:.3f} us: the wait on pid {fpid} "
                 f"tid {ftid} ends at {finish}, before the signal on pid "
                 f"{spid} tid {stid} at {start}, more than the "
                 f"{args.flow_tolerance:g} us --flow-tolerance allows (the "
                 "ranks' clocks are not aligned)")
        if back > backward:
            backward, backward_id = back, id
        pair = (spid, fpid)
        shortest[pair] = min(shortest.get(pair, float("inf")), -back)
    if len(flows_s) < args.min_flows:
        fail(f"{len(flows_s)} flows, fewer than {args.min_flows}")
    for rank in range(args.ranks):
        shown = names.get(rank, set())
        for kernel in args.kernel:
            if kernel not in shown:
                fail(f"rank {rank} shows no kernel {kernel!r}")
        for prefix in args.range:
            if not any(n.startswith(prefix) for n in shown):
                fail(f"rank {rank} shows no range {prefix!r}")
    print(f"trace ok: {args.ranks} ranks, {len(stacks)} threads, "
          f"{slices} slices, {len(flows_s)} flows, largest backward flow "
          f"{backward:.3f} us" +
          (f" (flow {backward_id})" if backward_id is not None else ""))
    across = sorted(pair for pair in shortest if pair[0] != pair[1])
    if across:
        print("shortest flow from rank to rank: " + ", ".join(
            f"{s} -> {f} {shortest[(s, f)]:.3f} us" for s, f in across))


if __name__ == "__main__":
    main()
