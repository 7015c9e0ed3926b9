"""The facts the package shares with the runtime's headers, checked against
the headers themselves (Python cannot include them)."""

import re
from pathlib import Path

import symm
from symm import _dtypes, _module
from symm._runtime import lib

HEADERS = Path(__file__).resolve().parents[2] / "runtime" / "include" / "symm"


def enumerators(header: str, enum: str):
    text = (HEADERS / header).read_text()
    body = re.search(r"typedef enum " + enum + r" \{(.*?)\}", text, re.S)
    return re.findall(r"\b(SYMM_\w+)", body.group(1))


def test_dtype_codes_follow_collectives_h():
    names = enumerators("collectives.h", "symm_dtype")
    assert [n[len("SYMM_"):].lower() for n in names] == \
        list(_dtypes.COLLECTIVE_DTYPES)
    for name in _dtypes.COLLECTIVE_DTYPES:
        d = _dtypes.DTYPES[name]
        assert lib.symm_dtype_size(d.collective) == d.itemsize


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
