"""What symm.torch checks without PyTorch (CI has none): the operators'
schemas against their Python implementations, the fused operators' argument
checks, and the errors of as_tensor and of a missing compiled kernel. The
operators themselves run on a GPU (test_torch_ops.py)."""

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import symm
import symm.torch as st


def schema_arguments(schema):
    """The argument names of a torch operator schema, in order."""
    inside = schema[schema.index("(") + 1:schema.index(")")]
    return [a.split("=")[0].split()[-1] for a in inside.split(", ")
            if a != "*"]


@pytest.mark.parametrize("name", ["fused_all_gather_matmul",
                                  "fused_matmul_reduce_scatter"])
def test_schemas_name_the_implementations_arguments(name):
    # torch calls the implementation with the schema's arguments: a
    # renamed or missing parameter would fail only on a GPU.
    assert st.SCHEMAS[name].startswith(name + "(")
    params = list(inspect.signature(getattr(st, name)).parameters)
    assert params == schema_arguments(st.SCHEMAS[name])


def test_fused_schemas_are_torchs():
    # torch/distributed/_symmetric_memory's definitions, as documented.
    assert st.SCHEMAS["fused_all_gather_matmul"] == (
        "fused_all_gather_matmul(Tensor A, Tensor[] Bs, int gather_dim, "
        "str group_name, *, bool return_A=True) -> (Tensor?, Tensor[])")
    assert st.SCHEMAS["fused_matmul_reduce_scatter"] == (
        "fused_matmul_reduce_scatter(Tensor A, Tensor B, str reduce_op, "
        "int scatter_dim, str group_name) -> Tensor")
    assert set(st.FIXED_STRIDES) == set(st.KERNELS)


def test_all_gather_matmul_dimensions():
    assert st.check_all_gather_matmul((256, 64), "bfloat16",
                                      [(64, 128), (64, 384)],
                                      ["bfloat16", "bfloat16"], 0, 2) == \
        (256, 64, [128, 384])


AG = "symm::fused_all_gather_matmul: argument "


@pytest.mark.parametrize("a,b,dim,message", [
    ((128, 64, 2), (64, 128), 0, AG + r"A: expected a matrix \(2-D\), got 3-D"
     r" shape \(128, 64, 2\)"),
    ((128, 64), (64, 128), 1, AG + r"gather_dim: Symm's kernel gathers rows "
     r"\(0\), got 1"),
    ((100, 64), (64, 128), 0, AG + r"A: its row count 100 is not a positive "
     r"multiple of 128 \(the kernel's row tile\)"),
    ((128, 40), (40, 128), 0, AG + r"A: K 40 is not a positive multiple of 32"),
    ((128, 64), (32, 128), 0, AG + r"Bs\[0\]: has 32 rows, A has K = 64 "
     "columns"),
    ((128, 64), (64, 100), 0, AG + r"Bs\[0\]: its column count 100 is not"),
])
def test_all_gather_matmul_errors(a, b, dim, message):
    with pytest.raises(ValueError, match=message):
        st.check_all_gather_matmul(a, "bfloat16", [b], ["bfloat16"], dim, 2)


def test_all_gather_matmul_dtypes_and_empty_list():
    with pytest.raises(ValueError, match=AG + "A: Symm's kernel takes "
                       "bfloat16, got float32"):
        st.check_all_gather_matmul((128, 64), "float32", [(64, 128)],
                                   ["bfloat16"], 0, 1)
    with pytest.raises(ValueError, match=AG + r"Bs\[1\]: Symm's kernel takes "
                       "bfloat16, got float16"):
        st.check_all_gather_matmul((128, 64), "bfloat16",
                                   [(64, 128), (64, 128)],
                                   ["bfloat16", "float16"], 0, 1)
    with pytest.raises(ValueError, match=AG + "Bs: expected at least one "
                       "matrix, got none"):
        st.check_all_gather_matmul((128, 64), "bfloat16", [], [], 0, 1)


RS = "symm::fused_matmul_reduce_scatter: argument "


@pytest.mark.parametrize("a,b,op,dim,message", [
    ((512, 64), (64, 128), "avg", 0, RS + "reduce_op: Symm's kernel sums, "
     "got 'avg'"),
    ((512, 64), (64, 128), "sum", 1, RS + r"scatter_dim: Symm's kernel "
     r"scatters rows \(0\), got 1"),
    ((384, 64), (64, 128), "sum", 0, RS + r"A: its row count 384 is not a "
     r"positive multiple of 512 \(a row tile for each of the 4 ranks\)"),
    ((512, 48), (48, 128), "sum", 0, RS + "A: K 48 is not a positive multiple"
     " of 32"),
    ((512, 64), (96, 128), "sum", 0, RS + "B: has 96 rows, A has K = 64"),
    ((512, 64), (64, 64), "sum", 0, RS + "B: its column count 64 is not"),
    ((512, 64), (64,), "sum", 0, RS + r"B: expected a matrix \(2-D\), got "
     "1-D"),
])
def test_matmul_reduce_scatter_errors(a, b, op, dim, message):
    with pytest.raises(ValueError, match=message):
        st.check_matmul_reduce_scatter(a, "bfloat16", b, "bfloat16", op, dim,
                                       4)
    assert st.check_matmul_reduce_scatter((512, 64), "bfloat16", (64, 256),
                                          "bfloat16", "sum", 0, 4) == \
        (512, 64, 256)


