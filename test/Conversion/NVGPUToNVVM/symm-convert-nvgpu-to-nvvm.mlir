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
