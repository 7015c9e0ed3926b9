// RUN: symm-opt %s -split-input-file -symm-gpu-memory-ops-to-async | FileCheck %s
// RUN: symm-opt %s -symm-gpu-memory-ops-to-async -gpu-to-llvm | FileCheck %s --check-prefix=LLVM

// Each synchronous memory operation runs on a fresh stream that is waited for
// at once; the operand segments of gpu.alloc count the new dependency.
// CHECK-LABEL: func.func @memory
// CHECK-SAME: (%[[N:.*]]: index, %[[X:.*]]: f32)
// CHECK: %[[S0:.*]] = gpu.wait async
// CHECK-NEXT: %[[A:.*]], %[[T0:.*]] = gpu.alloc async [%[[S0]]] () : memref<256xf32>
// CHECK-NEXT: gpu.wait [%[[T0]]]
// CHECK-NEXT: %[[S1:.*]] = gpu.wait async
// CHECK-NEXT: %[[B:.*]], %[[T1:.*]] = gpu.alloc async [%[[S1]]] (%[[N]]) : memref<?xf32>
// CHECK-NEXT: gpu.wait [%[[T1]]]
// host_shared has no asynchronous form.
// CHECK-NEXT: %[[H:.*]] = gpu.alloc host_shared (%[[N]]) : memref<?xf32>
// CHECK-NEXT: %[[S2:.*]] = gpu.wait async
// CHECK-NEXT: %[[T2:.*]] = gpu.memset async [%[[S2]]] %[[B]], %[[X]] : memref<?xf32>, f32
// CHECK-NEXT: gpu.wait [%[[T2]]]
// CHECK-NEXT: %[[S3:.*]] = gpu.wait async
// CHECK-NEXT: %[[T3:.*]] = gpu.memcpy async [%[[S3]]] %[[H]], %[[B]] : memref<?xf32>, memref<?xf32>
// CHECK-NEXT: gpu.wait [%[[T3]]]
// CHECK-NEXT: %[[S4:.*]] = gpu.wait async
// CHECK-NEXT: %[[T4:.*]] = gpu.dealloc async [%[[S4]]] %[[A]] : memref<256xf32>
// CHECK-NEXT: gpu.wait [%[[T4]]]
// Asynchronous operations are left as they are.
// CHECK-NEXT: %[[S5:.*]] = gpu.wait async
// CHECK-NEXT: %[[T5:.*]] = gpu.dealloc async [%[[S5]]] %[[B]] : memref<?xf32>
// CHECK-NEXT: gpu.wait [%[[T5]]]
// CHECK-NEXT: return

// LLVM-LABEL: llvm.func @memory
// LLVM: llvm.call @mgpuStreamCreate()
// LLVM: llvm.call @mgpuMemAlloc
// LLVM: llvm.call @mgpuStreamSynchronize
// LLVM: llvm.call @mgpuStreamDestroy
// LLVM: llvm.call @mgpuMemset32
// LLVM: llvm.call @mgpuMemcpy
// LLVM: llvm.call @mgpuMemFree
func.func @memory(%n: index, %x: f32) {
  %a = gpu.alloc () : memref<256xf32>
  %b = gpu.alloc (%n) : memref<?xf32>
  %h = gpu.alloc host_shared (%n) : memref<?xf32>
  gpu.memset %b, %x : memref<?xf32>, f32
  gpu.memcpy %h, %b : memref<?xf32>, memref<?xf32>
  gpu.dealloc %a : memref<256xf32>
  %s = gpu.wait async
  %t = gpu.dealloc async [%s] %b : memref<?xf32>
  gpu.wait [%t]
  return
}

// -----

// Device code is not host code: nothing inside a gpu.module changes.
// CHECK-LABEL: gpu.module @kernels
// CHECK-NOT: gpu.wait
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @device_helper(%n: index) {
      %a = gpu.alloc (%n) : memref<?xf32>
      return
    }
  }
}
