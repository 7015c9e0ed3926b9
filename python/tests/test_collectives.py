"""Each collective against NumPy, for every dtype it takes."""

import numpy as np
import pytest

import symm

DTYPES = ["int8", "int32", "int64", "float16", "float32", "float64"]
OPS = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max}


def data(rank, shape, dtype):
    """Small values whose sums and products are exact in every dtype."""
    return ((np.arange(np.prod(shape)).reshape(shape) + 3 * rank) % 5 +
            1).astype(dtype)


def every_rank(shape, dtype):
    return np.stack([data(r, shape, dtype) for r in range(symm.world_size())])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_all_reduce(dtype, op):
    x = data(symm.rank(), (3, 7), dtype)  # host memory: not symmetric
    out = symm.all_reduce(x, op=op)
    assert out.shape == x.shape and out.dtype == x.dtype
    np.testing.assert_array_equal(out,
                                  OPS[op](every_rank((3, 7), dtype), axis=0))


def test_all_reduce_in_place_on_a_symmetric_array():
    x = symm.empty(100, dtype="float32")
    x[...] = data(symm.rank(), 100, "float32")
    assert symm.all_reduce(x, out=x) is x
    np.testing.assert_array_equal(x, every_rank(100, "float32").sum(axis=0))
    symm.barrier()
    symm.free(x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_all_gather(dtype):
    x = data(symm.rank(), (2, 3), dtype)
    out = symm.all_gather(x)
    assert out.shape == (2 * symm.world_size(), 3)
    np.testing.assert_array_equal(
        out, every_rank((2, 3), dtype).reshape(-1, 3))


@pytest.mark.parametrize("op", OPS)
def test_reduce_scatter(op):
    n, me = symm.world_size(), symm.rank()
    x = data(me, (2 * n, 5), "int32")
    out = np.empty((2, 5), dtype=np.int32)
    assert symm.reduce_scatter(x, op=op, out=out) is out
    want = OPS[op](every_rank((2 * n, 5), "int32"), axis=0)
    np.testing.assert_array_equal(out, want[2 * me:2 * me + 2])


@pytest.mark.parametrize("dtype", ["int8", "float64"])
def test_all_to_all(dtype):
    n, me = symm.world_size(), symm.rank()
    x = data(me, (3 * n,), dtype)
    out = symm.all_to_all(x)
    everyone = every_rank((3 * n,), dtype)
    np.testing.assert_array_equal(
        out, np.concatenate([everyone[i, 3 * me:3 * me + 3]
                             for i in range(n)]))


def test_broadcast():
    n = symm.world_size()
    for root in range(n):
        x = data(symm.rank(), (4, 4), "float16")
        out = symm.broadcast(x, root=root)
        np.testing.assert_array_equal(out, data(root, (4, 4), "float16"))
        symm.broadcast(x, root=root, out=x)
        np.testing.assert_array_equal(x, data(root, (4, 4), "float16"))


def test_bfloat16():
    try:
        import ml_dtypes
    except ImportError:
        pytest.skip("ml_dtypes is not installed: test_runtime checks the error")
    x = data(symm.rank(), 8, ml_dtypes.bfloat16)
    np.testing.assert_array_equal(
        symm.all_reduce(x), every_rank(8, ml_dtypes.bfloat16).sum(axis=0))


def test_asynchronous_then_synchronize():
    x = data(symm.rank(), 16, "int64")
    out = symm.all_reduce(x, sync=False)
    symm.synchronize()
    np.testing.assert_array_equal(out, every_rank(16, "int64").sum(axis=0))
