"""Bad arguments raise exceptions naming the call, the kernel and the
argument; none crashes or leaves a peer waiting (each raises on every rank
before any collective call)."""

import numpy as np
import pytest

import symm


@pytest.fixture(scope="module")
def sym():
    x = symm.zeros(64, dtype="float32")
    yield x
    symm.barrier()
    symm.free(x)


# --- Kernel launches --------------------------------------------------------


def test_unknown_kernel(kernels):
    with pytest.raises(KeyError, match="no kernel 'nope' in .*; it has: "
                       "scale, ring, scalars, add_one, copy2d, negate16, "
                       "iota, scale_all_reduce"):
        kernels["nope"]


def test_wrong_argument_count(kernels, sym):
    with pytest.raises(TypeError, match=r"kernel 'scale' takes 3 arguments "
                       r"\(memref<\?xf32, #symm.heap>, index, f32\), got 2"):
        kernels["scale"](args=[sym, 64])


def test_not_an_array(kernels):
    with pytest.raises(TypeError, match=r"kernel 'scale': argument 0 "
                       r"\(memref<\?xf32, #symm.heap>\): expected an array or "
                       "tensor, got list"):
        kernels["scale"](args=[[1.0, 2.0], 2, 1.0])


def test_wrong_element_type(kernels):
    x = symm.zeros(8, dtype="float64")
    with pytest.raises(TypeError, match="kernel 'scale': argument 0 .*: "
                       "expected elements of type f32, got float64"):
        kernels["scale"](args=[x, 8, 1.0])
    symm.free(x)


def test_wrong_rank(kernels):
    x = symm.zeros((2, 4), dtype="float32")
    with pytest.raises(ValueError, match=r"argument 0 .*: expected 1 "
                       r"dimensions, got shape \(2, 4\)"):
        kernels["scale"](args=[x, 8, 1.0])
    symm.free(x)


def test_not_symmetric(kernels):
    x = np.zeros(8, dtype=np.float32)
    with pytest.raises(ValueError, match="argument 0 .*: expected a symmetric "
                       "array .* outside the symmetric heap"):
        kernels["scale"](args=[x, 8, 1.0])


def test_non_contiguous_for_a_contiguous_memref(kernels, sym):
    with pytest.raises(ValueError, match=r"kernel 'scale': argument 0 .*: "
                       r"expected a contiguous \(row-major\) array, got "
                       r"strides \(2,\)"):
        kernels["scale"](args=[sym[::2], 32, 1.0])
    x = np.zeros((4, 4), dtype=np.int64)
    with pytest.raises(ValueError, match=r"kernel 'iota': argument 0 "
                       r"\(memref<4x4xi64>\): expected a contiguous"):
        kernels["iota"](block=(4, 4), args=[x.T])
    y = np.zeros((3, 5), dtype=np.int32)
    with pytest.raises(ValueError, match=r"kernel 'copy2d': argument 1 "
                       r"\(memref<\?x\?xi32>\): expected a contiguous "
                       r"\(row-major\) array, got strides \(1, 3\)"):
        kernels["copy2d"](grid=3, block=5, args=[y, y.T.copy().T])


def test_static_stride_of_a_strided_layout(kernels):
    x = np.zeros((4, 4), dtype=np.float32)
    with pytest.raises(ValueError, match=r"kernel 'add_one': argument 1 "
                       r"\(memref<\?x\?xf32, strided<\[\?, 1\], offset: "
                       r"\?>>\): expected strides \[\?, 1\] \(in elements\), "
                       r"got strides \(1, 4\)$"):
        kernels["add_one"](grid=4, block=4, args=[x, x.T])


def test_static_shape_mismatch(kernels):
    with pytest.raises(ValueError, match=r"kernel 'iota': argument 0 .*: "
                       r"expected shape \(4, 4\), got \(4, 5\)"):
        kernels["iota"](args=[np.zeros((4, 5), dtype=np.int64)])


def test_strides_not_whole_elements(kernels):
    raw = np.zeros(40, dtype=np.uint8)
    x = raw[1:33].view(np.float32)[::1]
    odd = np.lib.stride_tricks.as_strided(x, shape=(2, 2), strides=(6, 4))
    with pytest.raises(TypeError, match="argument 0 .*: symm: array strides"
                       r" \(in bytes\) \(6, 4\) are not multiples"):
        kernels["add_one"](args=[odd, odd])


