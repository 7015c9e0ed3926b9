// RUN: symm-opt %s -split-input-file -verify-diagnostics -symm-convert-nvgpu-to-host

!descA = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, 3>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
gpu.module @m {
  gpu.func @no_transpose_b(%da: !descA, %db: !descB, %c: !acc) kernel {
    // expected-error @+1 {{'nvgpu.warpgroup.mma' op with A 'memref<128x64xf16, 3>', B 'memref<64x128xf16, 3>' and accumulator 'vector<128x128xf32>' has no lowering for the CPU target: it supports an MN-major B only (transposeB): upstream's descriptor iteration steps B along K by rows of 128 bytes}}
    %d = nvgpu.warpgroup.mma %da, %db, %c : !descA, !descB, !acc -> !acc
    gpu.return
  }
}

// -----

!descA = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, 3>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
gpu.module @m {
  gpu.func @transpose_a(%da: !descA, %db: !descB, %c: !acc) kernel {
    // expected-error @+1 {{has no lowering for the CPU target: it supports a K-major A only (no transposeA), as upstream's descriptor iteration does}}
    %d = nvgpu.warpgroup.mma %da, %db, %c {transposeA, transposeB} : !descA, !descB, !acc -> !acc
    gpu.return
  }
}

// -----

!descA = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, 3>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf16>>
gpu.module @m {
  gpu.func @f16_accumulator(%da: !descA, %db: !descB, %c: !acc) kernel {
    // expected-error @+1 {{'nvgpu.warpgroup.mma' op with A 'memref<64x64xf16, 3>', B 'memref<64x64xf16, 3>' and accumulator 'vector<64x64xf16>' has no lowering for the CPU target: it supports f16 or bf16 operands with an f32 accumulator}}
    %d = nvgpu.warpgroup.mma %da, %db, %c {transposeB} : !descA, !descB, !acc -> !acc
    gpu.return
  }
}

// -----

!descA = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
gpu.module @m {
  gpu.func @long_k(%da: !descA, %db: !descB, %c: !acc) kernel {
    // expected-error @+1 {{has no lowering for the CPU target: it takes an A of Mx64, a B of 64xN and an MxN accumulator, M a multiple of 64 and N a multiple of 8 up to 256}}
    %d = nvgpu.warpgroup.mma %da, %db, %c {transposeB} : !descA, !descB, !acc -> !acc
    gpu.return
  }
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
gpu.module @m {
  gpu.func @multicast(%t: memref<64x64xf16, 3>, %map: !map, %mask: i16) kernel {
    %c0 = arith.constant 0 : index
    %bar = nvgpu.mbarrier.create -> !barriers
    // expected-error @+1 {{with a multicast mask has no lowering for the CPU target, which has no thread block clusters}}
    nvgpu.tma.async.load %map[%c0, %c0], %bar[%c0] to %t multicast_mask = %mask : !map, !barriers -> memref<64x64xf16, 3>
    gpu.return
  }
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @group_argument(%bar: !barriers) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'nvgpu.mbarrier.init' op needs an mbarrier group made by nvgpu.mbarrier.create in the same kernel on the CPU target}}
    nvgpu.mbarrier.init %bar[%c0], %c1 : !barriers
    gpu.return
  }
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @token_argument(%t: !nvgpu.mbarrier.token) kernel {
    %c0 = arith.constant 0 : index
    %bar = nvgpu.mbarrier.create -> !barriers
    // expected-error @+1 {{'nvgpu.mbarrier.test.wait' op needs a token from an nvgpu.mbarrier.arrive of the same kernel on the CPU target}}
    %done = nvgpu.mbarrier.test.wait %bar[%c0], %t : !barriers, !nvgpu.mbarrier.token
    gpu.return
  }
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
gpu.module @m {
  func.func private @use(!barriers)
  gpu.func @escapes() kernel {
    // expected-error @+1 {{'nvgpu.mbarrier.create' op result is used by}}
    %bar = nvgpu.mbarrier.create -> !barriers
    func.call @use(%bar) : (!barriers) -> ()
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @ldmatrix(%m: memref<16x16xf16, 3>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'nvgpu.ldmatrix' op has no lowering for the CPU target; it lowers the mbarrier, TMA and warpgroup operations}}
    %r = nvgpu.ldmatrix %m[%c0, %c0] {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, 3> -> vector<4x2xf16>
    gpu.return
  }
}

// -----

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
gpu.module @m {
  func.func @helper() {
    // expected-error @+1 {{'nvgpu.mbarrier.create' op has no lowering for the CPU target outside a gpu.func; inline the function into the kernel}}
    %bar = nvgpu.mbarrier.create -> !barriers
    return
  }
}

// -----

!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x16xf32>>
gpu.module @m {
  gpu.func @integer_store(%d: memref<64x16xi32>) kernel {
    %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
    // expected-error @+1 {{'nvgpu.warpgroup.mma.store' op into a memref of 'i32' has no lowering for the CPU target: it stores f32 accumulators into f32, bf16 or f16 memrefs}}
    nvgpu.warpgroup.mma.store %init, %d : !acc to memref<64x16xi32>
    gpu.return
  }
}
