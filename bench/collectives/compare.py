"""Prints, from collectives-bench CSVs of one rank count under several
settings (settings-N-NAME.csv, see settings.sh), NCCL's time (of the first
setting's run) and each setting's per collective, size and launch mode, with
NCCL's time of the same run over the setting's (above 1: faster than NCCL).
A torch_symm_mem.py CSV among them (a name starting with "torch") adds, for
the all-reduce, torch symmetric memory's best time (one-shot or two-shot)
and each setting's time over it (the issue's goal: at most 0.6).

    python3 compare.py TITLE settings-2-default.csv settings-2-ll1m.csv ...
        [torch.csv]
"""
import csv
import os
import sys


def main():
    title, paths = sys.argv[1], sys.argv[2:]
    names, symm, nccl, torch = [], {}, {}, {}
    for path in paths:
        if os.path.basename(path).startswith("torch"):
            with open(path) as f:
                for r in csv.DictReader(f):
                    if r["impl"] in ("torch_one_shot", "torch_two_shot"):
                        key = (r["collective"], r["mode"], int(r["bytes"]))
                        torch[key] = min(float(r["us"]), torch.get(key, 1e30))
            continue
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
    keys = sorted(k for k in torch if any((n,) + k in symm for n in names))
    if keys:
        print(f"== {title}: all-reduce, us per call, setting / torch symmetric"
              " memory's best in brackets")
        print("| mode | bytes | torch best | " + " | ".join(names) + " |")
        print("| --- | --- | --- | " + " | ".join("---" for _ in names) + " |")
        for key in keys:
            best = torch[key]
            cells = []
            for name in names:
                us = symm.get((name,) + key)
                cells.append(f"{us:.2f} ({us / best:.2f})" if us else "-")
            print(f"| {key[1]} | {key[2]} | {best:.2f} | "
                  + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
