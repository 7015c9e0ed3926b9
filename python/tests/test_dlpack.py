"""The DLPack capsules that hand heap memory to PyTorch on GPUs, consumed
here by NumPy on the CPU: the same structures, the CPU's device code."""

import gc

import numpy as np
import pytest

from symm import _tensors
from symm._dtypes import DTYPES

KDL_CPU = (1, 0)


class _Producer:
    """What NumPy's from_dlpack consumes: a capsule and its device."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return KDL_CPU


@pytest.mark.parametrize("name", ["int8", "int32", "int64", "float16",
                                  "float32", "float64"])
def test_strided_views_through_dlpack(name):
    memory = np.arange(48).astype(name)
    d = DTYPES[name]
    # Rows 0, 2, 4 of a 6x8 array, every other column.
    capsule = _tensors.dlpack_capsule(memory.ctypes.data, (3, 4), d, (16, 2),
                                      KDL_CPU)
    view = np.from_dlpack(_Producer(capsule))
    assert view.dtype == memory.dtype
    np.testing.assert_array_equal(view, memory.reshape(6, 8)[::2, ::2])
    assert np.shares_memory(view, memory)  # a view, not a copy


def test_zero_dimensional_and_the_deleter():
    memory = np.array([7], dtype=np.int64)
    key = _tensors._next_id[0]
    view = np.from_dlpack(_Producer(_tensors.dlpack_capsule(
        memory.ctypes.data, (), DTYPES["int64"], (), KDL_CPU)))
    assert view.shape == () and view == 7
    assert key in _tensors._live
    del view
    gc.collect()
    # The consumer called the deleter: the structures are let go.
    assert key not in _tensors._live
