"""Each collective against NumPy, for every dtype it takes."""

import numpy as np
import pytest

import symm
from symm._dtypes import COLLECTIVE_DTYPES

# bfloat16 needs ml_dtypes for NumPy: test_bfloat16 below.
DTYPES = [d for d in COLLECTIVE_DTYPES if d != "bfloat16"]
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


def test_collectives_replay_from_a_graph():
    me, n = symm.rank(), symm.world_size()
    s = symm.Stream()
    x = symm.empty(64, dtype="int32")
    y = symm.empty(64, dtype="int32")
    g_in = symm.empty(4, dtype="int32")
    g_out = symm.empty(4 * n, dtype="int32")
    x[...] = data(me, 64, "int32")
    # The stream's first collective makes its channel: not in a capture.
    symm.all_reduce(x, out=y, stream=s)
    graph = symm.Graph()
    with graph.capture(s):
        symm.all_reduce(x, out=y, stream=s, sync=False)
        symm.all_gather(g_in, out=g_out, stream=s, sync=False)
    for replay in range(3):
        x[...] = data(me + replay, 64, "int32")
        g_in[...] = me * 10 + replay
        graph.launch(s)
        s.synchronize()
        want = np.stack([data(r + replay, 64, "int32")
                         for r in range(n)]).sum(axis=0)
        np.testing.assert_array_equal(y, want)
        np.testing.assert_array_equal(
            g_out, np.repeat(np.arange(n) * 10 + replay, 4))
    graph.close()
    symm.barrier()
    for a in (g_out, g_in, y, x):
        symm.free(a)
    s.close()


def test_graph_misuse_says_why():
    s = symm.Stream()
    x = symm.empty(8, dtype="int32")
    x[...] = 1
    symm.all_reduce(x, out=x, stream=s)
    graph = symm.Graph()
    with pytest.raises(ValueError, match="Graph.launch: nothing was captured"):
        graph.launch(s)
    with pytest.raises(ValueError, match="default stream cannot be captured"):
        with graph.capture(None):
            pass
    # Waiting for the result inside a capture cannot work; the capture ends
    # and the stream is usable again.
    with pytest.raises(symm.SymmError, match="symm_synchronize"):
        with graph.capture(s):
            symm.all_reduce(x, out=x, stream=s)
    assert graph.handle is None
    symm.all_reduce(x, out=x, stream=s)
    np.testing.assert_array_equal(x, np.full(8, symm.world_size() ** 2))
    symm.barrier()
    symm.free(x)
    s.close()


def test_bool_moves_as_bytes():
    # docs/Python.md lists bool among the dtypes; the collectives that move
    # values take it, the reductions refuse it (test_errors.py).
    n, me = symm.world_size(), symm.rank()

    def flags(rank, count):
        return (np.arange(count) + rank) % 3 == 0

    gathered = symm.all_gather(flags(me, 5))
    assert gathered.dtype == bool
    np.testing.assert_array_equal(
        gathered, np.concatenate([flags(r, 5) for r in range(n)]))
    mine = flags(me, 2 * n)
    exchanged = symm.all_to_all(mine)
    np.testing.assert_array_equal(
        exchanged, np.concatenate([flags(r, 2 * n)[2 * me:2 * me + 2]
                                   for r in range(n)]))
    x = symm.zeros(7, dtype="bool")
    x[...] = flags(me, 7)
    assert symm.broadcast(x, root=n - 1, out=x) is x
    np.testing.assert_array_equal(x, flags(n - 1, 7))
    symm.barrier()
    symm.free(x)
