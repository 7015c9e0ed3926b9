#!/usr/bin/env python3
# ===- doc-files.py - Write out the files a document shows ------------------===#
#
# A guide shows complete files as fenced code blocks, each right after a line
# `<!-- file: PATH -->`; the tests write them out with this script and run
# them, so the guide is the one copy of its example.
#
#   doc-files.py DOC OUTDIR   writes OUTDIR/PATH for every such block
#
# ===------------------------------------------------------------------------===#
import os
import re
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: doc-files.py DOC OUTDIR")
    doc, outdir = sys.argv[1], sys.argv[2]
    lines = open(doc).read().splitlines(keepends=True)
    marker = re.compile(r"^<!-- file: (\S+) -->$")
    written = set()
    i = 0
    while i < len(lines):
        m = marker.match(lines[i].rstrip("\n"))
        i += 1
        if not m:
            continue
        path = m.group(1)
        if i >= len(lines) or not lines[i].startswith("```"):
            sys.exit("%s:%d: no code block after the file marker of %s" % (doc, i, path))
        if path in written:
            sys.exit("%s:%d: %s is shown twice" % (doc, i, path))
        end = i + 1
        while end < len(lines) and lines[end].rstrip("\n") != "```":
            end += 1
        if end == len(lines):
            sys.exit("%s:%d: the code block of %s is not closed" % (doc, i + 1, path))
        target = os.path.join(outdir, path)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        with open(target, "w") as out:
            out.writelines(lines[i + 1:end])
        if path.endswith(".sh"):
            os.chmod(target, 0o755)
        written.add(path)
        i = end + 1
    if not written:
        sys.exit("%s: no file markers (<!-- file: PATH -->)" % doc)


if __name__ == "__main__":
    main()
