// gpu.subgroup_mma_* becomes v_mfma_f32_16x16x16_f16 on gfx942 and gfx90a;
// a fragment the MFMA lowering cannot hold is one error, not a crash.
// RUN: symm-compile --target=gfx942 --emit=isa %s -o - | FileCheck %s
// RUN: symm-compile --target=gfx90a --emit=isa %s -o - | FileCheck %s
// RUN: not symm-compile --target=gfx942 --emit=isa %S/Inputs/mma-f32.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=F32
// CHECK-LABEL: mma:
// CHECK: v_mfma_f32_16x16x16{{_?}}f16
// F32: error: 'gpu.subgroup_mma_load_matrix' op fragment '!gpu.mma_matrix<16x16xf32, "AOp">' has no MFMA lowering
gpu.module @kernels {
  gpu.func @mma(%a: memref<16x16xf16>, %c: memref<16x16xf32>) kernel {
    %c0 = arith.constant 0 : index
    %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %fb = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %fc = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
    %d = gpu.subgroup_mma_compute %fa, %fb, %fc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %d, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    gpu.return
  }
}
