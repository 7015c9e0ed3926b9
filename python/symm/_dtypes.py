"""The element types Symm arrays, kernels and collectives share.

Each dtype is known by its NumPy/PyTorch name (``"float32"``), the MLIR element
type that kernel manifests spell (``"f32"``), its code in ``symm_dtype``
(``symm/collectives.h``; bool has none: the collectives that move
bytes take it as int8, the reductions refuse it; int16 has none either: it
is for kernel arguments, such as bf16 bits a kernel moves as ``i16``, and
the collectives refuse it) and its DLPack type code.
"""

from __future__ import annotations

from typing import Any, Dict, NamedTuple, Optional


class DType(NamedTuple):
    name: str                  # NumPy / PyTorch spelling
    element: str               # MLIR element type in the manifest
    itemsize: int
    collective: Optional[int]  # symm_dtype value, None where unsupported
    dlpack_code: int           # DLDataTypeCode: 0 int, 2 float, 4 bf, 6 bool


# symm_dtype's enumerators in declaration order (symm/collectives.h);
# test_dtypes.py checks this order against the header.
COLLECTIVE_DTYPES = ("int8", "int32", "int64", "float16", "bfloat16",
                     "float32", "float64")
# symm_reduce_op's enumerators in declaration order, by their Python names.
REDUCE_OPS = ("sum", "prod", "min", "max")


def _code(name: str) -> Optional[int]:
    return COLLECTIVE_DTYPES.index(name) if name in COLLECTIVE_DTYPES else None


DTYPES: Dict[str, DType] = {
    d.name: d for d in (
        DType("bool", "i1", 1, None, 6),
        DType("int8", "i8", 1, _code("int8"), 0),
        DType("int16", "i16", 2, _code("int16"), 0),
        DType("int32", "i32", 4, _code("int32"), 0),
        DType("int64", "i64", 8, _code("int64"), 0),
        DType("float16", "f16", 2, _code("float16"), 2),
        DType("bfloat16", "bf16", 2, _code("bfloat16"), 4),
        DType("float32", "f32", 4, _code("float32"), 2),
        DType("float64", "f64", 8, _code("float64"), 2),
    )
}
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
