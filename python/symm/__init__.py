"""Symm from Python: symmetric arrays and tensors, Symm kernels launched on
them, and collectives, on every rank of a job.

Run one Python process per rank under ``symm-run -n N python3 prog.py``,
``torchrun --nproc-per-node N prog.py`` or ``mpirun -n N python3 prog.py``::

    import symm
    symm.init()
    x = symm.zeros(1024, dtype="float32")   # collective; numpy on the host
    m = symm.compile(open("kernels.mlir").read())   # or symm.load("k.cubin")
    m["scale"](grid=4, block=256, args=[x, 2.5])
    symm.barrier()
    y = symm.all_reduce(x, op="sum")
    symm.free(x)
    symm.finalize()                          # also runs at exit

On the host backend arrays are ``numpy.ndarray``s; on the cuda and hip
backends ``torch.Tensor``s on the rank's device (through DLPack). Errors of
the runtime raise :class:`SymmError` naming the rank; bad arguments raise
``TypeError`` or ``ValueError`` naming the call (and for kernels the kernel
and the argument). See docs/Python.md.
"""

import sys as _sys

try:
    import numpy as _numpy  # noqa: F401
except ImportError as _error:
    raise ImportError(
        f"symm needs NumPy, which this Python ({_sys.executable}) cannot "
        f"import ({_error}). The README's set-up (scripts/setup.sh) installs "
        "Debian's python3-numpy for /usr/bin/python3; for another Python, "
        "pip install numpy (pip install ./python installs it with symm)"
    ) from None

from ._collectives import (all_gather, all_reduce, all_to_all, broadcast,
                           reduce_scatter)
from ._compiler import compile, default_target
from ._core import (Graph, Stream, backend, barrier, empty, finalize, free,
                    heap_free, init, is_initialized, multiprocessors, peer,
                    rank, synchronize, world_size, zeros)
from ._dtypes import DTYPES
from ._module import Kernel, Module, load
from ._runtime import SymmError
from ._tensor_maps import TensorMap, tensor_map

#: The dtypes arrays and kernels take (collectives: all but int16;
#: reductions: all but bool and int16).
dtypes = tuple(DTYPES)

__all__ = [
    "init", "finalize", "is_initialized", "rank", "world_size", "backend",
    "multiprocessors",
    "empty", "zeros", "free", "peer", "barrier", "synchronize", "heap_free",
    "Stream", "Graph", "compile", "default_target", "load", "Module",
    "Kernel", "tensor_map", "TensorMap",
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
    "SymmError", "dtypes",
]
