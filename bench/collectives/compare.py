"""Prints, from collectives-bench CSVs of one rank count under several
settings (settings-N-NAME.csv, see settings.sh), NCCL's time (of the first
setting's run) and each setting's per collective, size and launch mode, with
NCCL's time of the same run over the setting's (above 1: faster than NCCL).

    python3 compare.py TITLE settings-2-default.csv settings-2-ll1m.csv ...
"""
import csv
import os
import sys


def main():
    title, paths = sys.argv[1], sys.argv[2:]
    names, symm, nccl = [], {}, {}
    for path in paths:
        name = os.path.basename(path)[:-4].split("-", 2)[-1]
        names.append(name)
        with open(path) as f:
            for r in csv.DictReader(f):
                key = (r["collective"], r.get("mode") or "stream", int(r["bytes"]))
                us = float(r["us"])
                if r["impl"] in ("nccl", "symm"):
                    (nccl if r["impl"] == "nccl" else symm)[(name,) + key] = us
    print(f"== {title}: us per call, NCCL / setting in brackets")
    print("| collective | mode | bytes | NCCL | " + " | ".join(names) + " |")
    print("| --- | --- | --- | --- | " + " | ".join("---" for _ in names) + " |")
    for key in sorted({k[1:] for k in nccl if k[0] == names[0]}):
        cells = []
        for name in names:
            us, base = symm.get((name,) + key), nccl.get((name,) + key)
            cells.append(f"{us:.2f} ({base / us:.2f})" if us and base else "-")
        first = nccl[(names[0],) + key]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {first:.2f} | "
              + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
