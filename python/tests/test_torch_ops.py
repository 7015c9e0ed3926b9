"""symm.torch's fused operators on a GPU: fused_all_gather_matmul and
fused_matmul_reduce_scatter against torch's unfused computation, eagerly
(the first call on a stream takes the collective form, the next ones the
fused kernel), captured in a CUDA graph and replayed on new data, inside
torch.compile(fullgraph=True), and the tensor-parallel MLP block of
docs/Python.md in all three; as_tensor on the GPU heap.

Run on the cuda backend, under symm-run (ranks may share a GPU; torch's
process group is not needed) or torchrun, with the workloads' kernels
compiled for the GPU (scripts/torch-gpu.sh does both):
    SYMM_TORCH_KERNEL_DIR=dir symm-run -n 2 --backend cuda \\
        python3 -m pytest python/tests/test_torch_ops.py
Skipped where PyTorch has no CUDA (CI)."""

import pytest

import symm

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or symm.backend() not in ("cuda", "nvshmem"):
    pytest.skip("needs PyTorch with CUDA and the cuda or nvshmem backend",
                allow_module_level=True)

import torch.distributed as dist  # noqa: E402

import symm.torch  # noqa: E402

ME, W = symm.rank(), symm.world_size()


@pytest.fixture(scope="module")
def group():
    symm.torch.register()
    return dist.group.WORLD.group_name if dist.is_initialized() else "world"


def same_on_every_rank(*shape, seed, scale=1.0):
    """A bf16 tensor every rank draws alike (a full weight or input)."""
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g) * scale).to(
        torch.bfloat16).cuda()


def close(got, want):
    # bf16 results of f32 sums: a relative 2^-7 and an absolute term of the
    # products' magnitude; a missing or stale tile is off by O(1).
    torch.testing.assert_close(got.float(), want.float(), rtol=2 ** -7,
                               atol=2 ** -5)


def all_gather_matmul_case(seed):
    rows, k = 128, 64
    a_full = same_on_every_rank(W * rows, k, seed=seed)
    bs = [same_on_every_rank(k, n, seed=seed + 1 + i, scale=k ** -0.5)
          for i, n in enumerate((128, 256))]
    shard = a_full[ME * rows:(ME + 1) * rows]
    return shard, bs, a_full, [a_full.float() @ b.float() for b in bs]


