// A kernel-only module for sm_90a, as launchers load it: the kernel takes a
// TMA descriptor (the pointer mgpuTensorMapEncodeTiledMemref returns, one
// parameter in the manifest), copies a 64x64 tile through workgroup memory
// with a TMA load, an mbarrier and a TMA store, and uses NVVM's warpgroup
// operations directly. PTX here; a cubin through ptxas where it is.
// RUN: symm-compile --target=sm_90a --emit=ptx %s -o - | FileCheck %s
// RUN: %if ptxas %{ symm-compile --target=sm_90a %s -o %t.cubin --manifest=%t.json %}
// RUN: %if ptxas %{ llvm-readelf -h %t.cubin | FileCheck %s --check-prefix=CUBIN %}
// RUN: %if ptxas %{ FileCheck %s --check-prefix=MANIFEST < %t.json %}
// CHECK: .target sm_90a
// CHECK-LABEL: .entry tile_copy(
// CHECK-NEXT: .param .u64 {{.*}}tile_copy_param_0,
// CHECK-NEXT: .param .u64 {{.*}}tile_copy_param_1
// CHECK-NEXT: )
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: wgmma.fence.sync.aligned
// CHECK: wgmma.commit_group.sync.aligned
// CHECK: wgmma.wait_group.sync.aligned 0
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CUBIN: Flags: {{.*}}sm_90
// MANIFEST: "arguments": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "kind": "scalar",
// MANIFEST-NEXT: "params": 1,
// MANIFEST-NEXT: "type": "!nvgpu.tensormap.descriptor
// MANIFEST: "name": "tile_copy",
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!tile = memref<64x64xf16, #gpu.address_space<workgroup>>
gpu.module @kernels {
  gpu.func @tile_copy(%map: !map, %col: index) workgroup(%buf: memref<8192xi8, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bytes = arith.constant 8192 : index
    %ticks = arith.constant 1000000 : index
    %parity = arith.constant false
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    %tile = memref.view %buf[%c0][] : memref<8192xi8, #gpu.address_space<workgroup>> to !tile
    %barriers = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %barriers[%c0], %c1, predicate = %leader : !barriers
    gpu.barrier
    scf.if %leader {
      nvgpu.mbarrier.arrive.expect_tx %barriers[%c0], %bytes : !barriers
      nvgpu.tma.async.load %map[%col, %c0], %barriers[%c0] to %tile : !map, !barriers -> !tile
    }
    nvgpu.mbarrier.try_wait.parity %barriers[%c0], %parity, %ticks : !barriers
    nvvm.wgmma.fence.aligned
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
    scf.if %leader {
      nvgpu.tma.async.store %tile to %map[%c0, %c0] : !tile -> !map
    }
    gpu.return
  }
}
