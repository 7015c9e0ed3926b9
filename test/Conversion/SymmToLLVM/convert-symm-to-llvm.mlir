// RUN: symm-opt %s -convert-symm-to-llvm | FileCheck %s

// Host code: collective allocation, barrier and queries call the runtime; heap
// memrefs lose their memory space; GPU memory operations are left to
// symm-gpu-memory-ops-to-async and gpu-to-llvm.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: %[[END:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[BYTES:.*]] = llvm.ptrtoint %[[END]]
// CHECK: %[[PTR:.*]] = llvm.call @_symm_program_alloc(%[[BYTES]]) : (i64) -> !llvm.ptr
// CHECK: llvm.insertvalue %[[PTR]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[PTR]], %{{.*}}[1]
// CHECK: %[[BUF:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<?xf32>
// CHECK: gpu.memcpy %{{.*}}, %[[BUF]] : memref<?xf32>, memref<?xf32>
// CHECK: llvm.call @_symm_program_barrier() : () -> ()
// CHECK: llvm.call @_symm_program_rank() : () -> i32
// CHECK: llvm.call @_symm_program_world_size() : () -> i32
// CHECK: llvm.call @_symm_program_free(%{{.*}}) : (!llvm.ptr) -> ()
func.func @host(%n: index) -> (i32, i32) {
  %buf = symm.alloc(%n) : memref<?xf32, #symm.heap>
  %h = gpu.alloc host_shared (%n) : memref<?xf32>
  gpu.memcpy %h, %buf : memref<?xf32>, memref<?xf32, #symm.heap>
  symm.barrier
  %r = symm.rank : i32
  %s = symm.world_size : i32
  symm.dealloc %buf : memref<?xf32, #symm.heap>
  return %r, %s : i32, i32
}