def test_unsupported_array_dtype(kernels):
    with pytest.raises(TypeError, match="argument 0 .*unsupported dtype "
                       "'uint16'"):
        kernels["scale"](args=[np.zeros(4, dtype=np.uint16), 4, 1.0])


@pytest.mark.parametrize("index,value,error,message", [
    (1, 2.5, TypeError, r"argument 1 \(i1\): expected an integer, got float"),
    (1, 2, ValueError, r"argument 1 \(i1\): 2 does not fit in i1 \(0..1\)"),
    (2, 256, ValueError, r"argument 2 \(i8\): 256 does not fit in i8 "
     r"\(-128..255\)"),
    (2, -129, ValueError, r"argument 2 \(i8\): -129 does not fit in i8"),
    (3, 2**32, ValueError, r"argument 3 \(i32\): 4294967296 does not fit"),
    (4, 2**64, ValueError, r"argument 4 \(i64\): .* does not fit in i64"),
    (5, 1e5, ValueError, r"argument 5 \(f16\): 100000.0 is out of the range "
     "of f16"),
    (6, 1e39, ValueError, r"argument 6 \(bf16\): .* out of the range of bf16"),
    (7, "1", TypeError, r"argument 7 \(f32\): expected a number, got str"),
    (7, 1e39, ValueError, r"argument 7 \(f32\): .* out of the range of f32"),
    (7, float("nan"), ValueError, r"argument 7 \(f32\): nan is not a finite "
     "number"),
    (8, float("-inf"), ValueError, r"argument 8 \(f64\): -inf is not a "
     "finite number"),
    (5, np.float16("inf"), ValueError, r"argument 5 \(f16\): inf is not a "
     "finite number"),
    (8, None, TypeError, r"argument 8 \(f64\): expected a number, got "
     "NoneType"),
])
def test_scalar_does_not_fit(kernels, index, value, error, message):
    args = [np.zeros(8), 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0]
    args[index] = value
    with pytest.raises(error, match="kernel 'scalars': " + message):
        kernels["scalars"](args=args)


def test_an_array_for_a_scalar(kernels, sym):
    with pytest.raises(TypeError, match=r"argument 1 \(index\): expected an "
                       "integer, got ndarray"):
        kernels["scale"](args=[sym, sym, 1.0])


@pytest.mark.parametrize("launch,message", [
    (dict(grid=0), r"grid 0 must be one to three positive integers"),
    (dict(grid=(1, 1, 1, 1)), r"grid \(1, 1, 1, 1\) must be"),
    (dict(block=(2.0,)), r"block \(2.0,\) must be"),
    (dict(shared=-1), r"shared -1 must be a non-negative number of bytes"),
])
def test_bad_launch_configuration(kernels, sym, launch, message):
    with pytest.raises(ValueError, match="kernel 'scale': " + message):
        kernels["scale"](args=[sym, 64, 1.0], **launch)


def test_shared_memory_beyond_a_launch(kernels, sym):
    # 1 TiB was truncated to 32 bits (0 bytes) and launched.
    with pytest.raises(symm.SymmError, match=r"rank \d+: kernel 'scale': "
                       "1099511627776 bytes of dynamic shared memory; a "
                       "launch takes at most 4294967295"):
        kernels["scale"](args=[sym, 64, 1.0], shared=1 << 40)
    with pytest.raises(symm.SymmError, match="kernel 'scale': 1048576 bytes "
                       "of dynamic shared memory exceed the CPU target's "
                       "limit of 232448 bytes per block"):
        kernels["scale"](args=[sym, 64, 1.0], shared=1 << 20)


def test_co_resident_grid_beyond_the_device(kernels):
    # It would hang on a GPU; CPU ranks would report it after
    # SYMM_HOST_DEADLOCK_SECONDS. It is refused before it runs.
    flag = symm.zeros(1, dtype="int32")
    with pytest.raises(symm.SymmError, match=r"rank \d+: kernel "
                       "'wait_for_last' needs all its workgroups resident at "
                       "once \\(symm.co_resident\\), but its grid of 133 "
                       "workgroups of 32 threads with 0 bytes of dynamic "
                       "shared memory exceeds the 132 this rank's device "
                       "holds at once; launch at most 132 workgroups") as e:
        kernels["wait_for_last"](grid=133, block=32, args=[flag])
    assert e.value.status == "invalid argument"
    symm.synchronize()
    assert flag[0] == 0
    with pytest.raises(ValueError, match="kernel 'wait_for_last': block 0 "
                       "must be one to three positive integers"):
        kernels["wait_for_last"].max_resident(block=0)
    symm.barrier()
    symm.free(flag)


