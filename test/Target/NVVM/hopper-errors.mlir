// Hopper operations compiled for a chip without them: one error naming the
// operation and the chip it needs, not a failure in the backend or ptxas.
// RUN: not symm-compile --target=sm_90 --emit=ptx %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: not symm-compile --target=sm_100a --emit=ptx %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM100
// RUN: not symm-compile --target=gfx942 --emit=isa %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=GFX
// Without the warpgroup MMA: TMA, which sm_90 has.
// RUN: sed '/warpgroup/d' %s > %t.tma.mlir
// RUN: not symm-compile --target=sm_80 --emit=ptx %t.tma.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not symm-compile --target=gfx942 --emit=isa %t.tma.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=GFXTMA
// RUN: symm-compile --target=sm_90 --emit=ptx %t.tma.mlir -o - | FileCheck %s --check-prefix=TMA
// Warpgroup MMA written with NVVM's own operations.
// RUN: sed 's/%acc = nvgpu.warpgroup.mma.init.accumulator -> !acc/nvvm.wgmma.fence.aligned/; /nvgpu.warpgroup.mma.store/d' %s > %t.nvvm.mlir
// RUN: not symm-compile --target=sm_90 --emit=ptx %t.nvvm.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=NVVM
// SM90: hopper-errors.mlir:[[#@LINE+31]]:{{[0-9]+}}: error: 'nvgpu.warpgroup.mma.init.accumulator' (warpgroup MMA) needs --target=sm_90a; sm_90 has no warpgroup MMA
// SM90-NOT: error
// SM100: error: 'nvgpu.warpgroup.mma.init.accumulator' (warpgroup MMA) needs --target=sm_90a; sm_100a has no warpgroup MMA
// GFX: error: 'nvgpu.tma.create.descriptor' (TMA) needs --target=sm_90 or newer (sm_90a for warpgroup MMA); gfx942 has no TMA
// SM80: error: 'nvgpu.tma.create.descriptor' (TMA) needs --target=sm_90 or newer (sm_90a for warpgroup MMA); sm_80 has no TMA
// GFXTMA: error: 'nvgpu.tma.create.descriptor' (TMA) needs --target=sm_90 or newer (sm_90a for warpgroup MMA); gfx942 has no TMA
// TMA: .target sm_90
// TMA: cp.async.bulk.tensor.2d
// NVVM: error: 'nvvm.wgmma.fence.aligned' (warpgroup MMA) needs --target=sm_90a; sm_90 has no warpgroup MMA
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
module attributes {gpu.container_module} {
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %m = gpu.alloc host_shared () : memref<64x64xf16>
    %u = memref.cast %m : memref<64x64xf16> to memref<*xf16>
    %map = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !map
    %bytes = arith.constant 8192 : i32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %bytes {
      %c0 = arith.constant 0 : index
      %n = arith.constant 8192 : index
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %barriers = nvgpu.mbarrier.create -> !barriers
      nvgpu.mbarrier.init %barriers[%c0], %c1 : !barriers
      nvgpu.mbarrier.arrive.expect_tx %barriers[%c0], %n : !barriers
      nvgpu.tma.async.load %map[%c0, %c0], %barriers[%c0] to %tile : !map, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
      %acc = nvgpu.warpgroup.mma.init.accumulator -> !acc
      %out = memref.alloca() : memref<64x64xf32>
      nvgpu.warpgroup.mma.store %acc, %out : !acc to memref<64x64xf32>
      gpu.terminator
    }
    return
  }
}
