"""symm.torch on a GPU: torch symmetric tensors as a kernel's heap, and
Symm's collectives as torch operators (eager, CUDA graphs, torch.compile).

Run on the cuda or nvshmem backend under torchrun with the kernel compiled
here (scripts/nvshmem-gpu.sh does both):
    SYMM_TORCH_KERNELS=torch_heap.ptx torchrun --nproc-per-node 1 \\
        -m pytest python/tests/test_torch.py
Skipped where PyTorch has no CUDA (CI)."""

import os

import pytest

import symm

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or symm.backend() not in ("cuda", "nvshmem"):
    pytest.skip("needs PyTorch with CUDA and the cuda or nvshmem backend",
                allow_module_level=True)

import torch.distributed as dist  # noqa: E402
import torch.distributed._symmetric_memory as symm_mem  # noqa: E402

import symm.torch  # noqa: E402


@pytest.fixture(scope="module")
def world():
    if not dist.is_initialized():
        dist.init_process_group("nccl", device_id=torch.device(
            "cuda", torch.cuda.current_device()))
    symm.torch.register()
    return dist.group.WORLD.group_name


@pytest.fixture(scope="module")
def shift(world):
    return symm.load(os.environ["SYMM_TORCH_KERNELS"])["shift"]


def test_kernel_on_torch_symmetric_tensor(shift):
    n = 256
    x = symm_mem.empty(n, dtype=torch.float32, device="cuda").fill_(-1)
    h = symm.torch.heap(x)
    assert h.world_size == symm.world_size() and h.contains(x.data_ptr())
    torch.cuda.synchronize()
    dist.barrier()
    shift(grid=1, block=n, args=[x, n], heap=h,
          stream=torch.cuda.current_stream())
    torch.cuda.synchronize()
    dist.barrier()
    sender = (symm.rank() - 1) % symm.world_size()
    want = 1000 * sender + torch.arange(n, device="cuda", dtype=torch.float32)
    assert torch.equal(x, want)


def test_heap_errors(shift, world):
    with pytest.raises(ValueError, match=r"tensor\(8, float32, cpu\) is not "
                       "on a CUDA device"):
        symm.torch.heap(torch.empty(8))
    with pytest.raises(ValueError, match=r"tensor\(8, float32, cuda:\d\) is "
                       "not symmetric"):
        symm.torch.heap(torch.empty(8, device="cuda"))
    x = symm_mem.empty(64, dtype=torch.float32, device="cuda")
    h = symm.torch.heap(x)
    plain = torch.zeros(64, device="cuda")
    with pytest.raises(ValueError, match="argument 0 .*outside it"):
        shift(grid=1, block=64, args=[plain, 64], heap=h)


def test_operators_have_torch_signatures(world):
    # torch.ops.symm_mem has these two; Symm's others have no counterpart.
    for name in ("one_shot_all_reduce", "two_shot_all_reduce_"):
        ours = str(getattr(torch.ops.symm, name).default._schema)
        theirs = str(getattr(torch.ops.symm_mem, name).default._schema)
        assert ours.replace("symm::", "") == theirs.replace("symm_mem::", "")
    for name in symm.torch.SCHEMAS:
        assert str(getattr(torch.ops.symm, name).default._schema) == \
            "symm::" + symm.torch.SCHEMAS[name]


def test_operators(world):
    n = symm.world_size()
    x = torch.arange(1024, device="cuda", dtype=torch.float32) + symm.rank()
    total = sum(torch.arange(1024, device="cuda", dtype=torch.float32) + r
                for r in range(n))
    assert torch.equal(torch.ops.symm.one_shot_all_reduce(x, "sum", world),
                       total)
    y = x.clone()
    assert torch.ops.symm.two_shot_all_reduce_(y, "sum", world) is y
    assert torch.equal(y, total)
    g = torch.ops.symm.all_gather(x, world)
    assert g.shape == (n * 1024,) and torch.equal(g[1024 * symm.rank():][
        :1024], x)
    r = torch.ops.symm.reduce_scatter(x, "sum", world)
    assert torch.equal(r, total.view(n, -1)[symm.rank()])
    with pytest.raises(ValueError, match="reduce op|op"):
        torch.ops.symm.one_shot_all_reduce(x, "median", world)


def test_cuda_graph(world):
    x = torch.ones(4096, device="cuda")
    out = torch.empty_like(x)
    # The first collective on a stream cannot be captured (it sets up the
    # stream's channel): warm up on the stream the graph captures.
    capture = torch.cuda.Stream()
    capture.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(capture):
        torch.ops.symm.one_shot_all_reduce(x, "sum", world)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=capture):
        out.copy_(torch.ops.symm.one_shot_all_reduce(x, "sum", world))
    for value in (2.0, 3.0):
        x.fill_(value)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, torch.full_like(x, value * symm.world_size()))


def test_torch_compile_tensor_parallel_mlp(world):
    """A tensor-parallel MLP block (docs/Python.md): each rank holds a column
    shard of W1 and a row shard of W2; one all-reduce joins the partial
    products. Compiled whole (fullgraph: a graph break is an error) and
    checked against the unsharded torch version."""
    torch.manual_seed(0)
    n, d, hidden = symm.world_size(), 256, 1024
    x = torch.randn(64, d, device="cuda")
    w1 = torch.randn(d, hidden, device="cuda") / d ** 0.5
    w2 = torch.randn(hidden, d, device="cuda") / hidden ** 0.5
    shard = hidden // n
    mine = slice(symm.rank() * shard, (symm.rank() + 1) * shard)

    @torch.compile(fullgraph=True)
    def block(x, w1, w2):
        partial = torch.relu(x @ w1) @ w2
        return torch.ops.symm.one_shot_all_reduce(partial, "sum", world)

    got = block(x, w1[:, mine].contiguous(), w2[mine].contiguous())
    want = torch.relu(x @ w1) @ w2
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
