// gpu.subgroup_mma_* on sm_90: upstream's WMMA lowering, through Symm's
// NVVM pipeline, to wmma.*.sync PTX.
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o - | FileCheck %s
// CHECK-LABEL: .entry mma
// CHECK-DAG: wmma.load.a.sync.aligned.row.m16n16k16.f16
// CHECK-DAG: wmma.load.b.sync.aligned.row.m16n16k16.f16
// CHECK-DAG: wmma.load.c.sync.aligned.row.m16n16k16.f32
// CHECK-DAG: wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32
// CHECK-DAG: wmma.store.d.sync.aligned.row.m16n16k16.f32
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