def test_a_missing_kernel_names_the_operator(tmp_path, monkeypatch):
    monkeypatch.delenv("SYMM_TORCH_KERNEL_DIR", raising=False)
    monkeypatch.setattr(st, "_kernel_dir", [])
    with pytest.raises(ValueError, match="symm::fused_matmul_reduce_scatter: "
                       "no folder of compiled kernels"):
        st._kernel("fused_matmul_reduce_scatter")
    monkeypatch.setenv("SYMM_TORCH_KERNEL_DIR", str(tmp_path))
    path = re.escape(str(tmp_path / "all_gather_gemm.ptx"))
    with pytest.raises(ValueError, match=f"symm::fused_all_gather_matmul: no "
                       f"compiled kernel at {path} \\(symm-compile "
                       "--target=sm_90 --emit=ptx examples/all_gather_gemm/"):
        st._kernel("fused_all_gather_matmul")


def test_a_missing_hopper_kernel_names_its_source(tmp_path, monkeypatch):
    monkeypatch.setattr(st, "_kernel_dir", [str(tmp_path)])
    path = re.escape(str(tmp_path / "gemm_reduce_scatter_hopper.ptx"))
    with pytest.raises(ValueError, match="symm::fused_matmul_reduce_scatter: "
                       f"no compiled kernel at {path} \\(symm-compile "
                       "--target=sm_90a --emit=ptx examples/gemm_reduce_"
                       "scatter/gemm_reduce_scatter_hopper.mlir"):
        st._kernel("fused_matmul_reduce_scatter", hopper=True)


@pytest.mark.parametrize("op,k,n,world,why", [
    ("fused_all_gather_matmul", 8192, 7168, 8, None),
    ("fused_all_gather_matmul", 64, 384, 9, "9 ranks: the Hopper kernel "
     "takes one A descriptor per rank, for at most 8"),
    ("fused_all_gather_matmul", 64, 132, 2, "N 132 is not a multiple of 8 "
     r"\(the Hopper kernel's TMA rows\)"),
    ("fused_all_gather_matmul", 36, 128, 2, "K 36 is not a multiple of 8"),
    ("fused_matmul_reduce_scatter", 7168, 8192, 4, None),
    ("fused_matmul_reduce_scatter", 64, 384, 2, r"N 384 is not a multiple "
     r"of 256 \(the Hopper kernel's column tile\)"),
    ("fused_matmul_reduce_scatter", 96, 256, 2, "this rank's K 96 is not a "
     r"multiple of 64 \(the Hopper kernel's k step\)"),
])
def test_hopper_shape_rules(op, k, n, world, why):
    # What the portable checks passed that the Hopper kernel does not take:
    # those calls run the portable kernel, saying why (kernel_choice).
    got = st.hopper_shape_rule(op, k, n, world)
    if why is None:
        assert got is None
    else:
        assert re.match(why, got)


def test_hopper_constants_are_the_drivers():
    # examples/common/workload.h launches the same kernels from C++.
    header = (Path(__file__).resolve().parents[2] / "examples" / "common" /
              "workload.h").read_text()

    def constant(name):
        return int(re.search(name + r" = (\d+)", header).group(1))
    assert (st.HOPPER_TILE_N, st.HOPPER_K_STEP, st.HOPPER_MULTIPLE,
            st.HOPPER_THREADS, st.HOPPER_SHARED_BYTES) == tuple(map(constant, (
                "kHopperTileN", "kHopperTileK", "kHopperMultiple",
                "kHopperThreads", "kHopperSharedBytes")))
    assert set(st.HOPPER_KERNELS) == set(st.KERNELS)


def test_as_tensor_refuses_what_is_not_a_symm_allocation():
    with pytest.raises(TypeError, match="symm.torch.as_tensor: expected an "
                       "array from symm.empty or symm.zeros, got list"):
        st.as_tensor([1, 2])
    if symm.backend() == "host":
        with pytest.raises(ValueError, match=r"symm.torch.as_tensor: the "
                           r"int32 array of shape \(4,\) is not in Symm's "
                           "symmetric heap"):
            st.as_tensor(np.zeros(4, dtype=np.int32))
    x = symm.zeros(8, dtype="float32")
    symm.free(x)
    with pytest.raises(ValueError, match=r"symm.torch.as_tensor: the float32 "
                       r"array of shape \(8,\): the float32 array of shape "
                       r"\(8,\) from symm.zeros was freed by symm.free"):
        st.as_tensor(x)


@pytest.mark.skipif("symm.backend() != 'host'")
def test_as_tensor_of_a_host_array_shares_it():
    torch = pytest.importorskip("torch")  # none in CI: torch-gpu.sh runs it
    x = symm.zeros((2, 6), dtype="int32")
    t = st.as_tensor(x[:, ::2])  # a strided view
    assert t.dtype == torch.int32 and t.device.type == "cpu"
    assert t.shape == (2, 3) and t.stride() == (6, 2)
    t += 7
    np.testing.assert_array_equal(x, np.tile([7, 0], (2, 3)))
    symm.barrier()
    symm.free(x)
