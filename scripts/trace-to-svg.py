#!/usr/bin/env python3
# ===- trace-to-svg.py - A picture of a symm trace ------------------------=== #
#
# Draws a trace written under SYMM_TRACE (docs/Tracing.md) as an SVG
# timeline with no dependency beyond Python: one row per thread (a block's
# subgroup) of each rank, slices as bars (nested ones thinner), signals as
# ticks and each signal-to-wait flow as a line. --subgroup keeps one
# subgroup of each block, --blocks the first blocks of each rank, --window
# a time range in microseconds, so that the picture stays legible; the
# threads where flows start and end are always drawn.
#
# ===---------------------------------------------------------------------=== #

import argparse
import json
from collections import defaultdict
from xml.sax.saxutils import escape

COLOURS = {"kernel": "#c8c8c8", "range": "#4e79a7", "wait": "#e15759",
           "transfer": "#f28e2b", "signal": "#59a14f"}
RANGE_COLOURS = {"epilogue": "#76b7b2", "push": "#b07aa1"}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trace")
    parser.add_argument("svg")
    parser.add_argument("--subgroup", type=int, default=0,
                        help="the subgroup of each block to draw (-1: all)")
    parser.add_argument("--blocks", type=int, default=8,
                        help="blocks of each rank to draw")
    parser.add_argument("--window", type=float, nargs=2, default=None,
                        metavar=("FROM", "TO"), help="microseconds")
    parser.add_argument("--title", default="")
    args = parser.parse_args()
    with open(args.trace) as f:
        events = json.load(f)["traceEvents"]

    names = {}
    for e in events:
        if e.get("ph") == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]

    def keep(pid, tid):
        block, subgroup = divmod(tid, 1024)
        if args.subgroup >= 0 and subgroup != args.subgroup:
            return False
        blocks = sorted({t // 1024 for (p, t) in names if p == pid})
        return block in blocks[:args.blocks]

    slices, instants, flows = defaultdict(list), defaultdict(list), {}
    open_ = defaultdict(list)
    for e in events:
        ph = e.get("ph")
        if ph == "M":
            continue
        thread = (e["pid"], e["tid"])
        ts = float(e["ts"])
        if ph == "B":
            open_[thread].append((ts, e))
        elif ph == "E":
            start, begin = open_[thread].pop()
            slices[thread].append((start, ts, begin, len(open_[thread])))
        elif ph == "i":
            instants[thread].append(ts)
        elif ph in ("s", "f"):
            flows.setdefault(e["id"], {})[ph] = (thread, ts)

    # The threads flows start and end at, too.
    ends = {end[0] for flow in flows.values() for end in flow.values()}
    rows = sorted(t for t in names if keep(*t) or t in ends)
    if not rows:
        raise SystemExit("trace-to-svg: no thread to draw")
    times = [s for t in rows for (s, _, _, _) in slices[t]] + \
        [e for t in rows for (_, e, _, _) in slices[t]]
    lo, hi = (min(times), max(times)) if not args.window else args.window
    width, left, row_h, top = 1100, 190, 18, 40
    scale = (width - left - 20) / max(hi - lo, 1e-9)
    height = top + row_h * len(rows) + 60
    x = lambda ts: left + (min(max(ts, lo), hi) - lo) * scale
    y = {t: top + i * row_h for i, t in enumerate(rows)}
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="13">{escape(args.title)}</text>']
    previous_rank = None
    for t in rows:
        if t[0] != previous_rank and previous_rank is not None:
            out.append(f'<line x1="0" x2="{width}" y1="{y[t] - 1}" '
                       f'y2="{y[t] - 1}" stroke="#333"/>')
        previous_rank = t[0]
        out.append(f'<text x="6" y="{y[t] + 12}">rank {t[0]} '
                   f'{escape(names[t])}</text>')
        for start, end, begin, depth in sorted(slices[t],
                                               key=lambda s: s[3]):
            if end < lo or start > hi:
                continue
            cat = begin.get("cat", "")
            colour = COLOURS.get(cat, "#999")
            if cat == "range":
                colour = RANGE_COLOURS.get(begin["name"].split()[0], colour)
            inset = min(depth, 3) * 3
            out.append(
                f'<rect x="{x(start):.2f}" y="{y[t] + inset + 1}" '
                f'width="{max(x(end) - x(start), 0.6):.2f}" '
                f'height="{row_h - 2 - 2 * inset}" fill="{colour}">'
                f'<title>{escape(begin["name"])}: {end - start:.3f} us'
                f'</title></rect>')
        for ts in instants[t]:
            if lo <= ts <= hi:
                out.append(f'<line x1="{x(ts):.2f}" x2="{x(ts):.2f}" '
                           f'y1="{y[t]}" y2="{y[t] + row_h}" '
                           f'stroke="{COLOURS["signal"]}" stroke-width="2"/>')
    for flow in flows.values():
        if "s" in flow and "f" in flow:
            (ts_, s), (tf_, f) = flow["s"], flow["f"]
            if ts_ in y and tf_ in y and lo <= s <= hi and lo <= f <= hi:
                out.append(f'<line x1="{x(s):.2f}" y1="{y[ts_] + row_h / 2}" '
                           f'x2="{x(f):.2f}" y2="{y[tf_] + row_h / 2}" '
                           'stroke="#222" stroke-width="0.8" '
                           'stroke-opacity="0.6"/>')
    axis = top + row_h * len(rows) + 14
    for i in range(6):
        ts = lo + (hi - lo) * i / 5
        out.append(f'<text x="{x(ts) - 15:.1f}" y="{axis}">{ts - lo:.0f} us'
                   '</text>')
    legend = [("kernel", COLOURS["kernel"]), ("tile", COLOURS["range"]),
              ("epilogue", RANGE_COLOURS["epilogue"]),
              ("push", RANGE_COLOURS["push"]), ("wait", COLOURS["wait"]),
              ("put", COLOURS["transfer"]), ("signal", COLOURS["signal"])]
    for i, (label, colour) in enumerate(legend):
        out.append(f'<rect x="{left + i * 110}" y="{axis + 14}" width="12" '
                   f'height="12" fill="{colour}"/><text x="{left + i * 110 + 16}"'
                   f' y="{axis + 24}">{label}</text>')
    out.append("</svg>")
    with open(args.svg, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
