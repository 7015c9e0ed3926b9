// RUN: symm-opt %s -allow-unregistered-dialect -convert-symm-to-host | FileCheck %s

// On the CPU every scope is the system scope, the heap and the context live in
// the default address space, and back-off switches to other GPU threads.
// CHECK: llvm.mlir.global external protected @__symm_context() {addr_space = 0 : i32, alignment = 8 : i64, dso_local} : !llvm.struct<(i32, i32, array<64 x i64>)>
// CHECK-LABEL: gpu.func @k
// CHECK-SAME: (%{{.*}}: memref<?xi32>,
// CHECK-NOT: memory_space_cast
// CHECK: llvm.mlir.addressof @__symm_context : !llvm.ptr
// CHECK: llvm.load %{{.*}} atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: llvm.store %{{.*}} atomic release {alignment = 4 : i64} : i32, !llvm.ptr
// CHECK: llvm.atomicrmw max %{{.*}} acq_rel {alignment = 4 : i64} : !llvm.ptr, i32
// CHECK: llvm.cmpxchg %{{.*}} release monotonic
// CHECK: llvm.fence seq_cst
// CHECK: llvm.call @_symm_host_yield() : () -> ()
gpu.module @m {
  gpu.func @k(%buf: memref<?xi32, #symm.heap>, %p: i32, %x: i32) kernel {
    %c0 = arith.constant 0 : index
    %t = symm.translate %buf to %p : memref<?xi32, #symm.heap>
    %r = symm.rank : i32
    %n = symm.world_size : i32
    %a = symm.load %t[%c0] ordering(acquire) scope(workgroup) : memref<?xi32, #symm.heap> -> i32
    symm.store %x, %t[%c0] ordering(release) scope(device) : i32 -> memref<?xi32, #symm.heap>
    %o = symm.atomic_rmw max %x, %t[%c0] ordering(acq_rel) scope(system) : i32 -> memref<?xi32, #symm.heap>
    %c = symm.atomic_cas %x, %a, %t[%c0] ordering(release) scope(device) : i32 -> memref<?xi32, #symm.heap>
    symm.fence ordering(seq_cst) scope(system)
    symm.backoff 64
    "test.use"(%r, %n, %o, %c) : (i32, i32, i32, i32) -> ()
    gpu.return
  }
}

// A bf16 float atomic is a compare-and-swap loop on the 16 bits whose
// arithmetic is arith on f32; other types stay llvm.atomicrmw.
// RUN: symm-opt %s -allow-unregistered-dialect -convert-symm-to-host | FileCheck %s --check-prefix=BF16
// BF16-LABEL: gpu.func @bf16_atomics
// BF16: %[[V:.*]] = arith.extf %{{.*}} : bf16 to f32
// BF16: %[[INIT:.*]] = llvm.load %[[P:.*]] atomic monotonic {alignment = 2 : i64} : !llvm.ptr -> i16
// BF16: scf.while (%[[CUR:.*]] = %[[INIT]]) : (i16) -> i16 {
// BF16: %[[OLD:.*]] = arith.extf %{{.*}} : bf16 to f32
// BF16: %[[SUM:.*]] = arith.addf %[[OLD]], %[[V]] : f32
// BF16: arith.truncf %[[SUM]] : f32 to bf16
// BF16: llvm.cmpxchg %[[P]], %[[CUR]], %{{.*}} acq_rel acquire {alignment = 2 : i64} : !llvm.ptr, i16
// BF16: arith.maxnumf
// BF16: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic {alignment = 2 : i64} : !llvm.ptr, f16
gpu.module @bf16 {
  gpu.func @bf16_atomics(%b: memref<4xbf16>, %h: memref<4xf16>, %x: bf16, %y: f16) kernel {
    %c0 = arith.constant 0 : index
    %0 = symm.atomic_rmw fadd %x, %b[%c0] ordering(acq_rel) scope(device) : bf16 -> memref<4xbf16>
    %1 = symm.atomic_rmw fmax %x, %b[%c0] ordering(relaxed) scope(device) : bf16 -> memref<4xbf16>
    %2 = symm.atomic_rmw fadd %y, %h[%c0] ordering(relaxed) scope(device) : f16 -> memref<4xf16>
    gpu.return
  }
}
