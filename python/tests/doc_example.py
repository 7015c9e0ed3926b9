"""Runs the first Python example of docs/Python.md, as a rank of a job:
ctest runs it under symm-run so that the documented example stays true."""

import re
import sys
from pathlib import Path

doc = Path(sys.argv[1]).read_text()
example = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
exec(compile(example, "docs/Python.md", "exec"), {"__name__": "__main__"})
