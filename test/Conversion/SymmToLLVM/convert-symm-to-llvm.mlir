// RUN: symm-opt %s -convert-symm-to-llvm | FileCheck %s

// Host code: collective allocation, barrier and queries call the runtime; heap
// memrefs lose their memory space; GPU memory operations are left to
// symm-gpu-memory-ops-to-async and gpu-to-llvm.
// The size in bytes is checked: a negative size or a product beyond 2^63 - 1
// passes -1, which the runtime reports.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: %[[N64:.*]] = builtin.unrealized_conversion_cast %[[N]] : index to i64
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK: %[[ONE:.*]] = llvm.getelementptr %{{.*}}[1] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK: %[[ELEMENT:.*]] = llvm.ptrtoint %[[ONE]]
// CHECK: %[[NEGATIVE:.*]] = llvm.icmp "slt" %[[N64]], %[[ZERO]]
// CHECK: %[[MUL:.*]] = "llvm.intr.umul.with.overflow"(%[[ELEMENT]], %[[N64]])
// CHECK: %[[PRODUCT:.*]] = llvm.extractvalue %[[MUL]][0]
// CHECK: %[[OVERFLOW:.*]] = llvm.extractvalue %[[MUL]][1]
// CHECK: %[[BAD1:.*]] = llvm.or %{{.*}}, %[[NEGATIVE]]
// CHECK: %[[BAD2:.*]] = llvm.or %[[BAD1]], %[[OVERFLOW]]
// CHECK: %[[BEYOND:.*]] = llvm.icmp "slt" %[[PRODUCT]], %[[ZERO]]
// CHECK: %[[BAD:.*]] = llvm.or %[[BAD2]], %[[BEYOND]]
// CHECK: %[[INVALID:.*]] = llvm.mlir.constant(-1 : i64) : i64
// CHECK: %[[BYTES:.*]] = llvm.select %[[BAD]], %[[INVALID]], %[[PRODUCT]]
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
