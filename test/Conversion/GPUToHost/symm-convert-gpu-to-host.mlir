// RUN: symm-opt %s -split-input-file -symm-convert-gpu-to-host | FileCheck %s

// Kernels become LLVM functions with the GPU calling convention plus a packed
// entry and a parameter-size table for the host backend; GPU operations call
// the runtime; workgroup memory is carved from the block's buffer. Only the
// entries are exported: the kernels are internal, so that a kernel named
// like a C library function (@send below) cannot bind its entry's call to
// that function.
// CHECK-LABEL: gpu.module @m
// CHECK: llvm.func internal @k(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: f32) attributes {gpu.kernel}
// Static workgroup memory: 64 bytes of f32 then 16 of i8 (16-byte aligned).
// CHECK: %[[BASE:.*]] = llvm.call @_symm_host_shared_memory(%{{.*}}) : (i64) -> !llvm.ptr
// CHECK: llvm.getelementptr %[[BASE]][64] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.call @_symm_host_id(%{{.*}}, %{{.*}}) : (i32, i32) -> i64
// CHECK: llvm.call @_symm_host_shuffle(%{{.*}}) : (i64, i32, i32, i32, !llvm.ptr) -> i64
// CHECK: llvm.call @_symm_host_barrier() : () -> ()
// CHECK: llvm.call @printf(%{{.*}}) vararg(!llvm.func<i32 (ptr, ...)>)
// Dynamic shared memory starts after the static part.
// CHECK: llvm.getelementptr %{{.*}}[80] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.func internal @send()
// CHECK: llvm.mlir.global external constant @_symm_kernel_k_params(dense<[6, 8, 8, 8, 8, 8, 4]> : tensor<7xi64>)
// CHECK: llvm.func @_symm_kernel_k(%[[PARAMS:.*]]: !llvm.ptr)
// CHECK: llvm.getelementptr %[[PARAMS]][5] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: llvm.call @k(
// CHECK: llvm.func @_symm_kernel_send(
gpu.module @m {
  gpu.func @k(%out: memref<?xf32>, %v: f32) workgroup(%a: memref<16xf32, #gpu.address_space<workgroup>>, %b: memref<16xi8, #gpu.address_space<workgroup>>) kernel {
    %t = gpu.thread_id x
    %w = arith.constant 32 : i32
    %o = arith.constant 1 : i32
    memref.store %v, %a[%t] : memref<16xf32, #gpu.address_space<workgroup>>
    %s, %ok = gpu.shuffle xor %v, %o, %w : f32
    gpu.barrier
    gpu.printf "%f\n", %s : f32
    %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%t] : memref<?xf32>
    gpu.return
  }
  gpu.func @send() kernel {
    gpu.return
  }
}

// -----

// A shuffle's valid-bit slot is made once in the entry block, not on every
// iteration of the loop around the shuffle.
// CHECK-LABEL: llvm.func internal @shuffle_loop
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x i8
// CHECK: llvm.br ^[[LOOP:.*]](
// CHECK: ^[[LOOP]](
// CHECK-NOT: llvm.alloca
// CHECK: llvm.call @_symm_host_shuffle(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SLOT]])
// CHECK-NOT: llvm.alloca
// CHECK: llvm.return
gpu.module @loop {
  gpu.func @shuffle_loop(%v: i32, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %w = arith.constant 32 : i32
    %o = arith.constant 1 : i32
    cf.br ^loop(%c0, %v : index, i32)
  ^loop(%i: index, %acc: i32):
    %more = arith.cmpi slt, %i, %n : index
    cf.cond_br %more, ^body, ^done
  ^body:
    %s, %ok = gpu.shuffle xor %acc, %o, %w : i32
    %next = arith.addi %i, %c1 : index
    cf.br ^loop(%next, %s : index, i32)
  ^done:
    gpu.return
  }
}

// -----

// gpu.all_reduce: every lane of each subgroup shuffles, lane 0 writes the
// subgroup's value to workgroup memory, and after a barrier each thread
// combines the subgroups' values; a second barrier protects the memory.
// CHECK-LABEL: llvm.func internal @reduce
// CHECK: llvm.call @_symm_host_shared_memory
// CHECK-COUNT-5: llvm.call @_symm_host_shuffle
// CHECK: llvm.store
// CHECK: llvm.call @_symm_host_barrier()
// CHECK: llvm.load
// CHECK: llvm.add
// CHECK: llvm.call @_symm_host_barrier()
gpu.module @all_reduce {
  gpu.func @reduce(%v: i32, %out: memref<1xi32>) kernel {
    %r = gpu.all_reduce add %v uniform {} : (i32) -> (i32)
    %c0 = arith.constant 0 : index
    memref.store %r, %out[%c0] : memref<1xi32>
    gpu.return
  }
}