def test_bad_stream(kernels, sym):
    with pytest.raises(TypeError, match="kernel 'scale': stream must be None "
                       "or a symm.Stream, got int"):
        kernels["scale"](args=[sym, 64, 1.0], stream=7)
    s = symm.Stream()
    s.close()
    with pytest.raises(ValueError, match="kernel 'scale': the stream was "
                       "closed"):
        kernels["scale"](args=[sym, 64, 1.0], stream=s)


# --- Loading ----------------------------------------------------------------


def test_load_missing_module(tmp_path):
    with pytest.raises(FileNotFoundError, match="symm.load: no module at"):
        symm.load(tmp_path / "none.so")


def test_load_without_manifest(tmp_path, kernels_path):
    lone = tmp_path / "lone.so"
    lone.write_bytes(kernels_path.read_bytes())
    with pytest.raises(FileNotFoundError, match=r"symm.load: no manifest "
                       r"'.*lone.so.json' beside the module"):
        symm.load(lone)


def test_load_a_bad_manifest(tmp_path, kernels_path):
    bad = tmp_path / "bad.so"
    bad.write_bytes(kernels_path.read_bytes())
    (tmp_path / "bad.so.json").write_text("{")
    with pytest.raises(ValueError, match="symm.load: '.*bad.so.json' is not "
                       "JSON"):
        symm.load(bad)


def test_load_not_a_module(tmp_path, kernels_path):
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not an object")
    (tmp_path / "junk.so.json").write_bytes(
        kernels_path.with_name("k.so.json").read_bytes())
    with pytest.raises(symm.SymmError, match=r"rank \d+: cannot load the "
                       "module as a host shared object"):
        symm.load(junk)


def test_closed_module(kernels_path, sym):
    m = symm.load(kernels_path)
    k = m["scale"]
    m.close()
    with pytest.raises(symm.SymmError, match="kernel 'scale': its module was "
                       "closed"):
        k(args=[sym, 64, 1.0])


# --- Allocation and views ---------------------------------------------------


@pytest.mark.parametrize("shape,message", [
    (-1, r"shape -1 must be non-negative integers"),
    ((2, 1.5), r"shape \(2, 1.5\) must be"),
])
def test_bad_shape(shape, message):
    with pytest.raises(ValueError, match="symm.empty: " + message):
        symm.empty(shape)


@pytest.mark.parametrize("shape", [3.5, "4", None])
def test_a_shape_that_is_no_shape(shape):
    with pytest.raises(TypeError, match=rf"symm.zeros: shape {shape!r} must "
                       "be an integer or a sequence of integers"):
        symm.zeros(shape)


def test_a_shape_beyond_64_bits():
    # Every rank asks the runtime for the largest size, which fails alike.
    with pytest.raises(symm.SymmError, match=r"symm.zeros: shape "
                       r"\(4611686018427387904, 16\) of float32 is "
                       "295147905179352825856 bytes, more than a 64-bit size; "
                       r"the symmetric heap holds \d+ bytes \(SYMM_HEAP_SIZE\)"
                       ) as e:
        symm.zeros((2**62, 16))
    assert e.value.status == "out of heap"
    # NumPy integers are integers.
    x = symm.zeros(np.int64(3))
    assert x.shape == (3,)
    symm.free(x)


def test_a_freed_array_raises_naming_the_argument(kernels):
    x = symm.zeros(8, dtype="float32")
    view = x[2:]
    copy = x.copy()
    peer = symm.peer(x, 0)
    symm.barrier()
    symm.free(x)
    # The next allocation takes x's place in the heap: x must not see it.
    y = symm.zeros(8, dtype="float32")
    freed = (r"the float32 array of shape \(8,\) from symm.zeros was freed "
             "by symm.free")
    for use in (lambda: x[0], lambda: view.sum(), lambda: float(peer[1]),
                lambda: repr(x), lambda: x.tolist(), lambda: view + 1):
        with pytest.raises(ValueError, match="symm: " + freed):
            use()
    with pytest.raises(ValueError, match="symm: " + freed):
        x[0] = 1
    with pytest.raises(ValueError, match="symm: " + freed):
        view += 1
    with pytest.raises(ValueError, match=r"kernel 'scale': argument 0 "
                       r"\(memref<\?xf32, #symm.heap>\): " + freed):
        kernels["scale"](args=[x, 8, 2.0])
    with pytest.raises(ValueError, match="symm.all_reduce: x: " + freed):
        symm.all_reduce(x)
    with pytest.raises(ValueError, match="symm.all_gather: out: " + freed):
        symm.all_gather(np.ones(2, dtype=np.float32), out=view)
    with pytest.raises(ValueError, match="symm.peer: x: " + freed):
        symm.peer(view, 0)
    assert copy[0] == 0 and (y == 0).all()
    symm.barrier()
    symm.free(y)


