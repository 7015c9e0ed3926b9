// RUN: symm-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(gpu.module(symm-convert-subgroup-mma-to-host))'

gpu.module @m {
  gpu.func @odd(%a: memref<16x16xf16>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{fragment '!gpu.mma_matrix<4x4xf16, "AOp">' has 16 elements; the CPU target needs a multiple of 32 (the subgroup size)}}
    %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<4x4xf16, "AOp">
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @vectors(%a: memref<16x2xvector<8xf16>>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{on a memref of 'vector<8xf16>' has no lowering for the CPU target; use a memref of scalars}}
    %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x2xvector<8xf16>> -> !gpu.mma_matrix<16x16xf16, "AOp">
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @thread_local(%v: f32) kernel {
    %z = gpu.subgroup_mma_constant_matrix %v : !gpu.mma_matrix<16x16xf32, "COp">
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{has no lowering for the CPU target: its per-thread layout is NVIDIA's; use subgroup_mma_load_matrix/store_matrix instead}}
    %x = gpu.subgroup_mma_extract_thread_local %z[%c0] : !gpu.mma_matrix<16x16xf32, "COp"> -> f32
    gpu.return
  }
}
