// RUN: symm-opt %s -symm-tma-descriptors-to-pointers | FileCheck %s

// Host code makes the descriptor with the runtime; the kernel and its launch
// pass a pointer, cast back to the descriptor where the kernel uses it. The
// kernel's nvgpu operations are left to the target.
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
// CHECK-LABEL: gpu.func @prefetch
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr, %[[N:.*]]: index) kernel
// CHECK-NEXT: %[[D:.*]] = builtin.unrealized_conversion_cast %[[P]] : !llvm.ptr to !nvgpu.tensormap.descriptor
// CHECK-NEXT: nvgpu.tma.prefetch.descriptor %[[D]]
// CHECK-LABEL: func.func @main
// CHECK: %[[CALL:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref({{.*}}) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
// CHECK: %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[CALL]] : !llvm.ptr to !nvgpu.tensormap.descriptor
// CHECK: %[[ARG:.*]] = builtin.unrealized_conversion_cast %[[MAP]] : !nvgpu.tensormap.descriptor{{.*}} to !llvm.ptr
// CHECK: gpu.launch_func @kernels::@prefetch {{.*}} args(%[[ARG]] : !llvm.ptr, %{{.*}} : index)
// CHECK: llvm.func @mgpuTensorMapEncodeTiledMemref(i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @prefetch(%map: !map, %n: index) kernel {
      nvgpu.tma.prefetch.descriptor %map : !map
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %m = memref.alloc() : memref<64x64xf16>
    %u = memref.cast %m : memref<64x64xf16> to memref<*xf16>
    %map = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
    gpu.launch_func @kernels::@prefetch blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%map : !map, %c64 : index)
    return
  }
  // A second host function declares the runtime function once.
  func.func @again(%u: memref<*xf16>) -> !map {
    %c64 = arith.constant 64 : index
    %map = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
    return %map : !map
  }
}
