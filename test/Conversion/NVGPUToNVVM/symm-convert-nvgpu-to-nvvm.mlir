// RUN: symm-opt %s -pass-pipeline='builtin.module(gpu.module(symm-convert-nvgpu-to-nvvm))' | FileCheck %s

// A module with nvgpu operations goes through upstream's lowering.
// CHECK-LABEL: gpu.module @hopper
// CHECK: nvvm.mbarrier.init
// CHECK-NOT: nvgpu.mbarrier
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
gpu.module @hopper {
  gpu.func @k() kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %barriers = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %barriers[%c0], %c1 : !barriers
    gpu.return
  }
}

// One without is left alone: upstream's pass would fail on the loop that
// carries a WMMA fragment, which convert-gpu-to-nvvm lowers later.
// CHECK-LABEL: gpu.module @wmma
// CHECK: scf.for {{.*}} -> (!gpu.mma_matrix<16x16xf32, "COp">)
gpu.module @wmma {
  gpu.func @k(%c: memref<16x16xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %init = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!gpu.mma_matrix<16x16xf32, "COp">) {
      %twice = gpu.subgroup_mma_elementwise addf %acc, %acc : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
      scf.yield %twice : !gpu.mma_matrix<16x16xf32, "COp">
    }
    gpu.subgroup_mma_store_matrix %r, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.return
  }
}

// A warpgroup accumulator stored into a bf16 memref (upstream's lowering
// stores f32 elements only): each pair of neighbouring elements is rounded
// once and stored as one vector, where upstream's f32 store puts it. Lane l
// of warp w holds registers 4j + 2i + {0, 1} at row l/4 + 16w + 8i, columns
// 8j + 2(l mod 4) + {0, 1}.
// CHECK-LABEL: gpu.module @narrowing
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %{{.*}} : index
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %{{.*}} : index
// CHECK: %[[QUAD:.*]] = arith.divui %[[LANE]], %{{.*}} : index
// CHECK: %[[WROWS:.*]] = arith.muli %[[WARP]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.addi %[[QUAD]], %[[WROWS]] : index
// CHECK: %[[INQUAD:.*]] = arith.remui %[[LANE]], %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.muli %[[INQUAD]], %{{.*}} : index
// CHECK: %[[BLOCK:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK: %[[R0:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK: %[[C0:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK: %[[LO:.*]] = llvm.extractvalue %[[BLOCK]][0]
// CHECK: %[[HI:.*]] = llvm.extractvalue %[[BLOCK]][1]
// CHECK: %[[PAIR:.*]] = vector.from_elements %[[LO]], %[[HI]] : vector<2xf32>
// CHECK: %[[BF:.*]] = arith.truncf %[[PAIR]] : vector<2xf32> to vector<2xbf16>
// CHECK: vector.store %[[BF]], %{{.*}}[%[[R0]], %[[C0]]] {alignment = 4 : i64} : memref<64x16xbf16>, vector<2xbf16>
// CHECK: llvm.extractvalue %[[BLOCK]][4]
// CHECK: llvm.extractvalue %[[BLOCK]][5]
// CHECK: vector.store
// CHECK: llvm.extractvalue %[[BLOCK]][2]
// CHECK: llvm.extractvalue %[[BLOCK]][3]
// CHECK: vector.store
// CHECK: llvm.extractvalue %[[BLOCK]][6]
// CHECK: llvm.extractvalue %[[BLOCK]][7]
// CHECK: vector.store
// CHECK-NOT: vector.store
// CHECK-NOT: memref.store
!acc16 = !nvgpu.warpgroup.accumulator<fragmented = vector<64x16xf32>>
gpu.module @narrowing {
  gpu.func @k(%c: memref<64x16xbf16>) kernel {
    %acc = nvgpu.warpgroup.mma.init.accumulator -> !acc16
    nvgpu.warpgroup.mma.store %acc, %c : !acc16 to memref<64x16xbf16>
    gpu.return
  }
}
