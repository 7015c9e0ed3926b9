"""The element types Symm arrays, kernels and collectives share.

Each dtype is known by its NumPy/PyTorch name (``"float32"``), the MLIR element
type that kernel manifests spell (``"f32"``), its code in ``symm_dtype``
(bool has none: the collectives that move bytes take it as int8, the
reductions refuse it; int16 has none either: it is for kernel arguments, such
as bf16 bits a kernel moves as ``i16``, and the collectives refuse it) and its
DLPack type code. The element types the collectives take, their order and
sizes are the runtime's (``symm/dtypes.def``), read from it at import.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from ._runtime import lib


class DType(NamedTuple):
    name: str                  # NumPy / PyTorch spelling
    element: str               # MLIR element type in the manifest
    itemsize: int
    collective: Optional[int]  # symm_dtype value, None where unsupported
    dlpack_code: int           # DLDataTypeCode: 0 int, 2 float, 4 bf, 6 bool


# What only Python knows of each MLIR element type: its NumPy/PyTorch name and
# DLPack type code, in the order of symm.dtypes.
PYTHON_NAMES: Dict[str, Tuple[str, int]] = {
    "i1": ("bool", 6),
    "i8": ("int8", 0),
    "i16": ("int16", 0),
    "i32": ("int32", 0),
    "i64": ("int64", 0),
    "f16": ("float16", 2),
    "bf16": ("bfloat16", 4),
    "f32": ("float32", 2),
    "f64": ("float64", 2),
}
# The element types only kernels take (the collectives do not), and their
# sizes.
KERNEL_ONLY: Dict[str, int] = {"i1": 1, "i16": 2}
# symm_reduce_op's enumerators in declaration order, by their Python names.
REDUCE_OPS = ("sum", "prod", "min", "max")


def runtime_dtypes(name_of: Callable[[int], Optional[bytes]],
                   size_of: Callable[[int], int]) -> List[Tuple[str, int]]:
    """The runtime's element types in symm_dtype's order, as (MLIR name,
    bytes): ``name_of`` and ``size_of`` are symm_dtype_name and
    symm_dtype_size."""
    found = []
    while (name := name_of(len(found))) is not None:
        found.append((name.decode(), size_of(len(found))))
    return found


def table(collective: List[Tuple[str, int]]) -> Dict[str, DType]:
    """Python's dtypes, in the order of PYTHON_NAMES, with the codes and sizes
    of the runtime's element types (``collective``, from
    :func:`runtime_dtypes`). Raises ImportError where the two sides name
    different types."""
    codes = {}
    for code, (element, size) in enumerate(collective):
        if element not in PYTHON_NAMES or element in KERNEL_ONLY:
            raise ImportError(
                f"symm: the runtime's element type {element!r} (symm_dtype "
                f"{code}) has no NumPy name in symm/_dtypes.py; the package "
                f"and the runtime (symm/dtypes.def) disagree")
        codes[element] = (code, size)
    missing = set(PYTHON_NAMES) - set(KERNEL_ONLY) - set(codes)
    if missing:
        raise ImportError(
            f"symm: the runtime has no element type {', '.join(sorted(missing))}"
            f" that symm/_dtypes.py names; the package and the runtime "
            f"(symm/dtypes.def) disagree")
    dtypes = {}
    for element, (name, dlpack) in PYTHON_NAMES.items():
        code, size = codes.get(element, (None, KERNEL_ONLY.get(element)))
        dtypes[name] = DType(name, element, size, code, dlpack)
    return dtypes


DTYPES: Dict[str, DType] = table(
    runtime_dtypes(lib.symm_dtype_name, lib.symm_dtype_size))
# The collectives' dtypes in symm_dtype's order, by their Python names.
COLLECTIVE_DTYPES = tuple(sorted(
    (d.name for d in DTYPES.values() if d.collective is not None),
    key=lambda name: DTYPES[name].collective))
BY_ELEMENT: Dict[str, DType] = {d.element: d for d in DTYPES.values()}


def dtype(spec: Any) -> DType:
    """The Symm dtype of ``spec``: a name (``"float32"``), a NumPy dtype or
    type, or a ``torch.dtype``."""
    if isinstance(spec, str):
        name = spec
    elif type(spec).__module__ == "torch":  # a torch.dtype; torch not imported
        name = str(spec).rsplit(".", 1)[-1]
    else:
        import numpy as np
        try:
            name = np.dtype(spec).name
        except TypeError:
            raise TypeError(f"symm: {spec!r} is not a dtype; expected one of "
                            f"{', '.join(DTYPES)}") from None
    if name not in DTYPES:
        raise TypeError(f"symm: unsupported dtype {name!r}; expected one of "
                        f"{', '.join(DTYPES)}")
    return DTYPES[name]


def numpy_dtype(d: DType):
    """The NumPy dtype of ``d``; bfloat16 comes from ml_dtypes."""
    import numpy as np
    if d.name != "bfloat16":
        return np.dtype(d.name)
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(
            "symm: bfloat16 arrays on the host backend need the ml_dtypes "
            "package (pip install ml_dtypes), which is not importable"
        ) from None
    return np.dtype(ml_dtypes.bfloat16)
