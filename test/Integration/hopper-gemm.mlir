// nvgpu TMA + mbarrier + warpgroup MMA GEMMs on every rank, in the style of
// upstream's sm90 gemm_f32_f16_f16_128x128x128 test: one warpgroup computes
// C (128x128, f32 accumulator) = A·B from 128x64 tiles of A and 64x128 tiles
// of B (two 64x64 boxes: the MN-major layout B takes with 128-byte
// swizzling) that thread 0 loads by TMA into a 2-stage pipeline of
// workgroup memory, each stage refilled as soon as the warpgroup has read
// it. C is stored to global memory from the accumulators twice: as f32,
// and rounded to the operands' type (a narrowing
// nvgpu.warpgroup.mma.store, which Symm lowers on every target). bf16 and
// f16 operands with K = 128, and bf16 with K = 384 (six tiles, so each stage
// is refilled twice). On the CPU target C equals, bit
// for bit, a reference that sums in f32 in increasing k with the product
// and the sum rounded; the inputs (signed, with exponents from -4 to 4)
// make sums round. On GPUs, where the tensor cores add in their own order,
// every element is within 2^-12 of the sum of its products' magnitudes (and
// the rounded output within half an ulp more); on 2 H200s about 15500 of the
// 16384 f32 elements differed from the in-order sum in the last bits.
// RUN: %symm_run -n 2 %s > %t.out
// RUN: FileCheck %s < %t.out
// RUN: %if backend-host %{ FileCheck %s --check-prefix=EXACT < %t.out %}
// CHECK-DAG: [rank 0] bf16 K=128: elements outside the tolerance: 0{{$}}
// CHECK-DAG: [rank 0] f16 K=128: elements outside the tolerance: 0{{$}}
// CHECK-DAG: [rank 0] bf16 K=384: elements outside the tolerance: 0{{$}}
// CHECK-DAG: [rank 1] bf16 K=128: elements outside the tolerance: 0{{$}}
// CHECK-DAG: [rank 1] f16 K=128: elements outside the tolerance: 0{{$}}
// CHECK-DAG: [rank 1] bf16 K=384: elements outside the tolerance: 0{{$}}
// EXACT-DAG: [rank 0] bf16 K=128: elements not bit-identical: 0{{$}}
// EXACT-DAG: [rank 0] f16 K=128: elements not bit-identical: 0{{$}}
// EXACT-DAG: [rank 0] bf16 K=384: elements not bit-identical: 0{{$}}
// EXACT-DAG: [rank 1] bf16 K=128: elements not bit-identical: 0{{$}}
// EXACT-DAG: [rank 1] f16 K=128: elements not bit-identical: 0{{$}}
// EXACT-DAG: [rank 1] bf16 K=384: elements not bit-identical: 0{{$}}
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
!mapA_bf16 = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mapB_bf16 = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!descA_bf16 = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>>
!descB_bf16 = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xbf16, #gpu.address_space<workgroup>>>
!mapA_f16 = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mapB_f16 = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!descA_f16 = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>>
!descB_f16 = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, #gpu.address_space<workgroup>>>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // C = A·B for A MxK and B KxN (M = N = 128), K = 64 * %tiles, through
    // a 2-stage pipeline: stage s holds A's 128x64 tile at 32768 s and B's
    // 64x128 tile, as two 64x64 boxes (the MN-major layout of 128-byte
    // swizzling), at 32768 s + 16384.
    gpu.func @gemm_bf16(%mapA: !mapA_bf16, %mapB: !mapB_bf16, %tiles: index,
                       %d: memref<128x128xf32>, %dh: memref<128x128xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c8192 = arith.constant 8192 : index
      %c16384 = arith.constant 16384 : index
      %c32768 = arith.constant 32768 : index
      %ticks = arith.constant 10000000 : index
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      // The stages start at the first 1024-byte boundary (TMA needs 128-byte
      // aligned boxes, and the 128-byte swizzle repeats every 1024 bytes),
      // which the mbarriers' static workgroup memory moves.
      %c1024 = arith.constant 1024 : index
      %addr = memref.extract_aligned_pointer_as_index %smem : memref<?xi8, #gpu.address_space<workgroup>> -> index
      %mis = arith.remui %addr, %c1024 : index
      %gap = arith.subi %c1024, %mis : index
      %pad = arith.remui %gap, %c1024 : index
      %bar = nvgpu.mbarrier.create -> !barriers
      nvgpu.mbarrier.init %bar[%c0], %c1, predicate = %first : !barriers
      nvgpu.mbarrier.init %bar[%c1], %c1, predicate = %first : !barriers
      gpu.barrier
      nvgpu.tma.prefetch.descriptor %mapA : !mapA_bf16
      nvgpu.tma.prefetch.descriptor %mapB : !mapB_bf16
      scf.for %s = %c0 to %c2 step %c1 {
        %more = arith.cmpi ult, %s, %tiles : index
        %go = arith.andi %first, %more : i1
        scf.if %go {
          %atp0 = arith.muli %s, %c32768 : index
          %atp = arith.addi %atp0, %pad : index
          %b0tp = arith.addi %atp, %c16384 : index
          %b1tp = arith.addi %b0tp, %c8192 : index
          %lap = memref.view %smem[%atp][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xbf16, #gpu.address_space<workgroup>>
          %lb0p = memref.view %smem[%b0tp][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
          %lb1p = memref.view %smem[%b1tp][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
          %kp = arith.muli %s, %c64 : index
          nvgpu.mbarrier.arrive.expect_tx %bar[%s], %c32768 : !barriers
          nvgpu.tma.async.load %mapA[%kp, %c0], %bar[%s] to %lap : !mapA_bf16, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
          nvgpu.tma.async.load %mapB[%c0, %kp], %bar[%s] to %lb0p : !mapB_bf16, !barriers -> memref<64x64xbf16, #gpu.address_space<workgroup>>
          nvgpu.tma.async.load %mapB[%c64, %kp], %bar[%s] to %lb1p : !mapB_bf16, !barriers -> memref<64x64xbf16, #gpu.address_space<workgroup>>
        }
      }
      %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
      %acc = scf.for %i = %c0 to %tiles step %c1 iter_args(%c = %init) -> (!acc) {
        %s = arith.remui %i, %c2 : index
        %round = arith.divui %i, %c2 : index
        %odd = arith.remui %round, %c2 : index
        %parity = arith.index_cast %odd : index to i1
        nvgpu.mbarrier.try_wait.parity %bar[%s], %parity, %ticks : !barriers
        %at0 = arith.muli %s, %c32768 : index
          %at = arith.addi %at0, %pad : index
        %bt = arith.addi %at, %c16384 : index
        %a = memref.view %smem[%at][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xbf16, #gpu.address_space<workgroup>>
        %b = memref.view %smem[%bt][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x128xbf16, #gpu.address_space<workgroup>>
        %da = nvgpu.warpgroup.generate.descriptor %a, %mapA : memref<128x64xbf16, #gpu.address_space<workgroup>>, !mapA_bf16 -> !descA_bf16
        %db = nvgpu.warpgroup.generate.descriptor %b, %mapB : memref<64x128xbf16, #gpu.address_space<workgroup>>, !mapB_bf16 -> !descB_bf16
        %next = nvgpu.warpgroup.mma %da, %db, %c {transposeB, waitGroup = 0 : i64} : !descA_bf16, !descB_bf16, !acc -> !acc
        // The warpgroup has read stage s: thread 0 refills it with tile i + 2
      // (on the CPU target, warpgroup.mma returns once all 128 threads
      // have read the tiles, as on a GPU).
        %j = arith.addi %i, %c2 : index
        %more = arith.cmpi ult, %j, %tiles : index
        %go = arith.andi %first, %more : i1
        scf.if %go {
          %atr0 = arith.muli %s, %c32768 : index
          %atr = arith.addi %atr0, %pad : index
          %b0tr = arith.addi %atr, %c16384 : index
          %b1tr = arith.addi %b0tr, %c8192 : index
          %lar = memref.view %smem[%atr][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xbf16, #gpu.address_space<workgroup>>
          %lb0r = memref.view %smem[%b0tr][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
          %lb1r = memref.view %smem[%b1tr][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xbf16, #gpu.address_space<workgroup>>
          %kr = arith.muli %j, %c64 : index
          nvgpu.mbarrier.arrive.expect_tx %bar[%s], %c32768 : !barriers
          nvgpu.tma.async.load %mapA[%kr, %c0], %bar[%s] to %lar : !mapA_bf16, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
          nvgpu.tma.async.load %mapB[%c0, %kr], %bar[%s] to %lb0r : !mapB_bf16, !barriers -> memref<64x64xbf16, #gpu.address_space<workgroup>>
          nvgpu.tma.async.load %mapB[%c64, %kr], %bar[%s] to %lb1r : !mapB_bf16, !barriers -> memref<64x64xbf16, #gpu.address_space<workgroup>>
        }
        scf.yield %next : !acc
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      nvgpu.warpgroup.mma.store %acc, %d : !acc to memref<128x128xf32>
      nvgpu.warpgroup.mma.store %acc, %dh : !acc to memref<128x128xbf16>
      gpu.return
    }


    // C = A·B for A MxK and B KxN (M = N = 128), K = 64 * %tiles, through
    // a 2-stage pipeline: stage s holds A's 128x64 tile at 32768 s and B's
    // 64x128 tile, as two 64x64 boxes (the MN-major layout of 128-byte
    // swizzling), at 32768 s + 16384.
    gpu.func @gemm_f16(%mapA: !mapA_f16, %mapB: !mapB_f16, %tiles: index,
                       %d: memref<128x128xf32>, %dh: memref<128x128xf16>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c8192 = arith.constant 8192 : index
      %c16384 = arith.constant 16384 : index
      %c32768 = arith.constant 32768 : index
      %ticks = arith.constant 10000000 : index
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      // The stages start at the first 1024-byte boundary (TMA needs 128-byte
      // aligned boxes, and the 128-byte swizzle repeats every 1024 bytes),
      // which the mbarriers' static workgroup memory moves.
      %c1024 = arith.constant 1024 : index
      %addr = memref.extract_aligned_pointer_as_index %smem : memref<?xi8, #gpu.address_space<workgroup>> -> index
      %mis = arith.remui %addr, %c1024 : index
      %gap = arith.subi %c1024, %mis : index
      %pad = arith.remui %gap, %c1024 : index
      %bar = nvgpu.mbarrier.create -> !barriers
      nvgpu.mbarrier.init %bar[%c0], %c1, predicate = %first : !barriers
      nvgpu.mbarrier.init %bar[%c1], %c1, predicate = %first : !barriers
      gpu.barrier
      nvgpu.tma.prefetch.descriptor %mapA : !mapA_f16
      nvgpu.tma.prefetch.descriptor %mapB : !mapB_f16
      scf.for %s = %c0 to %c2 step %c1 {
        %more = arith.cmpi ult, %s, %tiles : index
        %go = arith.andi %first, %more : i1
        scf.if %go {
          %atp0 = arith.muli %s, %c32768 : index
          %atp = arith.addi %atp0, %pad : index
          %b0tp = arith.addi %atp, %c16384 : index
          %b1tp = arith.addi %b0tp, %c8192 : index
          %lap = memref.view %smem[%atp][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
          %lb0p = memref.view %smem[%b0tp][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
          %lb1p = memref.view %smem[%b1tp][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
          %kp = arith.muli %s, %c64 : index
          nvgpu.mbarrier.arrive.expect_tx %bar[%s], %c32768 : !barriers
          nvgpu.tma.async.load %mapA[%kp, %c0], %bar[%s] to %lap : !mapA_f16, !barriers -> memref<128x64xf16, #gpu.address_space<workgroup>>
          nvgpu.tma.async.load %mapB[%c0, %kp], %bar[%s] to %lb0p : !mapB_f16, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
          nvgpu.tma.async.load %mapB[%c64, %kp], %bar[%s] to %lb1p : !mapB_f16, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
        }
      }
      %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
      %acc = scf.for %i = %c0 to %tiles step %c1 iter_args(%c = %init) -> (!acc) {
        %s = arith.remui %i, %c2 : index
        %round = arith.divui %i, %c2 : index
        %odd = arith.remui %round, %c2 : index
        %parity = arith.index_cast %odd : index to i1
        nvgpu.mbarrier.try_wait.parity %bar[%s], %parity, %ticks : !barriers
        %at0 = arith.muli %s, %c32768 : index
          %at = arith.addi %at0, %pad : index
        %bt = arith.addi %at, %c16384 : index
        %a = memref.view %smem[%at][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
        %b = memref.view %smem[%bt][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x128xf16, #gpu.address_space<workgroup>>
        %da = nvgpu.warpgroup.generate.descriptor %a, %mapA : memref<128x64xf16, #gpu.address_space<workgroup>>, !mapA_f16 -> !descA_f16
        %db = nvgpu.warpgroup.generate.descriptor %b, %mapB : memref<64x128xf16, #gpu.address_space<workgroup>>, !mapB_f16 -> !descB_f16
        %next = nvgpu.warpgroup.mma %da, %db, %c {transposeB, waitGroup = 0 : i64} : !descA_f16, !descB_f16, !acc -> !acc
        // The warpgroup has read stage s: thread 0 refills it with tile i + 2
      // (on the CPU target, warpgroup.mma returns once all 128 threads
      // have read the tiles, as on a GPU).
        %j = arith.addi %i, %c2 : index
        %more = arith.cmpi ult, %j, %tiles : index
        %go = arith.andi %first, %more : i1
        scf.if %go {
          %atr0 = arith.muli %s, %c32768 : index
          %atr = arith.addi %atr0, %pad : index
          %b0tr = arith.addi %atr, %c16384 : index
          %b1tr = arith.addi %b0tr, %c8192 : index
          %lar = memref.view %smem[%atr][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
          %lb0r = memref.view %smem[%b0tr][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
          %lb1r = memref.view %smem[%b1tr][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
          %kr = arith.muli %j, %c64 : index
          nvgpu.mbarrier.arrive.expect_tx %bar[%s], %c32768 : !barriers
          nvgpu.tma.async.load %mapA[%kr, %c0], %bar[%s] to %lar : !mapA_f16, !barriers -> memref<128x64xf16, #gpu.address_space<workgroup>>
          nvgpu.tma.async.load %mapB[%c0, %kr], %bar[%s] to %lb0r : !mapB_f16, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
          nvgpu.tma.async.load %mapB[%c64, %kr], %bar[%s] to %lb1r : !mapB_f16, !barriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
        }
        scf.yield %next : !acc
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      nvgpu.warpgroup.mma.store %acc, %d : !acc to memref<128x128xf32>
      nvgpu.warpgroup.mma.store %acc, %dh : !acc to memref<128x128xf16>
      gpu.return
    }

  }

  // Runs gemm_bf16 for K = 64 * %tiles on inputs from @value and checks C
  // (f32) and its bf16 rounding against @reference; returns the number of
  // elements that differ in any bit, and of those outside the tolerance.
  func.func @run_bf16(%tiles: index, %rank: index) -> (i32, i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %p = arith.constant 37 : index
    %q = arith.constant 11 : index
    %smem = arith.constant 66560 : i32
    %kk = arith.muli %tiles, %c64 : index
    %a = gpu.alloc host_shared (%kk) : memref<128x?xbf16>
    %b = gpu.alloc host_shared (%kk) : memref<?x128xbf16>
    %d = gpu.alloc host_shared () : memref<128x128xf32>
    %dh = gpu.alloc host_shared () : memref<128x128xbf16>
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %k = %c0 to %kk step %c1 {
        %v = func.call @value(%i, %k, %p, %rank) : (index, index, index, index) -> f32
        %vh = arith.truncf %v : f32 to bf16
        memref.store %vh, %a[%i, %k] : memref<128x?xbf16>
        %w = func.call @value(%k, %i, %q, %rank) : (index, index, index, index) -> f32
        %wh = arith.truncf %w : f32 to bf16
        memref.store %wh, %b[%k, %i] : memref<?x128xbf16>
      }
    }
    %ua = memref.cast %a : memref<128x?xbf16> to memref<*xbf16>
    %ub = memref.cast %b : memref<?x128xbf16> to memref<*xbf16>
    %mapA = nvgpu.tma.create.descriptor %ua box[%c128, %c64] : memref<*xbf16> -> !mapA_bf16
    %mapB = nvgpu.tma.create.descriptor %ub box[%c64, %c64] : memref<*xbf16> -> !mapB_bf16
    gpu.launch_func @kernels::@gemm_bf16 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%mapA : !mapA_bf16, %mapB : !mapB_bf16, %tiles : index,
             %d : memref<128x128xf32>, %dh : memref<128x128xbf16>)
    gpu.wait
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %f0 = arith.constant 0.0 : f32
    %wrong, %outside = scf.for %i = %c0 to %c128 step %c1 iter_args(%e0 = %zero, %f0i = %zero) -> (i32, i32) {
      %ei, %fi = scf.for %j = %c0 to %c128 step %c1 iter_args(%e1 = %e0, %f1 = %f0i) -> (i32, i32) {
        // In f32, k in increasing order, product then sum rounded.
        %want, %mag = scf.for %k = %c0 to %kk step %c1 iter_args(%s = %f0, %g = %f0) -> (f32, f32) {
          %av = memref.load %a[%i, %k] : memref<128x?xbf16>
          %bv = memref.load %b[%k, %j] : memref<?x128xbf16>
          %af = arith.extf %av : bf16 to f32
          %bf = arith.extf %bv : bf16 to f32
          %pr = arith.mulf %af, %bf : f32
          %s1 = arith.addf %s, %pr : f32
          %pa = math.absf %pr : f32
          %g1 = arith.addf %g, %pa : f32
          scf.yield %s1, %g1 : f32, f32
        }
        %got = memref.load %d[%i, %j] : memref<128x128xf32>
        %wb = arith.bitcast %want : f32 to i32
        %gb = arith.bitcast %got : f32 to i32
        %bad = arith.cmpi ne, %wb, %gb : i32
        %wanth = arith.truncf %want : f32 to bf16
        %goth = memref.load %dh[%i, %j] : memref<128x128xbf16>
        %whb = arith.bitcast %wanth : bf16 to i16
        %ghb = arith.bitcast %goth : bf16 to i16
        %badh = arith.cmpi ne, %whb, %ghb : i16
        %either = arith.ori %bad, %badh : i1
        %inc = arith.select %either, %one, %zero : i32
        %e2 = arith.addi %e1, %inc : i32
        // GPUs add in the tensor cores' order: within 2^-12 of the sum of
        // the products' magnitudes (f32), and within half an ulp of the
        // output type plus that (the rounded output).
        %tol = arith.constant 0.000244140625 : f32
        %ulp = arith.constant 0.00390625 : f32
        %slack = arith.mulf %mag, %tol : f32
        %diff = arith.subf %got, %want : f32
        %adiff = math.absf %diff : f32
        %far = arith.cmpf ogt, %adiff, %slack : f32
        %ghf = arith.extf %goth : bf16 to f32
        %dh2 = arith.subf %ghf, %want : f32
        %adh = math.absf %dh2 : f32
        %aw = math.absf %want : f32
        %rel = arith.mulf %aw, %ulp : f32
        %limh = arith.addf %rel, %slack : f32
        %farh = arith.cmpf ogt, %adh, %limh : f32
        %out = arith.ori %far, %farh : i1
        %incf = arith.select %out, %one, %zero : i32
        %f2 = arith.addi %f1, %incf : i32
        scf.yield %e2, %f2 : i32, i32
      }
      scf.yield %ei, %fi : i32, i32
    }
    return %wrong, %outside : i32, i32
  }

  // Runs gemm_f16 for K = 64 * %tiles on inputs from @value and checks C
  // (f32) and its f16 rounding against @reference; returns the number of
  // elements that differ in any bit, and of those outside the tolerance.
  func.func @run_f16(%tiles: index, %rank: index) -> (i32, i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %p = arith.constant 37 : index
    %q = arith.constant 11 : index
    %smem = arith.constant 66560 : i32
    %kk = arith.muli %tiles, %c64 : index
    %a = gpu.alloc host_shared (%kk) : memref<128x?xf16>
    %b = gpu.alloc host_shared (%kk) : memref<?x128xf16>
    %d = gpu.alloc host_shared () : memref<128x128xf32>
    %dh = gpu.alloc host_shared () : memref<128x128xf16>
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %k = %c0 to %kk step %c1 {
        %v = func.call @value(%i, %k, %p, %rank) : (index, index, index, index) -> f32
        %vh = arith.truncf %v : f32 to f16
        memref.store %vh, %a[%i, %k] : memref<128x?xf16>
        %w = func.call @value(%k, %i, %q, %rank) : (index, index, index, index) -> f32
        %wh = arith.truncf %w : f32 to f16
        memref.store %wh, %b[%k, %i] : memref<?x128xf16>
      }
    }
    %ua = memref.cast %a : memref<128x?xf16> to memref<*xf16>
    %ub = memref.cast %b : memref<?x128xf16> to memref<*xf16>
    %mapA = nvgpu.tma.create.descriptor %ua box[%c128, %c64] : memref<*xf16> -> !mapA_f16
    %mapB = nvgpu.tma.create.descriptor %ub box[%c64, %c64] : memref<*xf16> -> !mapB_f16
    gpu.launch_func @kernels::@gemm_f16 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%mapA : !mapA_f16, %mapB : !mapB_f16, %tiles : index,
             %d : memref<128x128xf32>, %dh : memref<128x128xf16>)
    gpu.wait
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %f0 = arith.constant 0.0 : f32
    %wrong, %outside = scf.for %i = %c0 to %c128 step %c1 iter_args(%e0 = %zero, %f0i = %zero) -> (i32, i32) {
      %ei, %fi = scf.for %j = %c0 to %c128 step %c1 iter_args(%e1 = %e0, %f1 = %f0i) -> (i32, i32) {
        // In f32, k in increasing order, product then sum rounded.
        %want, %mag = scf.for %k = %c0 to %kk step %c1 iter_args(%s = %f0, %g = %f0) -> (f32, f32) {
          %av = memref.load %a[%i, %k] : memref<128x?xf16>
          %bv = memref.load %b[%k, %j] : memref<?x128xf16>
          %af = arith.extf %av : f16 to f32
          %bf = arith.extf %bv : f16 to f32
          %pr = arith.mulf %af, %bf : f32
          %s1 = arith.addf %s, %pr : f32
          %pa = math.absf %pr : f32
          %g1 = arith.addf %g, %pa : f32
          scf.yield %s1, %g1 : f32, f32
        }
        %got = memref.load %d[%i, %j] : memref<128x128xf32>
        %wb = arith.bitcast %want : f32 to i32
        %gb = arith.bitcast %got : f32 to i32
        %bad = arith.cmpi ne, %wb, %gb : i32
        %wanth = arith.truncf %want : f32 to f16
        %goth = memref.load %dh[%i, %j] : memref<128x128xf16>
        %whb = arith.bitcast %wanth : f16 to i16
        %ghb = arith.bitcast %goth : f16 to i16
        %badh = arith.cmpi ne, %whb, %ghb : i16
        %either = arith.ori %bad, %badh : i1
        %inc = arith.select %either, %one, %zero : i32
        %e2 = arith.addi %e1, %inc : i32
        // GPUs add in the tensor cores' order: within 2^-12 of the sum of
        // the products' magnitudes (f32), and within half an ulp of the
        // output type plus that (the rounded output).
        %tol = arith.constant 0.000244140625 : f32
        %ulp = arith.constant 0.0009765625 : f32
        %slack = arith.mulf %mag, %tol : f32
        %diff = arith.subf %got, %want : f32
        %adiff = math.absf %diff : f32
        %far = arith.cmpf ogt, %adiff, %slack : f32
        %ghf = arith.extf %goth : f16 to f32
        %dh2 = arith.subf %ghf, %want : f32
        %adh = math.absf %dh2 : f32
        %aw = math.absf %want : f32
        %rel = arith.mulf %aw, %ulp : f32
        %limh = arith.addf %rel, %slack : f32
        %farh = arith.cmpf ogt, %adh, %limh : f32
        %out = arith.ori %far, %farh : i1
        %incf = arith.select %out, %one, %zero : i32
        %f2 = arith.addi %f1, %incf : i32
        scf.yield %e2, %f2 : i32, i32
      }
      scf.yield %ei, %fi : i32, i32
    }
    return %wrong, %outside : i32, i32
  }

  // sign * (1 + ((p i + 3 k + rank) mod 128) / 128) * 2^((i + k) mod 9 - 4):
  // exact in bf16 and f16.
  func.func @value(%i: index, %k: index, %p: index, %rank: index) -> f32 {
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c9 = arith.constant 9 : index
    %c128 = arith.constant 128 : index
    %pi = arith.muli %i, %p : index
    %k3 = arith.muli %k, %c3 : index
    %s0 = arith.addi %pi, %k3 : index
    %s = arith.addi %s0, %rank : index
    %n = arith.remui %s, %c128 : index
    %n32 = arith.index_cast %n : index to i32
    %nf = arith.sitofp %n32 : i32 to f32
    %inv = arith.constant 0.0078125 : f32
    %one = arith.constant 1.0 : f32
    %frac = arith.mulf %nf, %inv : f32
    %m = arith.addf %one, %frac : f32
    %ik = arith.addi %i, %k : index
    %e = arith.remui %ik, %c9 : index
    %e32 = arith.index_cast %e : index to i32
    %four = arith.constant 4 : i32
    %e4 = arith.subi %e32, %four : i32
    %e4f = arith.sitofp %e4 : i32 to f32
    %scale = math.exp2 %e4f : f32
    %v = arith.mulf %m, %scale : f32
    %odd = arith.remui %s, %c2 : index
    %c0 = arith.constant 0 : index
    %neg = arith.cmpi ne, %odd, %c0 : index
    %nv = arith.negf %v : f32
    %r = arith.select %neg, %nv, %v : f32
    return %r : f32
  }

  func.func @report(%what: index, %wrong: i32, %outside: i32) {
    scf.index_switch %what
    case 0 { vector.print str "bf16 K=128: " scf.yield }
    case 1 { vector.print str "f16 K=128: " scf.yield }
    default { vector.print str "bf16 K=384: " }
    vector.print str "elements not bit-identical: "
    vector.print %wrong : i32
    scf.index_switch %what
    case 0 { vector.print str "bf16 K=128: " scf.yield }
    case 1 { vector.print str "f16 K=128: " scf.yield }
    default { vector.print str "bf16 K=384: " }
    vector.print str "elements outside the tolerance: "
    vector.print %outside : i32
    return
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c6 = arith.constant 6 : index
    %rank32 = symm.rank : i32
    %rank = arith.index_cast %rank32 : i32 to index
    %w0, %o0 = func.call @run_bf16(%c2, %rank) : (index, index) -> (i32, i32)
    func.call @report(%c0, %w0, %o0) : (index, i32, i32) -> ()
    %w1, %o1 = func.call @run_f16(%c2, %rank) : (index, index) -> (i32, i32)
    func.call @report(%c1, %w1, %o1) : (index, i32, i32) -> ()
    %w2, %o2 = func.call @run_bf16(%c6, %rank) : (index, index) -> (i32, i32)
    func.call @report(%c2, %w2, %o2) : (index, i32, i32) -> ()
    // The exit status counts the elements outside the tolerance; CPU ranks
    // are also checked bit for bit (EXACT).
    %s0 = arith.addi %o0, %o1 : i32
    %s1 = arith.addi %s0, %o2 : i32
    return %s1 : i32
  }
}
