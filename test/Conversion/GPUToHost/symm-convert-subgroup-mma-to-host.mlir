// RUN: symm-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(symm-convert-subgroup-mma-to-host))' | FileCheck %s

// A and B are replicated (every lane loads all 256 elements), C is dealt out:
// 8 elements a lane, element e = lane + 32 t.
// CHECK-LABEL: gpu.func @mma
// CHECK-SAME: (%[[A:.*]]: memref<16x32xf16>, %[[B:.*]]: memref<16x16xf16, 3>, %[[C:.*]]: memref<16x16xf32>)
gpu.module @m {
  gpu.func @mma(%a: memref<16x32xf16>, %b: memref<16x16xf16, 3>, %c: memref<16x16xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    // CHECK: memref.extract_strided_metadata %[[A]]
    // CHECK: memref.reinterpret_cast {{.*}} to memref<?xf16, strided<[1], offset: ?>>
    // CHECK: %[[AV:.*]] = scf.for %{{.*}} = %{{.*}} to %c256 {{.*}} -> (vector<256xf16>)
    // CHECK: memref.load
    // CHECK: vector.insert {{.*}} : f16 into vector<256xf16>
    %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c16] {leadDimension = 32 : index} : memref<16x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    // CHECK: memref.reinterpret_cast {{.*}} to memref<?xf16, strided<[1], offset: ?>, 3>
    // CHECK: %[[BV:.*]] = scf.for {{.*}} -> (vector<256xf16>)
    %fb = gpu.subgroup_mma_load_matrix %b[%c0, %c0] {leadDimension = 16 : index, transpose} : memref<16x16xf16, 3> -> !gpu.mma_matrix<16x16xf16, "BOp">
    // CHECK: %[[LANE:.*]] = gpu.lane_id
    // CHECK: %[[CV:.*]] = scf.for %[[T:arg[0-9]+]] = %c0{{.*}} to %c8{{.*}} -> (vector<8xf32>)
    // CHECK: arith.muli %[[T]], %c32
    // CHECK: arith.addi %[[LANE]]
    // CHECK: vector.insert {{.*}} : f32 into vector<8xf32>
    %fc = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
    // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[CV]]) -> (vector<8xf32>)
    // CHECK: vector.extract
    // CHECK: scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} -> (f32)
    // CHECK: %[[AE:.*]] = vector.extract %[[AV]][%{{.*}}] : f16 from vector<256xf16>
    // CHECK: arith.extf %[[AE]] : f16 to f32
    // CHECK: %[[BE:.*]] = vector.extract %[[BV]][%{{.*}}] : f16 from vector<256xf16>
    // CHECK: arith.extf %[[BE]] : f16 to f32
    // CHECK: %[[P:.*]] = arith.mulf
    // CHECK: arith.addf %{{.*}}, %[[P]] : f32
    %d = gpu.subgroup_mma_compute %fa, %fb, %fc {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    // CHECK: scf.for
    // CHECK: vector.extract {{.*}} : f32 from vector<8xf32>
    // CHECK: memref.store
    gpu.subgroup_mma_store_matrix %d, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    // CHECK-NOT: gpu.subgroup_mma
    gpu.return
  }
}

// -----

// Constants broadcast to what each lane holds; elementwise operations act on
// it; fragments flow through scf.for; f16 accumulators are computed in f32
// and rounded once.
// CHECK-LABEL: gpu.func @loop
gpu.module @m {
  gpu.func @loop(%a: memref<16x16xf16>, %out: memref<16x16xf16>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f16
    // CHECK: %[[Z:.*]] = vector.broadcast %{{.*}} : f16 to vector<8xf16>
    %z = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf16, "COp">
    // CHECK: vector.broadcast %{{.*}} : f16 to vector<256xf16>
    %za = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf16, "AOp">
    %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    // CHECK: arith.addf %{{.*}}, %{{.*}} : vector<256xf16>
    %fa2 = gpu.subgroup_mma_elementwise addf %fa, %za : (!gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "AOp">) -> !gpu.mma_matrix<16x16xf16, "AOp">
    %fb = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]]) -> (vector<8xf16>)
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (!gpu.mma_matrix<16x16xf16, "COp">) {
      // CHECK: arith.extf %{{.*}} : f16 to f32
      // CHECK: arith.truncf %{{.*}} : f32 to f16
      %d = gpu.subgroup_mma_compute %fa2, %fb, %acc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf16, "COp">
      // CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf16>
      %m = gpu.subgroup_mma_elementwise maxf %d, %acc : (!gpu.mma_matrix<16x16xf16, "COp">, !gpu.mma_matrix<16x16xf16, "COp">) -> !gpu.mma_matrix<16x16xf16, "COp">
      // CHECK: arith.negf %{{.*}} : vector<8xf16>
      %neg = gpu.subgroup_mma_elementwise negatef %m : (!gpu.mma_matrix<16x16xf16, "COp">) -> !gpu.mma_matrix<16x16xf16, "COp">
      scf.yield %neg : !gpu.mma_matrix<16x16xf16, "COp">
    }
    // CHECK: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
    %w = gpu.subgroup_mma_elementwise extf %r : (!gpu.mma_matrix<16x16xf16, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %r, %out[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf16, "COp">, memref<16x16xf16>
    gpu.return
  }
}

// -----

// Signed and unsigned i8 operands extend by their signedness into i32.
// CHECK-LABEL: gpu.func @int8
gpu.module @m {
  gpu.func @int8(%a: memref<16x16xi8>, %c: memref<16x16xi32>) kernel {
    %c0 = arith.constant 0 : index
    %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi8> -> !gpu.mma_matrix<16x16xsi8, "AOp">
    %fb = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi8> -> !gpu.mma_matrix<16x16xui8, "BOp">
    %fc = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi32> -> !gpu.mma_matrix<16x16xi32, "COp">
    // CHECK: arith.extsi %{{.*}} : i8 to i32
    // CHECK: arith.extui %{{.*}} : i8 to i32
    // CHECK: arith.muli
    // CHECK: arith.addi
    %d = gpu.subgroup_mma_compute %fa, %fb, %fc : !gpu.mma_matrix<16x16xsi8, "AOp">, !gpu.mma_matrix<16x16xui8, "BOp"> -> !gpu.mma_matrix<16x16xi32, "COp">
    gpu.subgroup_mma_store_matrix %d, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xi32, "COp">, memref<16x16xi32>
    gpu.return
  }
}
