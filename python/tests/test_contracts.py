"""The facts the package shares with the runtime's headers, checked against
the headers themselves (Python cannot include them)."""

import re
from pathlib import Path

import pytest

import symm
from symm import _dtypes, _module
from symm._runtime import lib

HEADERS = Path(__file__).resolve().parents[2] / "runtime" / "include" / "symm"


def enumerators(header: str, enum: str):
    text = (HEADERS / header).read_text()
    body = re.search(r"typedef enum " + enum + r"\b[^{]*\{(.*?)\}", text, re.S)
    return re.findall(r"\b(SYMM_\w+)", body.group(1))


def test_dtypes_follow_dtypes_def():
    rows = re.findall(r"^SYMM_DTYPE\((\w+), (\w+), (\d+), (\w+)\)$",
                      (HEADERS / "dtypes.def").read_text(), re.M)
    assert rows
    assert [(_dtypes.DTYPES[n].element, _dtypes.DTYPES[n].itemsize)
            for n in _dtypes.COLLECTIVE_DTYPES] == \
        [(name, int(size)) for _, name, size, _ in rows]
    for code, name in enumerate(_dtypes.COLLECTIVE_DTYPES):
        d = _dtypes.DTYPES[name]
        assert d.collective == code
        assert lib.symm_dtype_size(code) == d.itemsize
        assert lib.symm_dtype_name(code).decode() == d.element
    assert lib.symm_dtype_name(len(rows)) is None


def test_dtypes_that_drift_fail_the_import():
    runtime = _dtypes.runtime_dtypes(lib.symm_dtype_name, lib.symm_dtype_size)
    assert _dtypes.table(runtime) == _dtypes.DTYPES
    with pytest.raises(ImportError, match="'f8' \\(symm_dtype 7\\) has no "
                       "NumPy name"):
        _dtypes.table(runtime + [("f8", 1)])
    with pytest.raises(ImportError, match="the runtime has no element type "
                       "bf16 that symm/_dtypes.py names"):
        _dtypes.table([t for t in runtime if t[0] != "bf16"])


def test_reduce_ops_follow_collectives_h():
    names = enumerators("collectives.h", "symm_reduce_op")
    assert [n[len("SYMM_"):].lower() for n in names] == \
        list(_dtypes.REDUCE_OPS)


def test_manifest_keys_follow_manifest_h():
    text = (HEADERS / "manifest.h").read_text()
    defines = dict(re.findall(r'#define (SYMM_MANIFEST_\w+) "([^"]*)"', text))
    for macro, value in _module.MANIFEST_KEYS.items():
        assert defines.get(macro) == value, macro


def test_help_reads_well():
    doc = symm.__doc__
    assert "symm.init()" in doc and "docs/Python.md" in doc
    for name in symm.__all__:
        obj = getattr(symm, name)
        if callable(obj):
            assert obj.__doc__, name
