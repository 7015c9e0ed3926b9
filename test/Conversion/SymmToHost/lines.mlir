// RUN: symm-opt %s -allow-unregistered-dialect -convert-symm-to-host | FileCheck %s
// RUN: symm-opt %s -allow-unregistered-dialect -convert-symm-to-amdgpu | FileCheck %s --check-prefix=AMD

// The portable lines (the CPU and AMD targets): a piece's words are relaxed
// atomic stores (piece 7 stores only its first word), then a release
// compare-and-swap loop counts the piece into the flag word (16 * flag +
// pieces); a load acquires the flag word, wants 16 * flag + 8, and loads the
// piece with relaxed atomics.
// CHECK-LABEL: gpu.func @lines
// CHECK: llvm.store %{{.*}} atomic monotonic {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK: scf.if
// CHECK: } else {
// CHECK: llvm.store %{{.*}} atomic monotonic {alignment = 8 : i64} : i64, !llvm.ptr
// CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK: scf.while
// CHECK: llvm.cmpxchg %{{.*}} release monotonic
// CHECK: llvm.load %{{.*}} atomic acquire {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK: llvm.icmp "eq"
// CHECK: llvm.load %{{.*}} atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// CHECK: llvm.load %{{.*}} atomic monotonic {alignment = 8 : i64} : !llvm.ptr -> i64
// AMD-LABEL: gpu.func @lines
// AMD: llvm.store %{{.*}} atomic syncscope("one-as") monotonic
// AMD: llvm.cmpxchg %{{.*}} syncscope("one-as") release monotonic
// AMD: llvm.load %{{.*}} atomic syncscope("one-as") acquire
gpu.module @m {
  gpu.func @lines(%ll: memref<?xi64, #symm.heap>, %i: index, %x: vector<2xi64>, %f: i64) kernel {
    symm.line_store %x, %ll[%i] flag %f : vector<2xi64>, i64 -> memref<?xi64, #symm.heap>
    %v, %r = symm.line_load %ll[%i] flag %f : memref<?xi64, #symm.heap> -> vector<2xi64>, i1
    "test.use"(%v, %r) : (vector<2xi64>, i1) -> ()
    gpu.return
  }
}
