// RUN: symm-opt %s -allow-unregistered-dialect -symm-translate-to-heap-base -symm-remote-to-nvshmem | FileCheck %s

// A line's piece on a peer reached through NVSHMEM, in the encoding the
// NVIDIA lowering reads: each lane puts its data (piece 7 only its first
// word), completes it (a release: fence and nvshmem_quiet), the line's eight
// lanes meet, then piece 7 puts the flag; a load fetches the flag word, then
// (acquire) the piece's two words.
// CHECK-LABEL: gpu.func @lines
// CHECK: llvm.call @nvshmem_uint64_atomic_set
// CHECK: scf.if
// CHECK: } else {
// CHECK: llvm.call @nvshmem_uint64_atomic_set
// CHECK: symm.fence ordering(release) scope(system)
// CHECK: llvm.call @nvshmem_quiet
// CHECK: nvvm.bar.warp.sync
// CHECK: scf.if
// CHECK: llvm.call @nvshmem_uint64_atomic_set
// CHECK: llvm.call @nvshmem_uint64_atomic_fetch
// CHECK: symm.fence ordering(acquire) scope(system)
// CHECK-COUNT-2: llvm.call @nvshmem_uint64_atomic_fetch
// CHECK: "test.use"
gpu.module @m {
  gpu.func @lines(%ll: memref<?xi64, #symm.heap>, %i: index, %x: vector<2xi64>, %f: i64, %p: i32) kernel {
    symm.line_store %x, %ll[%i] flag %f to %p : vector<2xi64>, i64 -> memref<?xi64, #symm.heap>
    %v, %r = symm.line_load %ll[%i] flag %f from %p : memref<?xi64, #symm.heap> -> vector<2xi64>, i1
    "test.use"(%v, %r) : (vector<2xi64>, i1) -> ()
    gpu.return
  }
}