def test_bad_dtype():
    with pytest.raises(TypeError, match="symm: unsupported dtype 'complex64'"
                       "; expected one of bool, int8, int16, int32, int64, "
                       "float16, "
                       "bfloat16, float32, float64"):
        symm.zeros(4, dtype="complex64")
    with pytest.raises(TypeError, match="unsupported dtype 'uint32'"):
        symm.empty(4, dtype=np.uint32)


def test_free_what_is_not_an_allocation(sym):
    with pytest.raises(ValueError, match="symm.free: the array is not a live "
                       "symmetric allocation"):
        symm.free(np.zeros(4))
    with pytest.raises(ValueError, match="symm.free: the array is not"):
        symm.free(sym[1:])
    with pytest.raises(TypeError, match="symm.free: expected an array or "
                       "tensor, got str"):
        symm.free("x")


def test_free_twice():
    x = symm.empty(4)
    symm.free(x)
    with pytest.raises(ValueError, match="not a live symmetric allocation"):
        symm.free(x)


def test_peer_errors(sym):
    n = symm.world_size()
    with pytest.raises(ValueError, match=rf"symm.peer: rank {n} is not in "
                       rf"0..{n - 1}"):
        symm.peer(sym, n)
    with pytest.raises(symm.SymmError, match=r"rank \d+: .*heap"):
        symm.peer(np.zeros(4), 0)


# --- Collectives ------------------------------------------------------------


def test_collective_errors():
    n = symm.world_size()
    x = np.ones(4 * n, dtype=np.float32)
    with pytest.raises(ValueError, match="symm.all_reduce: op 'mean' is not "
                       "one of sum, prod, min, max"):
        symm.all_reduce(x, op="mean")
    with pytest.raises(TypeError, match=r"symm.all_reduce: x has dtype bool, "
                       r"which is not reduced \(all_gather, all_to_all and "
                       r"broadcast move it\)"):
        symm.all_reduce(np.ones(4, dtype=bool))
    with pytest.raises(TypeError, match=r"symm.all_gather: x has dtype "
                       r"int16, which the collectives do not take \(kernels "
                       r"do\)"):
        symm.all_gather(np.ones(4, dtype=np.int16))
    with pytest.raises(TypeError, match="symm.all_gather: x must be an array "
                       "or tensor, got list"):
        symm.all_gather([1, 2])
    with pytest.raises(ValueError, match=r"symm.broadcast: x must be "
                       r"contiguous, got strides \(2,\)"):
        symm.broadcast(x[::2])
    with pytest.raises(ValueError, match=rf"symm.broadcast: root {n} is not "
                       rf"in 0..{n - 1}"):
        symm.broadcast(x, root=n)
    with pytest.raises(TypeError, match="symm.all_reduce: out has dtype "
                       "float64, x float32"):
        symm.all_reduce(x, out=np.empty(4 * n))
    with pytest.raises(ValueError, match=rf"symm.all_gather: out has "
                       rf"{4 * n + 1} elements, expected {4 * n * n}"):
        symm.all_gather(x, out=np.empty(4 * n + 1, dtype=np.float32))
    with pytest.raises(ValueError, match=r"symm.all_reduce: out must be "
                       "contiguous"):
        symm.all_reduce(x, out=np.empty(8 * n, dtype=np.float32)[::2])
    with pytest.raises(TypeError, match="symm.all_reduce: stream must be None "
                       "or a symm.Stream, got str"):
        symm.all_reduce(x, stream="s")


@pytest.mark.skipif("symm.world_size() == 1")
def test_blocks_must_split_among_the_ranks():
    n = symm.world_size()
    x = np.ones(n + 1, dtype=np.int32)
    for f in (symm.reduce_scatter, symm.all_to_all):
        with pytest.raises(ValueError, match=rf"symm.{f.__name__}: the first "
                           rf"dimension of x \(shape \({n + 1},\)\) must be a "
                           rf"multiple of the world size {n}"):
            f(x)
