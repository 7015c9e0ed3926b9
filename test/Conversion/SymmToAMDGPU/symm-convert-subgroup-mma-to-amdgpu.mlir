// RUN: symm-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(gpu.module(symm-convert-subgroup-mma-to-amdgpu))' | FileCheck %s

// Lane l holds A[l mod 16][4 (l / 16) + t] and C[4 (l / 16) + t][l mod 16],
// t = 0..3, and the compute is one MFMA.
// CHECK-LABEL: gpu.func @mma
gpu.module @m {
  gpu.func @mma(%a: memref<16x32xf16>, %c: memref<16x16xf32>, %h: memref<16x16xf16>) kernel {
    %c0 = arith.constant 0 : index
    // CHECK: %[[LANE:.*]] = gpu.lane_id
    // CHECK: %[[A:.*]] = scf.for %[[T:arg[0-9]+]] = %c0{{.*}} to %c4{{.*}} -> (vector<4xf16>)
    // CHECK: %[[ROW:.*]] = arith.remui %[[LANE]], %c16
    // CHECK: %[[Q:.*]] = arith.divui %[[LANE]], %c16
    // CHECK: %[[Q4:.*]] = arith.muli %[[Q]], %c4
    // CHECK: %[[COL:.*]] = arith.addi %[[Q4]], %[[T]]
    // CHECK: %[[R32:.*]] = arith.muli %[[ROW]], %c32
    // CHECK: %[[POS:.*]] = arith.addi %[[R32]], %[[COL]]
    // CHECK: memref.load %{{.*}}[%[[POS]]]
    %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 32 : index} : memref<16x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    // CHECK: %[[B:.*]] = scf.for {{.*}} -> (vector<4xf16>)
    %fb = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 32 : index, transpose} : memref<16x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    // CHECK: %[[C:.*]] = scf.for {{.*}} -> (vector<4xf32>)
    %fc = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
    // CHECK: %[[D:.*]] = amdgpu.mfma 16x16x16 %[[A]] * %[[B]] + %[[C]] {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
    %d = gpu.subgroup_mma_compute %fa, %fb, %fc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[D]])
    // CHECK: memref.store
    gpu.subgroup_mma_store_matrix %d, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    // An f16 accumulator goes through the instruction in f32.
    // CHECK: %[[Z:.*]] = vector.broadcast %{{.*}} : f16 to vector<4xf16>
    // CHECK: %[[ZF:.*]] = arith.extf %[[Z]] : vector<4xf16> to vector<4xf32>
    // CHECK: %[[DF:.*]] = amdgpu.mfma 16x16x16 %[[A]] * %[[B]] + %[[ZF]]
    // CHECK: arith.truncf %[[DF]] : vector<4xf32> to vector<4xf16>
    %zero = arith.constant 0.0 : f16
    %z = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf16, "COp">
    %dh = gpu.subgroup_mma_compute %fa, %fb, %z : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf16, "COp">
    gpu.subgroup_mma_store_matrix %dh, %h[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf16, "COp">, memref<16x16xf16>
    // CHECK-NOT: gpu.subgroup_mma
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @shape(%a: memref<32x32xf16>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{fragment '!gpu.mma_matrix<32x8xf16, "AOp">' has no MFMA lowering; AMD GPUs take 16x16 f16 A and B fragments and 16x16 f32 or f16 accumulators}}
    %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 32 : index} : memref<32x32xf16> -> !gpu.mma_matrix<32x8xf16, "AOp">
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @f32_operands(%a: memref<16x16xf32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{fragment '!gpu.mma_matrix<16x16xf32, "AOp">' has no MFMA lowering}}
    %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "AOp">
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @thread_local(%v: f32) kernel {
    %z = gpu.subgroup_mma_constant_matrix %v : !gpu.mma_matrix<16x16xf32, "COp">
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{has no lowering for AMD GPUs: its per-thread layout is NVIDIA's; use subgroup_mma_load_matrix/store_matrix instead}}
    %x = gpu.subgroup_mma_extract_thread_local %z[%c0] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    gpu.return
  }
}
