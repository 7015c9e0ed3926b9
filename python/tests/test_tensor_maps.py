"""TMA descriptors (symm.tensor_map) and kernels that take them: the
arguments are checked before the runtime sees them, and a launch checks a
descriptor against its argument's type (box, element type, swizzle)."""

import re

import numpy as np
import pytest

import symm

TM = "symm.tensor_map: argument "


def test_a_descriptor_of_a_heap_array_and_of_a_peer():
    x = symm.zeros((64, 64), dtype="int16")
    m = symm.tensor_map(x, (16, 64))
    assert (m.shape, m.box, m.swizzle, m.dtype.name) == \
        ((64, 64), (16, 64), 128, "int16")
    assert repr(m) == ("<symm.TensorMap of a int16 array of shape (64, 64), "
                       "box (16, 64), swizzle 128>")
    peer = symm.peer(x, (symm.rank() + 1) % symm.world_size())
    assert symm.tensor_map(peer[16:], (8, 32), swizzle=64).shape == (48, 64)
    assert symm.tensor_map(np.zeros(32, dtype=np.float32), (8,),
                           swizzle=0).box == (8,)
    symm.barrier()
    symm.free(x)


@pytest.mark.parametrize("x,box,swizzle,error,message", [
    ([1, 2], (2,), 0, TypeError, TM + "x: expected an array or tensor, got "
     "list"),
    (np.zeros((2, 2, 2, 2, 2, 2), np.int32), (1,) * 6, 0, ValueError,
     TM + "x: has 6 dimensions; TMA takes 1 to 5"),
    (np.zeros((8, 8), np.int32)[:, ::2], (8, 4), 0, ValueError,
     TM + r"x: its innermost dimension must be contiguous \(stride 1\), got "
     r"strides \(8, 2\)"),
    (np.zeros((8, 6), np.int16), (8, 6), 0, ValueError, TM + r"x: strides "
     r"\(6, 1\) of 2-byte elements: TMA strides other than the innermost are "
     "multiples of 16 bytes"),
    (np.zeros(33, np.int32)[1:], (8,), 0, ValueError, TM + "x: its first "
     "element must be 16-byte aligned"),
    (np.zeros((8, 8), np.int32), (8,), 0, ValueError, TM + r"box: \(8,\) "
     r"must be 2 integers \(one per dimension of x\) from 1 to 256"),
    (np.zeros((8, 512), np.int32), (8, 512), 0, ValueError, TM + "box: "
     r"\(8, 512\) must be 2 integers"),
    (np.zeros((8, 8), np.int32), 8, 0, TypeError, TM + "box: expected a "
     "sequence of integers, got int"),
    (np.zeros((8, 8), np.int32), (8, 8), 16, ValueError, TM + "swizzle: 16 "
     r"is not one of 0, 32, 64, 128 \(bytes\)"),
    (np.zeros((8, 64), np.int32), (8, 64), 128, ValueError, TM + "box: rows "
     "of 64 int32 elements are 256 bytes; TMA takes rows that are multiples "
     "of 16 bytes and at most 128 with a 128-byte swizzle"),
    (np.zeros((8, 16), np.int8), (8, 8), 0, ValueError, TM + "box: rows of 8 "
     "int8 elements are 8 bytes"),
])
def test_argument_errors_name_the_argument(x, box, swizzle, error, message):
    with pytest.raises(error, match=message):
        symm.tensor_map(x, box, swizzle)


def test_a_kernel_takes_descriptors_of_its_types(tensor_map_kernels):
    k = tensor_map_kernels["prefetch"]
    out = np.zeros(1, np.int32)
    a = np.zeros((8, 8), np.int32)
    b = np.zeros((32, 64), np.int16)
    good = [symm.tensor_map(a, (8, 4), 0), symm.tensor_map(b, (16, 64))]
    k(args=[out] + good)
    symm.synchronize()
    assert out[0] == 1
    where = re.escape("kernel 'prefetch': argument 2 "
                      "(!nvgpu.tensormap.descriptor<")
    with pytest.raises(ValueError, match=f"{where}.*: expected a tensor map "
                       "of a 16x64 box of i16 with a 128-byte swizzle, got a "
                       "8x32 box of i16 with a 64-byte swizzle"):
        k(args=[out, good[0], symm.tensor_map(b, (8, 32), 64)])
    with pytest.raises(ValueError, match="got a 8x4 box of i32 with no "
                       "swizzle"):
        k(args=[out, good[0], good[0]])
    with pytest.raises(TypeError, match=f"{where}.*: expected a "
                       r"symm.TensorMap \(symm.tensor_map\), got int"):
        k(args=[out, good[0], 0])
