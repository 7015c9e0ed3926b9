// RUN: symm-opt %s -split-input-file -symm-convert-nvgpu-to-host | FileCheck %s

// mbarriers are 8 bytes of workgroup memory each (a workgroup attribution),
// operated on by runtime calls; tokens are i64.
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
module attributes {gpu.container_module} {
  gpu.module @m {
    // CHECK-LABEL: gpu.func @mbarriers
    // CHECK-SAME: workgroup(%[[BARS:.*]] : memref<2xi64, #gpu.address_space<workgroup>>)
    gpu.func @mbarriers(%p: i1) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %c4096 = arith.constant 4096 : index
      %f = arith.constant false
      %bar = nvgpu.mbarrier.create -> !barriers
      // CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[BARS]]
      // CHECK: %[[P0:.*]] = llvm.inttoptr
      // CHECK: scf.if %{{.*}} {
      // CHECK-NEXT: %[[COUNT:.*]] = arith.index_cast %c128 : index to i32
      // CHECK-NEXT: llvm.call @_symm_host_mbarrier_init(%[[P0]], %[[COUNT]])
      nvgpu.mbarrier.init %bar[%c0], %c128, predicate = %p : !barriers
      // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
      // CHECK: %[[TX:.*]] = arith.index_cast %c4096 : index to i32
      // CHECK: llvm.call @_symm_host_mbarrier_arrive(%{{.*}}, %[[ONE]], %[[TX]]) : (!llvm.ptr, i32, i32) -> i64
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %c4096 : !barriers
      // The second barrier is 8 bytes further.
      // CHECK: %[[OFF:.*]] = arith.muli %c1, %c8{{.*}} : index
      // CHECK: %[[TOKEN:.*]] = llvm.call @_symm_host_mbarrier_arrive(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, i32, i32) -> i64
      %token = nvgpu.mbarrier.arrive %bar[%c1] : !barriers -> !nvgpu.mbarrier.token
      // CHECK: %[[DONE:.*]] = llvm.call @_symm_host_mbarrier_test_wait(%{{.*}}, %[[TOKEN]]) : (!llvm.ptr, i64) -> i32
      // CHECK: arith.cmpi ne, %[[DONE]]
      %done = nvgpu.mbarrier.test.wait %bar[%c1], %token : !barriers, !nvgpu.mbarrier.token
      // CHECK: %[[N:.*]] = arith.index_cast %c1 : index to i32
      // CHECK: llvm.call @_symm_host_mbarrier_arrive(%{{.*}}, %[[N]], %{{.*}})
      %t2 = nvgpu.mbarrier.arrive.nocomplete %bar[%c1], %c1 : !barriers -> !nvgpu.mbarrier.token
      // CHECK: %[[PAR:.*]] = arith.extui %false : i1 to i32
      // CHECK: llvm.call @_symm_host_mbarrier_wait(%{{.*}}, %[[PAR]]) : (!llvm.ptr, i32) -> ()
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %f, %c4096 : !barriers
      // CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
      %ptr = nvgpu.mbarrier.get %bar[%c1] : !barriers -> i64
      // CHECK-NOT: nvgpu.
      gpu.return
    }
  }
}

// -----

// TMA: the kernel takes the runtime's tensor map as a pointer, the launch
// passes it so; a load is one runtime call with the coordinates as i32 (the
// unused ones 0), after which the box's bytes are complete on the mbarrier.
// Prefetch, fences and the wgmma fences are no-ops.
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!map = !nvgpu.tensormap.descriptor<tensor = memref<64x32xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @m {
    // CHECK-LABEL: gpu.func @tma
    // CHECK-SAME: (%[[MAPPTR:.*]]: !llvm.ptr, %[[SRC:.*]]: memref<64x32xf16, #gpu.address_space<workgroup>>)
    // CHECK: %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[MAPPTR]] : !llvm.ptr to !nvgpu.tensormap.descriptor
    gpu.func @tma(%map: !map, %src: memref<64x32xf16, #gpu.address_space<workgroup>>) workgroup(%dst: memref<64x32xf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %bar = nvgpu.mbarrier.create -> !barriers
      nvgpu.mbarrier.init %bar[%c0], %c1 : !barriers
      nvgpu.tma.prefetch.descriptor %map : !map
      nvgpu.tma.fence.descriptor %map : !map
      // CHECK: %[[M:.*]] = builtin.unrealized_conversion_cast %[[MAP]] : !nvgpu.tensormap.descriptor<{{.*}}> to !llvm.ptr
      // CHECK: %[[X:.*]] = arith.index_cast %c32 : index to i32
      // CHECK: %[[Y:.*]] = arith.index_cast %c0 : index to i32
      // CHECK: %[[Z:.*]] = arith.constant 0 : i32
      // CHECK: llvm.call @_symm_host_tma_load(%[[M]], %{{.*}}, %{{.*}}, %[[X]], %[[Y]], %[[Z]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32) -> ()
      nvgpu.tma.async.load %map[%c32, %c0], %bar[%c0] to %dst : !map, !barriers -> memref<64x32xf16, #gpu.address_space<workgroup>>
      // CHECK: llvm.call @_symm_host_tma_store(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, i32) -> ()
      nvgpu.tma.async.store %src to %map[%c0, %c32] : memref<64x32xf16, #gpu.address_space<workgroup>> -> !map
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.wgmma.fence.aligned
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      nvvm.cp.async.bulk.commit.group
      nvvm.cp.async.bulk.wait_group 0 {read}
      // CHECK-NOT: nvgpu.tma
      // CHECK-NOT: nvvm.
      // CHECK: gpu.return
      gpu.return
    }
  }

  // CHECK-LABEL: func.func @host
  // CHECK: %[[P:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !nvgpu.tensormap.descriptor<{{.*}}> to !llvm.ptr
  // CHECK: gpu.launch_func @m::@tma {{.*}} args(%[[P]] : !llvm.ptr,
  func.func @host(%map: !map, %src: memref<64x32xf16, #gpu.address_space<workgroup>>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @m::@tma blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%map : !map, %src : memref<64x32xf16, #gpu.address_space<workgroup>>)
    return
  }
}

