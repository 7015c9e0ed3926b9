// --remote=nvshmem makes every remote access an NVSHMEM device call, left
// unresolved in the PTX (the nvshmem backend links the module when it loads
// it); --remote=auto keeps the direct path where nvshmem_ptr finds the peer
// mapped; --remote=direct (the default) calls nothing.
// RUN: symm-compile --target=sm_90 --emit=ptx --remote=nvshmem %s -o - | FileCheck %s --check-prefix=NVSHMEM
// RUN: symm-compile --target=sm_90 --emit=ptx --remote=auto %s -o - | FileCheck %s --check-prefix=AUTO
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o - | FileCheck %s --check-prefix=DIRECT
// RUN: %if ptxas %{ symm-compile --target=sm_90 --emit=cubin --remote=nvshmem %s -o %t.cubin && llvm-readelf -h %t.cubin | FileCheck %s --check-prefix=CUBIN %}
// RUN: not symm-compile --target=host --remote=nvshmem %s -o %t.so 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not symm-compile --target=sm_90 --remote=sometimes %s -o %t.ptx 2>&1 | FileCheck %s --check-prefix=BAD

// NVSHMEM-DAG: .extern .func nvshmem_uint32_p
// NVSHMEM-DAG: .extern .func nvshmem_uint64_p
// NVSHMEM-DAG: .extern .func nvshmem_quiet
// NVSHMEM-DAG: .extern .func  (.param .b32 func_retval0) nvshmem_uint32_atomic_fetch
// NVSHMEM-DAG: .extern .func nvshmem_uint32_atomic_set
// NVSHMEM-NOT: .extern .func nvshmem_ptr
// NVSHMEM-LABEL: .visible .entry push(
// NVSHMEM: call.uni nvshmem_uint64_p,
// NVSHMEM: fence.acq_rel.sys;
// NVSHMEM: call.uni nvshmem_quiet,
// NVSHMEM: call.uni nvshmem_uint32_atomic_set,
// NVSHMEM: call.uni (retval0), nvshmem_uint32_atomic_fetch,
// NVSHMEM: call.uni nvshmem_uint32_p,

// AUTO: .extern .func  (.param .b64 func_retval0) nvshmem_ptr
// AUTO-LABEL: .visible .entry push(
// AUTO: call.uni (retval0), nvshmem_ptr,

// AUTO: st.global.v4.b32
// AUTO: call.uni nvshmem_uint64_p,

// DIRECT-NOT: nvshmem
// DIRECT: st.global.v4.b32
// DIRECT-NOT: nvshmem

// CUBIN: Type: REL (Relocatable file)

// HOST: error: remote=nvshmem reaches peers through NVSHMEM, which needs an NVIDIA target (sm_<N>), not host
// BAD: error: remote must be 'direct', 'nvshmem' or 'auto', got 'sometimes'
gpu.module @kernels {
  gpu.func @push(%tile: memref<64xf32>, %dst: memref<64xf32, #symm.heap>,
                 %flags: memref<?xi32, #symm.heap>, %peer: i32, %epoch: i32,
                 %out: memref<?xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    symm.put %tile to %dst on %peer signal(set %epoch, %flags[%c0] : memref<?xi32, #symm.heap>) scope(system) : memref<64xf32> -> memref<64xf32, #symm.heap>
    %seen = symm.wait %flags[%c0] from %peer ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
    symm.store %seen, %out[%c0] to %peer : i32 -> memref<?xi32, #symm.heap>
    gpu.return
  }
}
