// RUN: not symm-opt %s -split-input-file -symm-check-hopper-ops=chip=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: symm-opt %s -split-input-file -symm-check-hopper-ops=chip=sm_90a | FileCheck %s --check-prefix=OK
// RUN: symm-opt %s -split-input-file -symm-check-hopper-ops=chip=host | FileCheck %s --check-prefix=OK
// RUN: not symm-opt %s -split-input-file -symm-check-hopper-ops=chip=sm_80 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not symm-opt %s -split-input-file -symm-check-hopper-ops=chip=gfx942 -o /dev/null 2>&1 | FileCheck %s --check-prefix=GFX
// sm_90a and the CPU target take everything.
// OK: gpu.module @wgmma
// OK: gpu.module @tma
// OK: gpu.module @mbarrier
// OK: gpu.module @nvvm
// Each split is reported once, at its first operation the chip lacks.
// SM90: symm-check-hopper-ops.mlir:[[#@LINE+16]]:12: error: 'nvgpu.warpgroup.mma.init.accumulator' (warpgroup MMA) needs --target=sm_90a; sm_90 has no warpgroup MMA
// SM90-NEXT: nvgpu.warpgroup.mma.init.accumulator
// SM90: error: 'nvvm.wgmma.fence.aligned' (warpgroup MMA) needs --target=sm_90a; sm_90 has no warpgroup MMA
// SM90-NOT: error
// SM80: error: 'nvgpu.warpgroup.mma.init.accumulator' (warpgroup MMA) needs --target=sm_90a; sm_80 has no warpgroup MMA
// SM80: error: 'nvgpu.tma.async.load' (TMA) needs --target=sm_90 or newer (sm_90a for warpgroup MMA); sm_80 has no TMA
// SM80: error: 'nvvm.wgmma.fence.aligned' (warpgroup MMA) needs --target=sm_90a; sm_80 has no warpgroup MMA
// SM80-NOT: error
// GFX: error: 'nvgpu.warpgroup.mma.init.accumulator' (warpgroup MMA) needs --target=sm_90a; gfx942 has no warpgroup MMA
// GFX: error: 'nvgpu.tma.async.load' (TMA) needs --target=sm_90 or newer (sm_90a for warpgroup MMA); gfx942 has no TMA
// GFX: error: 'nvvm.wgmma.fence.aligned' (warpgroup MMA) needs --target=sm_90a; gfx942 has no warpgroup MMA
// GFX-NOT: error

// Warpgroup MMA is sm_90a's alone.
gpu.module @wgmma {
  gpu.func @k() kernel {
    %acc = nvgpu.warpgroup.mma.init.accumulator -> !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
    gpu.return
  }
}

// -----

// TMA is sm_90's; only the first operation a chip lacks is reported.
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
gpu.module @tma {
  gpu.func @k(%map: !map, %tile: memref<64x64xf16, 3>) kernel {
    %c0 = arith.constant 0 : index
    %barriers = nvgpu.mbarrier.create -> !barriers
    nvgpu.tma.async.load %map[%c0, %c0], %barriers[%c0] to %tile : !map, !barriers -> memref<64x64xf16, 3>
    %ticks = arith.constant 1000 : index
    %parity = arith.constant false
    nvgpu.mbarrier.try_wait.parity %barriers[%c0], %parity, %ticks : !barriers
    gpu.return
  }
}

// -----

// The mbarrier operations Ampere has are not Hopper's.
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
gpu.module @mbarrier {
  gpu.func @k() kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %barriers = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %barriers[%c0], %c1 : !barriers
    gpu.return
  }
}

// -----

// Warpgroup MMA written with NVVM's operations.
gpu.module @nvvm {
  gpu.func @k() kernel {
    nvvm.wgmma.fence.aligned
    gpu.return
  }
}