// -----

// The warpgroup MMA: descriptors are {tile address, LBO}; the accumulator is
// dealt out to the warpgroup's 128 threads (vector<128x128xf32> is 128
// elements a thread), also through scf.for; each element is computed in f32
// in increasing k from A at row * 128 + 2k and B at (n / 64) * LBO + 128k +
// 2(n % 64); then the warpgroup meets.
!mapA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mapB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!descA = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xbf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
module attributes {gpu.container_module} {
  gpu.module @m {
    // CHECK-LABEL: gpu.func @mma
    // CHECK-SAME: workgroup(%[[SYNC:.*]] : memref<64xi64, #gpu.address_space<workgroup>>)
    gpu.func @mma(%mapA: !mapA, %mapB: !mapB, %a: memref<128x64xbf16, #gpu.address_space<workgroup>>,
                  %b: memref<64x128xbf16, #gpu.address_space<workgroup>>, %d: memref<128x128xf32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      // CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<128xf32>
      %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
      // CHECK: %[[LBO:.*]] = arith.constant 8192 : i64
      // CHECK: %[[DB:.*]] = vector.from_elements %{{.*}}, %[[LBO]] : vector<2xi64>
      %da = nvgpu.warpgroup.generate.descriptor %a, %mapA : memref<128x64xbf16, #gpu.address_space<workgroup>>, !mapA -> !descA
      %db = nvgpu.warpgroup.generate.descriptor %b, %mapB : memref<64x128xbf16, #gpu.address_space<workgroup>>, !mapB -> !descB
      // CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[C:.*]] = %[[ZERO]]) -> (vector<128xf32>)
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%c = %init) -> (!acc) {
        // CHECK: %[[BLBO:.*]] = vector.extract %[[DB]][1]
        // CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c128{{.*}} : index
        // CHECK: scf.for %[[T:.*]] = %c0{{.*}} to %c128{{.*}} iter_args({{.*}}) -> (vector<128xf32>)
        // CHECK: %[[T128:.*]] = arith.muli %[[T]], %c128
        // CHECK: %[[E:.*]] = arith.addi %[[LANE]], %[[T128]]
        // CHECK: arith.divui %[[E]], %c128
        // CHECK: arith.remui %[[E]], %c128
        // CHECK: arith.divui %{{.*}}, %c64_i64
        // CHECK: arith.muli %{{.*}}, %[[BLBO]] : i64
        // CHECK: scf.for {{.*}} = %c0{{.*}} to %c64{{.*}} -> (f32)
        // CHECK: %[[AV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> bf16
        // CHECK: %[[AF:.*]] = arith.extf %[[AV]] : bf16 to f32
        // CHECK: %[[BV:.*]] = llvm.load %{{.*}} : !llvm.ptr -> bf16
        // CHECK: %[[BF:.*]] = arith.extf %[[BV]] : bf16 to f32
        // CHECK: %[[P:.*]] = arith.mulf %[[AF]], %[[BF]] : f32
        // CHECK: arith.addf %{{.*}}, %[[P]] : f32
        // CHECK: vector.insert
        // CHECK: memref.extract_aligned_pointer_as_index %[[SYNC]]
        // CHECK: llvm.call @_symm_host_warpgroup_sync
        %next = nvgpu.warpgroup.mma %da, %db, %c {transposeB} : !descA, !descB, !acc -> !acc
        scf.yield %next : !acc
      }
      // CHECK: scf.for {{.*}} -> (vector<128xf32>)
      // CHECK: %[[V:.*]] = vector.extract %{{.*}} : f32 from vector<128xf32>
      // CHECK: memref.store %[[V]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<128x128xf32>
      nvgpu.warpgroup.mma.store %r, %d : !acc to memref<128x128xf32>
      gpu.return
    }
  }
}

// -----

// Into a bf16 memref each element is rounded once, as on NVVM.
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x16xf32>>
module attributes {gpu.container_module} {
  gpu.module @m {
    // CHECK-LABEL: gpu.func @narrowing_store
    gpu.func @narrowing_store(%d: memref<64x16xbf16>) kernel {
      // CHECK: scf.for {{.*}} -> (vector<8xf32>)
      // CHECK: %[[V:.*]] = vector.extract %{{.*}} : f32 from vector<8xf32>
      // CHECK: %[[H:.*]] = arith.truncf %[[V]] : f32 to bf16
      // CHECK: memref.store %[[H]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x16xbf16>
      %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
      nvgpu.warpgroup.mma.store %init, %d : !acc to memref<64x16xbf16>
      gpu.return
    }
  }
}
