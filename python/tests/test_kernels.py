"""Kernels loaded with their manifest and launched on (symmetric) arrays."""

import numpy as np

import symm


def test_module_lists_its_kernels(kernels):
    assert set(kernels.kernels) == {"scale", "ring", "scalars", "add_one",
                                    "copy2d", "iota", "scale_all_reduce",
                                    "negate16", "wait_for_last"}
    assert "scale" in kernels
    assert repr(kernels["scale"]) == \
        "<symm.Kernel scale(memref<?xf32, #symm.heap>, index, f32)>"


def test_scale_on_a_symmetric_array(kernels):
    x = symm.zeros(1000, dtype="float32")
    x[...] = np.arange(1000)
    kernels["scale"](grid=(4, 1, 1), block=(256,), args=[x, 1000, 2.5])
    symm.synchronize()
    np.testing.assert_array_equal(x, np.arange(1000, dtype=np.float32) * 2.5)
    symm.barrier()
    symm.free(x)


def test_ring_writes_into_the_next_rank(kernels):
    me, n = symm.rank(), symm.world_size()
    buf = symm.zeros(16, dtype="int32")
    symm.barrier()
    kernels["ring"](grid=1, block=16, args=[buf])
    symm.barrier()
    np.testing.assert_array_equal(buf, np.full(16, (me - 1) % n))
    symm.barrier()
    symm.free(buf)


def test_co_resident_kernels_launch_what_fits(kernels):
    wait = kernels["wait_for_last"]
    assert wait.co_resident and not kernels["scale"].co_resident
    # CPU ranks hold SYMM_HOST_RESIDENT_BLOCKS (132) blocks of any shape, as
    # that many multiprocessors of one block each.
    assert symm.multiprocessors() == 132
    assert wait.max_resident(block=32) == 132
    assert wait.max_resident(block=(8, 4), shared=1024) == 132
    assert wait.max_resident(block=2048) == 0
    flag = symm.zeros(1, dtype="int32")
    wait(grid=132, block=32, args=[flag])
    symm.synchronize()
    assert flag[0] == 1
    symm.barrier()
    symm.free(flag)


def test_int16_arrays(kernels):
    # int16 is for kernels only (bf16 bits a kernel moves as i16): the
    # collectives refuse it (test_errors.py).
    x = symm.zeros(8, dtype="int16")
    x[...] = np.arange(8) - 4
    kernels["negate16"](grid=1, block=8, args=[x])
    symm.synchronize()
    np.testing.assert_array_equal(x, 4 - np.arange(8, dtype=np.int16))
    symm.barrier()
    symm.free(x)


def test_scalars_are_converted_to_the_parameter_types(kernels):
    out = np.zeros(8, dtype=np.float64)  # not symmetric: the memref is not
    kernels["scalars"](args=[out, True, -128, 2**31 - 1, -2**63, 0.333,
                             1.00390625 + 2**-10, np.float32(0.1), 1e300])
    symm.synchronize()
    # f16 rounds 0.333 to 0.33300781; bf16 rounds to nearest even.
    np.testing.assert_array_equal(
        out, [1, -128, 2**31 - 1, -2**63, np.float16(0.333), 1.0078125,
              np.float32(0.1), 1e300])
    # Unsigned spellings of signless integers fit too.
    kernels["scalars"](args=[out, 0, 255, 2**32 - 1, 2**64 - 1, 0, 0, 0, 0])
    symm.synchronize()
    np.testing.assert_array_equal(out[:4], [0, -1, -1, -1])


def test_strided_views(kernels):
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    y = np.zeros((6, 16), dtype=np.float32)
    # x: every other row, columns reversed; y: rows of unit stride, every
    # other one, from column 4.
    kernels["add_one"](grid=3, block=8, args=[x[::2, ::-1], y[::2, 4:12]])
    symm.synchronize()
    np.testing.assert_array_equal(y[::2, 4:12], x[::2, ::-1] + 1)
    y[::2, 4:12] = 0
    assert not y.any()


def test_dynamic_contiguous_2d(kernels):
    # Row-major strides follow the array's own (dynamic) sizes.
    x = np.arange(15, dtype=np.int32).reshape(3, 5)
    y = np.zeros((3, 5), dtype=np.int32)
    kernels["copy2d"](grid=3, block=5, args=[x, y])
    symm.synchronize()
    np.testing.assert_array_equal(y, x)
    # A view whose extent-1 dimension has any stride is still contiguous.
    y[...] = 0
    kernels["copy2d"](grid=1, block=5, args=[x[1:2], y[2:3]])
    symm.synchronize()
    np.testing.assert_array_equal(y[2], x[1])


def test_static_shape(kernels):
    x = np.zeros((4, 4), dtype=np.int64)
    kernels["iota"](block=(4, 4), args=[x])
    symm.synchronize()
    np.testing.assert_array_equal(x, np.arange(16).reshape(4, 4))


def test_streams(kernels):
    x = symm.zeros(64, dtype="float32")
    x[...] = 1
    s = symm.Stream()
    kernels["scale"](grid=1, block=64, args=[x, 64, 3.0], stream=s)
    s.synchronize()
    np.testing.assert_array_equal(x, 3)
    s.close()
    symm.barrier()
    symm.free(x)


def test_context_argument(context_kernels):
    me, n = symm.rank(), symm.world_size()
    buf = symm.zeros(3, dtype="int32")
    symm.barrier()
    context_kernels["identify"](args=[buf])
    symm.barrier()
    np.testing.assert_array_equal(buf, [me, n, (me - 1) % n])
    symm.barrier()
    symm.free(buf)


def test_fused_scale_all_reduce(kernels):
    """A workload driven from Python: a kernel that computes, pushes its
    tile to every rank and waits on flags, checked against NumPy."""
    me, n = symm.rank(), symm.world_size()
    gather = symm.zeros((n, 128), dtype="float32")
    flag = symm.zeros(1, dtype="int32")
    out = np.zeros(128, dtype=np.float32)
    symm.barrier()
    for epoch in (1, 2):
        x = (np.arange(128) % 7 + me + epoch).astype(np.float32)
        kernels["scale_all_reduce"](block=128, args=[x, gather, flag, out,
                                                     0.5, epoch])
        symm.synchronize()
        everyone = [(np.arange(128) % 7 + r + epoch) * 0.5 for r in range(n)]
        np.testing.assert_array_equal(out, np.sum(everyone, axis=0))
        symm.barrier()
    symm.free(flag)
    symm.free(gather)
