//===- Passes.td - Symm conversion passes ------------------*- tablegen -*-===//

#ifndef SYMM_CONVERSION_PASSES_TD
#define SYMM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def SymmRemoteToNVSHMEM : Pass<"symm-remote-to-nvshmem", "::mlir::ModuleOp"> {
  let summary = "Reach peers through NVSHMEM's device API";
  let description = [{
    Runs after `symm-translate-to-heap-base`, for NVIDIA GPUs. A remote
    access is then a load, store, ordered access or atomic on (a view of) a
    `symm.translate` result: puts, gets, peer stores and loads, signals and
    waits all end up so. With `mode=nvshmem` each becomes a call of NVSHMEM's
    device API on this rank's (symmetric) address and the peer:
    `nvshmem_uint<N>_p`/`_g` for plain accesses (a vector in pieces as wide
    as its alignment allows, at most 64 bits), `nvshmem_uint<N>_atomic_fetch`
    / `_atomic_set` for ordered loads and stores, `_atomic_fetch_add`,
    `_fetch_and`, `_fetch_or`, `_fetch_xor`, `_swap` and `_compare_swap` for
    read-modify-writes (the other kinds as a compare-and-swap loop), 32 and
    64 bits only. Release ordering first completes this thread's NVSHMEM
    operations (`nvshmem_quiet`), acquire ordering adds an acquire fence
    after; every release fence of device or system scope is followed by
    `nvshmem_quiet` too, so that a flag raised after it is seen after the
    data. With `mode=auto` each access is guarded by `nvshmem_ptr`: a peer
    whose heap is mapped keeps the direct access through the translation,
    any other goes through NVSHMEM. The functions are the ones
    `symm/nvshmem.h` lists, left unresolved until the nvshmem backend links
    the module. Any other use of a translated memref (a matrix load, a
    copy) has no NVSHMEM form: an error with `mode=nvshmem`, left direct
    with `mode=auto`.
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"nvshmem\"",
           "'nvshmem' (every remote access through NVSHMEM) or 'auto' "
           "(through NVSHMEM where nvshmem_ptr says the peer is not mapped)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def SymmInstrumentRaces
    : Pass<"symm-instrument-races", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Report a CPU-target kernel's memory accesses to the race "
                "detector";
  let description = [{
    Runs on a gpu.module lowered for the CPU target (after
    `symm-convert-gpu-to-host`, with `convert-symm-to-host{check-races}`).
    Every load and store whose address does not come from an `llvm.alloca`
    or a global, every `llvm.intr.memcpy`/`memmove`/`memset` and masked load
    or store calls `_symm_race_access` (or `_symm_race_masked`) first; every
    atomic calls `_symm_race_atomic_before` (stores, read-modify-writes and
    compare-and-swaps) and `_symm_race_atomic_after` with its ordering, its
    scope (read from the syncscope, which is then set back to system) and
    whether it wrote; every fence calls `_symm_race_fence`. Each call names
    the access: its operation (from a `NameLoc`, see
    `symm-name-memory-ops`) and source location. The module then defines
    `_symm_races_checked`, by which the runtime refuses to run kernels that
    are not checked when `SYMM_HOST_CHECK_RACES=1` (symm/abi.h).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertSymmToLLVM : Pass<"convert-symm-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower host-side symm operations to runtime calls";
  let description = [{
    Lowers the host operations outside `gpu.module`s: `symm.alloc` and
    `symm.dealloc` call `symm_alloc`/`symm_free` of the runtime and build or
    take apart memref descriptors, `symm.barrier` calls `symm_barrier`, and
    `symm.rank`/`symm.world_size` call `symm_rank`/`symm_world_size`. Host
    memrefs in `#symm.heap` get the default address space. The target passes
    (`convert-symm-to-nvvm`, ...) include this; use it alone for programs
    without device code. Synchronous GPU memory operations are left to
    `symm-gpu-memory-ops-to-async`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def SymmGpuMemoryOpsToAsync
    : Pass<"symm-gpu-memory-ops-to-async", "::mlir::ModuleOp"> {
  let summary = "Make synchronous host-side GPU memory operations waited "
                "asynchronous ones";
  let description = [{
    `gpu-to-llvm` lowers `gpu.alloc`, `gpu.dealloc`, `gpu.memcpy` and
    `gpu.memset` only in their asynchronous form with one dependency. Outside
    `gpu.module`s, each synchronous one becomes that form on a fresh stream
    that is waited for at once, which is what the synchronous form means:

    ```mlir
    %m = gpu.alloc (%n) : memref<?xf32>
    // becomes
    %s = gpu.wait async
    %m, %t = gpu.alloc async [%s] (%n) : memref<?xf32>
    gpu.wait [%t]
    ```

    `gpu.alloc host_shared` stays synchronous: `gpu-to-llvm` lowers it only
    without dependencies.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def SymmConvertGpuToHost : Pass<"symm-convert-gpu-to-host", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower a gpu.module to LLVM for the CPU target";
  let description = [{
    The CPU counterpart of `convert-gpu-to-nvvm`: thread and block ids and
    dimensions, `gpu.barrier`, `gpu.shuffle`, `gpu.lane_id` and workgroup
    memory become calls into the Symm runtime's host backend (GPU threads
    are fibers on a pool of worker threads, 32-lane subgroups, 48 KiB of
    static workgroup memory per block plus the launch's dynamic shared
    memory); `gpu.printf` calls `printf`; kernels become LLVM functions with
    the GPU calling convention (memrefs expanded) plus an entry
    `_symm_kernel_<name>(void **params)` and a table
    `_symm_kernel_<name>_params` = {count, byte size of each} that the
    runtime uses to copy arguments at launch. `gpu.all_reduce` (`uniform`,
    op and region forms) reduces each subgroup with xor shuffles that every
    lane takes part in, then combines the subgroups' values through
    workgroup memory between two barriers. Arithmetic, memref, vector,
    math, index, control-flow and func operations lower as on any CPU.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def SymmConvertSubgroupMmaToHost
    : Pass<"symm-convert-subgroup-mma-to-host", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower gpu.subgroup_mma_* for the CPU target";
  let description = [{
    Rewrites `gpu.subgroup_mma_load_matrix`, `_store_matrix`, `_compute`,
    `_constant_matrix` and `_elementwise` into per-thread vector, memref and
    scf operations, so that the 32 lanes of a subgroup together hold and
    compute each fragment with no communication between them. An "AOp" or
    "BOp" fragment is replicated: every lane holds the whole matrix, row-major,
    in a `vector<rows*cols x T>`. A "COp" fragment is distributed: lane `l`
    holds the elements `l, l+32, l+64, ...` of the row-major matrix in a
    `vector<rows*cols/32 x T>`. `gpu.subgroup_mma_compute` computes each
    lane's elements of C = A·B + C as `c = C[i][j]; for k in 0..K: c = c +
    A[i][k] * B[k][j]` in f32 (f64 for f64, i32 for integers) with products
    and sums rounded one by one, in increasing k, and rounds the result once
    to C's element type. Stores are split between the lanes the same way, so
    no two lanes write one element. Fragments with a number of elements that
    is not a multiple of 32 are rejected.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def SymmConvertNvgpuToHost
    : Pass<"symm-convert-nvgpu-to-host", "::mlir::ModuleOp"> {
  let summary = "Lower nvgpu mbarrier, TMA and warpgroup-MMA operations for "
                "the CPU target";
  let description = [{
    Kernels written for Hopper run on the CPU target. mbarrier operations
    call the runtime, which keeps each mbarrier (8 bytes of workgroup memory)
    as PTX does: a phase completes when its pending arrivals and transaction
    bytes both reach zero, and `try_wait.parity` returns once the phase of
    that parity has completed. A wait that sees no progress for
    `SYMM_HOST_DEADLOCK_SECONDS` fails the launch, naming the thread and the
    mbarrier's state. `tma.async.load` copies the box at once into workgroup
    memory, densely and without the swizzle, out-of-bounds elements filled
    as the descriptor says, then completes the box's bytes on the mbarrier;
    `tma.async.store` writes the in-bounds elements back; the descriptor
    prefetch and fence, and `nvvm.wgmma.*` fences and waits,
    `nvvm.cp.async.bulk.commit.group`/`wait_group` and `nvvm.fence.proxy*`,
    are no-ops.

    `warpgroup.mma` (f16 or bf16 operands, f32 accumulator) reads its tiles
    as the wgmma descriptors that upstream builds for 128-byte swizzling
    address them, without the swizzle: A (K-major, Mx64) element (m, k) at
    byte `m*128 + 2k` of its tile, B (MN-major, `transposeB`, 64xN) element
    (k, n) at `(n/64)*LBO + k*128 + 2(n%64)`, LBO being the B descriptor's
    box rows times 128. The accumulator is dealt out to the 128 threads of
    the warpgroup: thread `t` (its id in the block mod 128) holds the
    row-major elements `t, t+128, ...` in a `vector<M*N/128 x f32>`. Each
    element is `c = C[m][n]; for k in 0..K: c = c + A[m][k] * B[k][n]`, in
    f32, products and sums rounded one by one; then the warpgroup waits for
    all its threads. Other shapes, layouts, types and nvgpu operations are
    rejected with an error naming what the CPU target supports.

    Kernels take a `!nvgpu.tensormap.descriptor` as the `!llvm.ptr` to the
    `symm_host_tensor_map` that the runtime's
    `mgpuTensorMapEncodeTiledMemref` returns; the pass rewrites their
    signatures and the `gpu.launch_func` operands that pass one.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def SymmConvertSubgroupMmaToAMDGPU
    : Pass<"symm-convert-subgroup-mma-to-amdgpu", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower gpu.subgroup_mma_* to amdgpu.mfma for wave64 CDNA GPUs";
  let description = [{
    The AMD counterpart of upstream's WMMA lowering for NVIDIA: a 16x16x16
    `gpu.subgroup_mma_compute` with f16 operands and an f32 or f16
    accumulator becomes one `amdgpu.mfma 16x16x16` (`v_mfma_f32_16x16x16f16`
    on gfx90a/gfx942), run by the 64 lanes of a wavefront. Each lane holds 4
    elements of each fragment, in the instruction's register layout: lane
    `l` holds A[l mod 16][4 (l / 16) + t], B[4 (l / 16) + t][l mod 16] and
    C[4 (l / 16) + t][l mod 16] for t = 0..3. An f16 accumulator is widened
    to f32 for the instruction and rounded back. Loads, stores, constants and
    elementwise operations move and transform these elements lane by lane;
    other shapes and element types are rejected.
  }];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def SymmTMADescriptorsToPointers
    : Pass<"symm-tma-descriptors-to-pointers", "::mlir::ModuleOp"> {
  let summary = "Make TMA descriptors pointers between host code and kernels";
  let description = [{
    A `!nvgpu.tensormap.descriptor` that host code makes and a kernel takes
    is, on every target, the pointer the runtime's
    `mgpuTensorMapEncodeTiledMemref` returns. Host code's
    `nvgpu.tma.create.descriptor` becomes that call (upstream's NVGPU to NVVM
    pattern, applied outside `gpu.module`s only, so that each target lowers
    device code's NVGPU operations its own way). Kernel arguments of the
    descriptor type, which neither `convert-nvgpu-to-nvvm` nor
    `convert-gpu-to-nvvm` converts in `gpu.func` signatures and
    `gpu.launch_func` operands, become `!llvm.ptr` on both sides of every
    launch, cast back where the kernel uses them:

    ```mlir
    gpu.func @k(%d: !nvgpu.tensormap.descriptor<...>) kernel
    // becomes
    gpu.func @k(%p: !llvm.ptr) kernel {
      %d = builtin.unrealized_conversion_cast %p : !llvm.ptr to !nvgpu.tensormap.descriptor<...>
    ```

    The casts fold away once the device code's NVGPU operations are lowered.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def SymmConvertNVGPUToNVVM
    : Pass<"symm-convert-nvgpu-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower nvgpu operations to NVVM in gpu.modules that have any";
  let description = [{
    Runs upstream's `convert-nvgpu-to-nvvm` on a `gpu.module` that holds
    `nvgpu` operations (TMA, mbarriers, warpgroup MMA, ...) and leaves the
    others alone: upstream's pass treats every `scf` operation whose types it
    cannot lower as illegal, so on a module whose loops carry
    `!gpu.mma_matrix` fragments (`gpu.subgroup_mma_*`, lowered later by
    `convert-gpu-to-nvvm`) it fails. A module that mixes both in one loop
    still does.

    Before it, `nvgpu.warpgroup.mma.store` of an f32 accumulator into a bf16
    or f16 memref is lowered here (upstream's lowering stores the f32
    elements as they are, so it takes only f32 destinations): each pair of
    neighbouring elements is rounded once and stored as one 2-element
    vector, at the rows and columns where upstream's f32 store puts them.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def SymmCheckHopperOps : Pass<"symm-check-hopper-ops", "::mlir::ModuleOp"> {
  let summary = "Reject Hopper operations the chip cannot run";
  let description = [{
    Warpgroup MMA (`nvgpu.warpgroup.*`, `nvvm.wgmma.*`) exists only on
    `sm_90a`; TMA (`nvgpu.tma.*`) and the mbarrier transaction operations
    (`nvgpu.mbarrier.arrive.expect_tx`, `nvgpu.mbarrier.try_wait.parity`)
    need `sm_90` or newer. Compiled for another NVIDIA chip or an AMD one,
    the first such operation is one error naming it and the chip it needs,
    instead of a failure inside the backend or `ptxas`. The CPU target
    (`chip=host`) lowers these operations itself and is not checked.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "The chip the module is compiled for: sm_<N>[a], gfx<N> or host">,
  ];
}

#endif // SYMM_CONVERSION_PASSES_TD