def matmul_reduce_scatter_case(seed):
    m, k, n = 128 * W, 64, 256
    # Rank r holds columns r of A and rows r of B: the sum over ranks of
    # A_r @ B_r is A @ B.
    a = same_on_every_rank(m, W * k, seed=seed)
    b = same_on_every_rank(W * k, n, seed=seed + 1, scale=(W * k) ** -0.5)
    mine = slice(ME * k, (ME + 1) * k)
    want = (a.float() @ b.float())[ME * (m // W):(ME + 1) * (m // W)]
    return a[:, mine].contiguous(), b[mine].contiguous(), want


def test_schemas_are_torchs(group):
    import torch.distributed._symmetric_memory  # noqa: F401 (defines them)
    for name in ("fused_all_gather_matmul", "fused_matmul_reduce_scatter",
                 "one_shot_all_reduce", "two_shot_all_reduce_"):
        ours = str(getattr(torch.ops.symm, name).default._schema)
        theirs = str(getattr(torch.ops.symm_mem, name).default._schema)
        assert ours.replace("symm::", "") == theirs.replace("symm_mem::", "")


def test_fused_all_gather_matmul(group):
    op = torch.ops.symm.fused_all_gather_matmul
    for call in range(3):  # the collective form, then two fused launches
        shard, bs, a_full, want = all_gather_matmul_case(10 * call)
        gathered, outs = op(shard, bs, 0, group)
        assert torch.equal(gathered, a_full)
        assert [o.shape for o in outs] == [w.shape for w in want]
        for o, w in zip(outs, want):
            close(o, w)
    gathered, outs = op(shard, bs[:1], 0, group, return_A=False)
    assert gathered is None
    close(outs[0], want[0])


def test_fused_matmul_reduce_scatter(group):
    op = torch.ops.symm.fused_matmul_reduce_scatter
    for call in range(3):
        a, b, want = matmul_reduce_scatter_case(100 + 10 * call)
        got = op(a, b, "sum", 0, group)
        assert got.shape == want.shape
        close(got, want)


def test_argument_errors_name_the_operator(group):
    shard, bs, _, _ = all_gather_matmul_case(0)
    with pytest.raises(ValueError, match="symm::fused_all_gather_matmul: "
                       "argument A: Symm's kernel takes bfloat16, got "
                       "float32"):
        torch.ops.symm.fused_all_gather_matmul(shard.float(), bs, 0, group)
    a, b, _ = matmul_reduce_scatter_case(0)
    with pytest.raises(ValueError, match="symm::fused_matmul_reduce_scatter: "
                       "argument B: .*is not on a CUDA device"):
        torch.ops.symm.fused_matmul_reduce_scatter(a, b.cpu(), "sum", 0,
                                                   group)


def test_cuda_graph(group):
    """Both operators captured once and replayed on new inputs."""
    shard, bs, _, _ = all_gather_matmul_case(0)
    a, b, _ = matmul_reduce_scatter_case(0)
    capture = torch.cuda.Stream()
    capture.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(capture):  # warm up on the capturing stream
        torch.ops.symm.fused_all_gather_matmul(shard, bs, 0, group)
        torch.ops.symm.fused_matmul_reduce_scatter(a, b, "sum", 0, group)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=capture):
        gathered, outs = torch.ops.symm.fused_all_gather_matmul(
            shard, bs, 0, group)
        scattered = torch.ops.symm.fused_matmul_reduce_scatter(
            a, b, "sum", 0, group)
    for seed in (20, 30):
        new_shard, new_bs, a_full, want = all_gather_matmul_case(seed)
        new_a, new_b, want_rs = matmul_reduce_scatter_case(seed)
        for dst, src in zip([shard, a, b] + bs, [new_shard, new_a, new_b] +
                            new_bs):
            dst.copy_(src)
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(gathered, a_full)
        for o, w in zip(outs, want):
            close(o, w)
        close(scattered, want_rs)


def mlp_case(x_seed, d=256, hidden=512):
    """docs/Python.md's block: x (rows of tokens) sharded by rows, W1 by
    columns, W2 by rows; and this rank's rows of the unsharded torch
    version."""
    x = same_on_every_rank(128 * W, d, seed=x_seed)
    w1 = same_on_every_rank(d, hidden, seed=8, scale=d ** -0.5)
    w2 = same_on_every_rank(hidden, d, seed=9, scale=hidden ** -0.5)
    rows, cols = x.shape[0] // W, hidden // W
    mine = slice(ME * cols, (ME + 1) * cols)
    want = (torch.relu(x @ w1) @ w2)[ME * rows:(ME + 1) * rows]
    return (x[ME * rows:(ME + 1) * rows].contiguous(),
            w1[:, mine].contiguous(), w2[mine].contiguous(), want)


def block(x, w1, w2, group):
    _, (h,) = torch.ops.symm.fused_all_gather_matmul(x, [w1], 0, group,
                                                     return_A=False)
    return torch.ops.symm.fused_matmul_reduce_scatter(torch.relu(h), w2,
                                                      "sum", 0, group)


def test_tensor_parallel_mlp(group):
    """Eager, compiled whole (fullgraph: a graph break is an error) and from
    a CUDA graph replayed on a new input, each against the unsharded torch
    version."""
    x, w1, w2, want = mlp_case(7)
    close(block(x, w1, w2, group), want)
    compiled = torch.compile(block, fullgraph=True)
    for _ in range(2):
        close(compiled(x, w1, w2, group), want)
    capture = torch.cuda.Stream()
    capture.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(capture):
        block(x, w1, w2, group)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=capture):
        out = block(x, w1, w2, group)
    new_x, _, _, new_want = mlp_case(17)
    x.copy_(new_x)
    graph.replay()
    torch.cuda.synchronize()
    close(out, new_want)


def test_as_tensor_shares_the_heap(group):
    x = symm.zeros(64, dtype="float32")
    t = symm.torch.as_tensor(x)
    assert t.data_ptr() == x.data_ptr() and t.device == x.device
    t.fill_(ME + 1)
    assert torch.equal(x, torch.full_like(x, ME + 1))
    with pytest.raises(ValueError, match=r"symm.torch.as_tensor: the float32 "
                       r"array of shape \(8,\) is not in Symm's symmetric "
                       "heap"):
        symm.torch.as_tensor(torch.zeros(8, device="cuda"))
    symm.barrier()
    symm.free(x)
