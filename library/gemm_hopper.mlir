//===- gemm_hopper.mlir - The Hopper GEMM tile: TMA, mbarriers, wgmma ----===//
//
// Symm's device library (docs/Library.md): the pieces of a persistent bf16
// GEMM on Hopper (sm_90a; the CPU target runs them too), for kernels that
// compute C = A·B tile by tile and do their own thing with each tile. A
// kernel calls them in this order (examples/gemm/gemm_hopper.mlir is the
// plain GEMM, examples/*_hopper.mlir the fused workloads):
//
//   %bar, %ring = @symm_gemm_hopper_setup(%tmaA, %tmaB)      once
//   for each unit of this workgroup, %done = K steps run before:
//     %acc = @symm_gemm_hopper_mainloop_range(%tmaA, %tmaB, %bar, %ring,
//                %am0, %n0, %k0, %k1, %done, %rows)
//       (or @symm_gemm_hopper_mainloop: the whole of K, all 128 rows)
//     then either the any-shape epilogue, by every thread:
//       @symm_gemm_hopper_epilogue(%acc, %bar, %flags, %c, %m, %n, %m0,
//                                  %n0, %work, %counts, %tile, %split, %S)
//     or the staged one:
//       %epi = @symm_gemm_hopper_stage(%acc, %ring)
//       consumers: @symm_gemm_hopper_store(%epi, %c, %m0, %n0, %ldc), or
//                  their own loop over @symm_gemm_hopper_staged(%epi, %i)
//       @symm_gemm_hopper_release()
//
// Requirements: workgroups of 384 threads (known_block_size), 197632 bytes
// of dynamic shared memory (a 4-stage ring of 48 KiB, plus 1 KiB to align
// it), every thread of the workgroup calling each function. Tiles are
// 128 x 256 of C, K in steps of 64. The TMA descriptors: A row-major (rows x
// K) with a 128 x 64 box, B row-major (K x N) with a 64 x 64 box, both bf16
// with the 128-byte swizzle and zeros out of bounds, so that a tile or K
// step reaching past A or B reads zeros (the rows of A and B are TMA
// strides: K and N multiples of 8). A workgroup is three warpgroups:
// warpgroups 0 and 1 are consumers (upstream's nvgpu.warpgroup.mma.store
// puts the rows of warpgroup w at 64 w of its destination, so that these
// two store their rows where they belong), warpgroup 2's first thread
// streams K through the ring with TMA (a 128 x 64 box of A and four 64 x 64
// boxes of B per stage), each stage guarded by a "full" mbarrier (the TMA's
// transaction bytes) and an "empty" one (one arrival per consumer warp);
// consumer w multiplies rows 64 w .. of the A box by the whole B stage with
// wgmma (64 x 256 x 64, one group in flight) and its warps release a stage
// once the MMA after it has been issued. The 128-byte swizzle makes the TMA
// boxes the layouts wgmma reads: a stage's A box is [128][64] (K-major) and
// its B is [4][64][64] (MN-major), which is why B is loaded in four boxes.
// Stage and parity count K steps over all of a workgroup's units (%done).
//
// The any-shape epilogue never uses the ring, so the producer loads the
// next unit meanwhile. A consumer whose 64 rows lie inside C, with the whole
// of K, stores its accumulators straight from the registers as bf16;
// otherwise (an edge tile, or one of S > 1 K splits of the tile) it stores
// them as f32 into a 128 x 256 slot of the workspace and the rows and
// columns inside C leave as bf16 from there: at once for an edge tile; for a
// split, by the consumer that arrives last at its half tile's counter, which
// sums the S slots of the tile in split order and sets the counter back to 0
// for the next launch. A consumer meets its own warpgroup alone, on an
// mbarrier of its own.
//
// The staged epilogue stages the accumulators through the ring (idle by
// then) as f32 rows padded to 264 elements (a warp's stores take two
// wavefronts). Three workgroup barriers per tile separate the MMAs' reads of
// the ring, the accumulators' stores, their reads and the next tile's TMA
// writes; the consumers fence the proxies (fence.proxy.async.shared::cta)
// before the last one, since the staging is generic-proxy traffic and TMA
// async-proxy, and barriers alone do not order the proxies.
//
//===----------------------------------------------------------------------===//

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 10>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!descA = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x256xbf16, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!epi = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>
!epiStore = memref<64x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>
!tileC = memref<64x256xbf16, strided<[?, 1], offset: ?>>
!slot = memref<64x256xf32, strided<[256, 1], offset: ?>>
!flags = memref<2xi32, #gpu.address_space<workgroup>>

gpu.module @symm_library_gemm_hopper {
  // Initialises the ring's mbarriers (s < 4: stage s is full; 4 + s: it is
  // empty, an arrival per consumer warp; 8 + w: consumer warpgroup w's
  // threads have all arrived, its epilogue's meeting point) and prefetches
  // the descriptors; returns the barriers and the ring's offset in dynamic
  // shared memory, its first 1 KiB boundary (the 128-byte swizzle repeats
  // every 1 KiB, and wgmma's descriptors take the pattern to start there).
  // Ends with a workgroup barrier.
  func.func @symm_gemm_hopper_setup(%tmaA: !tmA, %tmaB: !tmB) -> (!barriers, index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c9 = arith.constant 9 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %stages = arith.constant 4 : index
    %dyn = gpu.dynamic_shared_memory : !smem
    %dynAddr = memref.extract_aligned_pointer_as_index %dyn : !smem -> index
    %mis = arith.remui %dynAddr, %c1024 : index
    %slack = arith.subi %c1024, %mis : index
    %ring = arith.remui %slack, %c1024 : index
    %bar = nvgpu.mbarrier.create -> !barriers
    %tid = gpu.thread_id x
    %isFirst = arith.cmpi eq, %tid, %c0 : index
    scf.if %isFirst {
      scf.for %s = %c0 to %stages step %c1 {
        nvgpu.mbarrier.init %bar[%s], %c1 : !barriers
        %e = arith.addi %s, %stages : index
        nvgpu.mbarrier.init %bar[%e], %c8 : !barriers
      }
      nvgpu.mbarrier.init %bar[%c8], %c128 : !barriers
      nvgpu.mbarrier.init %bar[%c9], %c128 : !barriers
      nvgpu.tma.prefetch.descriptor %tmaA : !tmA
      nvgpu.tma.prefetch.descriptor %tmaB : !tmB
    }
    gpu.barrier
    return %bar, %ring : !barriers, index
  }

  // Whether the calling thread is the one that issues the ring's TMA loads
  // (the producer warpgroup's first): a kernel that must order something
  // before a tile's loads (a peer's flag, say) does it on this thread.
  func.func @symm_gemm_hopper_loader() -> i1 {
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %loader = arith.cmpi eq, %tid, %c256 : index
    return %loader : i1
  }

  // Tile t of a tilesM x tilesN grid in groups of 8 tile rows (tile rows
  // first within a group), so that the workgroups running at once share A
  // and B panels in L2: returns its tile row and column.
  func.func @symm_gemm_tile_order(%t: index, %tilesM: index, %tilesN: index) -> (index, index) {
    %c8 = arith.constant 8 : index
    %groupTiles = arith.muli %tilesN, %c8 : index
    %group = arith.divui %t, %groupTiles : index
    %firstM = arith.muli %group, %c8 : index
    %rowsLeft = arith.subi %tilesM, %firstM : index
    %groupRows = arith.minui %rowsLeft, %c8 : index
    %inGroup = arith.remui %t, %groupTiles : index
    %tmOff = arith.remui %inGroup, %groupRows : index
    %tm = arith.addi %firstM, %tmOff : index
    %tn = arith.divui %inGroup, %groupRows : index
    return %tm, %tn : index, index
  }

  // Work unit u of a GEMM whose tiles' K steps are split %splits ways (a
  // tile's splits numbered next to each other): returns its tile, its split
  // and its K steps %k0 .. %k1 (S equal ranges of %kSteps).
  func.func @symm_gemm_split_unit(%u: index, %splits: index, %kSteps: index) -> (index, index, index, index) {
    %c1 = arith.constant 1 : index
    %tile = arith.divui %u, %splits : index
    %split = arith.remui %u, %splits : index
    %k0a = arith.muli %split, %kSteps : index
    %k0 = arith.divui %k0a, %splits : index
    %split1 = arith.addi %split, %c1 : index
    %k1a = arith.muli %split1, %kSteps : index
    %k1 = arith.divui %k1a, %splits : index
    return %tile, %split, %k0, %k1 : index, index, index, index
  }

  // One unit's main loop: K steps %k0 .. %k1 (of 64), A's rows %am0 ..
  // %am0 + 127 (A's own row coordinate: a gathered A may be another
  // descriptor's) and C's columns %n0 .. %n0 + 255. The producer's first
  // thread issues the TMA loads and returns once the last is issued (a
  // kernel may wait for something there while the consumers compute); the
  // consumers return their 64 x 256 accumulators once every MMA completed;
  // the producer's are zero. A consumer whose rows all lie at or past %rows
  // (of the tile: M - m0 at the bottom of C) multiplies nothing and returns
  // zeros, keeping the ring's protocol.
  func.func @symm_gemm_hopper_mainloop_range(%tmaA: !tmA, %tmaB: !tmB, %bar: !barriers, %ring: index,
                                             %am0: index, %n0: index, %k0: index, %k1: index,
                                             %done: index, %rows: index) -> !acc {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c8192 = arith.constant 8192 : index
    %c16384 = arith.constant 16384 : index
    %c32768 = arith.constant 32768 : index
    %stages = arith.constant 4 : index
    // The bytes of one stage's five TMA loads, and of the stages of A.
    %stageBytes = arith.constant 49152 : index
    %aRingBytes = arith.constant 65536 : index
    %ticks = arith.constant 10000000 : index
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %wtid = arith.remui %tid, %c128 : index
    %lane = arith.remui %tid, %c32 : index
    %isProducer = arith.cmpi eq, %wg, %c2 : index
    %isLeader = arith.cmpi eq, %wtid, %c0 : index
    %isWarpLeader = arith.cmpi eq, %lane, %c0 : index
    %dyn = gpu.dynamic_shared_memory : !smem
    %bBase = arith.addi %ring, %aRingBytes : index
    %accOut = scf.if %isProducer -> (!acc) {
      scf.if %isLeader {
        scf.for %ks = %k0 to %k1 step %c1 {
          %it0 = arith.addi %done, %ks : index
          %it = arith.subi %it0, %k0 : index
          %s = arith.remui %it, %stages : index
          %round = arith.divui %it, %stages : index
          // Refilling a stage waits until every consumer warp released its
          // previous contents (round - 1).
          %refill = arith.cmpi uge, %it, %stages : index
          scf.if %refill {
            %prev = arith.subi %round, %c1 : index
            %pbit = arith.andi %prev, %c1 : index
            %parity = arith.index_cast %pbit : index to i1
            %e = arith.addi %s, %stages : index
            nvgpu.mbarrier.try_wait.parity %bar[%e], %parity, %ticks : !barriers
          }
          nvgpu.mbarrier.arrive.expect_tx %bar[%s], %stageBytes : !barriers
          %kc = arith.muli %ks, %c64 : index
          %aOff0 = arith.muli %s, %c16384 : index
          %aOff = arith.addi %ring, %aOff0 : index
          %aDst = memref.view %dyn[%aOff][] : !smem to memref<128x64xbf16, #gpu.address_space<workgroup>>
          nvgpu.tma.async.load %tmaA[%kc, %am0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
          %bOff0 = arith.muli %s, %c32768 : index
          %bOff = arith.addi %bBase, %bOff0 : index
          scf.for %j = %c0 to %c4 step %c1 {
            %jOff0 = arith.muli %j, %c8192 : index
            %jOff = arith.addi %bOff, %jOff0 : index
            %bDst = memref.view %dyn[%jOff][] : !smem to memref<64x64xbf16, #gpu.address_space<workgroup>>
            %jn0 = arith.muli %j, %c64 : index
            %jn = arith.addi %n0, %jn0 : index
            nvgpu.tma.async.load %tmaB[%jn, %kc], %bar[%s] to %bDst : !tmB, !barriers -> memref<64x64xbf16, #gpu.address_space<workgroup>>
          }
        }
      }
      %none = nvgpu.warpgroup.mma.init.accumulator -> !acc
      scf.yield %none : !acc
    } else {
      %aHalf = arith.muli %wg, %c8192 : index
      %rowHalf = arith.muli %wg, %c64 : index
      %active = arith.cmpi ult, %rowHalf, %rows : index
      %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
      %accK = scf.if %active -> (!acc) {
        %accLoop = scf.for %ks = %k0 to %k1 step %c1 iter_args(%acc = %init) -> (!acc) {
          %it0 = arith.addi %done, %ks : index
          %it = arith.subi %it0, %k0 : index
          %s = arith.remui %it, %stages : index
          %round = arith.divui %it, %stages : index
          %rbit = arith.andi %round, %c1 : index
          %parity = arith.index_cast %rbit : index to i1
          nvgpu.mbarrier.try_wait.parity %bar[%s], %parity, %ticks : !barriers
          %aOff0 = arith.muli %s, %c16384 : index
          %aOff1 = arith.addi %ring, %aOff0 : index
          %aOff = arith.addi %aOff1, %aHalf : index
          %aTile = memref.view %dyn[%aOff][] : !smem to memref<64x64xbf16, #gpu.address_space<workgroup>>
          %bOff0 = arith.muli %s, %c32768 : index
          %bOff = arith.addi %bBase, %bOff0 : index
          %bTile = memref.view %dyn[%bOff][] : !smem to memref<64x256xbf16, #gpu.address_space<workgroup>>
          %dA = nvgpu.warpgroup.generate.descriptor %aTile, %tmaA : memref<64x64xbf16, #gpu.address_space<workgroup>>, !tmA -> !descA
          %dB = nvgpu.warpgroup.generate.descriptor %bTile, %tmaB : memref<64x256xbf16, #gpu.address_space<workgroup>>, !tmB -> !descB
          %next = nvgpu.warpgroup.mma %dA, %dB, %acc {transposeB} : !descA, !descB, !acc -> !acc
          // One group stays in flight: this warp's MMA of the step before
          // has completed, and the warp releases that stage (a warp's share
          // of a warpgroup MMA completes on its own).
          %notFirst = arith.cmpi ugt, %it, %c0 : index
          %release = arith.andi %notFirst, %isWarpLeader : i1
          scf.if %release {
            %pit = arith.subi %it, %c1 : index
            %ps = arith.remui %pit, %stages : index
            %e = arith.addi %ps, %stages : index
            %token = nvgpu.mbarrier.arrive %bar[%e] : !barriers -> !nvgpu.mbarrier.token
          }
          scf.yield %next : !acc
        }
        nvvm.wgmma.wait.group.sync.aligned 0
        scf.yield %accLoop : !acc
      } else {
        scf.for %ks = %k0 to %k1 step %c1 {
          %it0 = arith.addi %done, %ks : index
          %it = arith.subi %it0, %k0 : index
          %s = arith.remui %it, %stages : index
          %round = arith.divui %it, %stages : index
          %rbit = arith.andi %round, %c1 : index
          %parity = arith.index_cast %rbit : index to i1
          nvgpu.mbarrier.try_wait.parity %bar[%s], %parity, %ticks : !barriers
          %notFirst = arith.cmpi ugt, %it, %c0 : index
          %release = arith.andi %notFirst, %isWarpLeader : i1
          scf.if %release {
            %pit = arith.subi %it, %c1 : index
            %ps = arith.remui %pit, %stages : index
            %e = arith.addi %ps, %stages : index
            %token = nvgpu.mbarrier.arrive %bar[%e] : !barriers -> !nvgpu.mbarrier.token
          }
        }
        scf.yield %init : !acc
      }
      scf.yield %accK : !acc
    }
    return %accOut : !acc
  }

  // A tile's whole main loop: K steps 0 .. %kSteps, every row.
  func.func @symm_gemm_hopper_mainloop(%tmaA: !tmA, %tmaB: !tmB, %bar: !barriers, %ring: index,
                                       %am0: index, %n0: index, %kSteps: index, %done: index) -> !acc {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %acc = func.call @symm_gemm_hopper_mainloop_range(%tmaA, %tmaB, %bar, %ring, %am0, %n0, %c0, %kSteps, %done, %c128)
        : (!tmA, !tmB, !barriers, index, index, index, index, index, index, index) -> !acc
    return %acc : !acc
  }

  //===--------------------------------------------------------------------===//
  // The any-shape epilogue
  //===--------------------------------------------------------------------===//

  // Consumer warpgroup w stores its 64 rows of the tile at (%m0, %n0) of the
  // row-major bf16 C (row stride %ldc) straight from the registers, each
  // element rounded once; they must lie inside C.
  func.func @symm_gemm_hopper_store_bf16(%acc: !acc, %c: memref<?xbf16>, %m0: index, %n0: index, %ldc: index) {
    %rowAt = arith.muli %m0, %ldc : index
    %at = arith.addi %rowAt, %n0 : index
    %tile = memref.reinterpret_cast %c to offset: [%at], sizes: [64, 256], strides: [%ldc, 1] : memref<?xbf16> to !tileC
    nvgpu.warpgroup.mma.store %acc, %tile : !acc to !tileC
    return
  }

  // The workspace's slots hold 128 x 256 f32 tiles (32768 elements)
  // row-major. A warpgroup's epilogue takes the 64 rows of its half tile in
  // chunks of 4 columns: thread t owns chunks t, t + 128, ..., i.e. rows
  // 2i + t/64 and columns 4 (t mod 64) .. + 3, so that a warp's loads and
  // stores of one chunk each are contiguous, and loads 16 chunks of every
  // slot before it adds them, so that 16 loads are in flight.

  // Chunks i .. i+7 of the thread whose chunk i starts at element `at` of
  // `work`: 8 independent 16-byte loads.
  func.func @symm_gemm_load_chunks(%work: memref<?xf32>, %at: index) -> vector<8x4xf32> {
    %c512 = arith.constant 512 : index
    %zero = arith.constant dense<0.0> : vector<8x4xf32>
    %at1 = arith.addi %at, %c512 : index
    %at2 = arith.addi %at1, %c512 : index
    %at3 = arith.addi %at2, %c512 : index
    %at4 = arith.addi %at3, %c512 : index
    %at5 = arith.addi %at4, %c512 : index
    %at6 = arith.addi %at5, %c512 : index
    %at7 = arith.addi %at6, %c512 : index
    %v0 = vector.load %work[%at] {alignment = 16} : memref<?xf32>, vector<4xf32>
    %v1 = vector.load %work[%at1] {alignment = 16} : memref<?xf32>, vector<4xf32>
    %v2 = vector.load %work[%at2] {alignment = 16} : memref<?xf32>, vector<4xf32>
    %v3 = vector.load %work[%at3] {alignment = 16} : memref<?xf32>, vector<4xf32>
    %v4 = vector.load %work[%at4] {alignment = 16} : memref<?xf32>, vector<4xf32>
    %v5 = vector.load %work[%at5] {alignment = 16} : memref<?xf32>, vector<4xf32>
    %v6 = vector.load %work[%at6] {alignment = 16} : memref<?xf32>, vector<4xf32>
    %v7 = vector.load %work[%at7] {alignment = 16} : memref<?xf32>, vector<4xf32>
    %r0 = vector.insert %v0, %zero [0] : vector<4xf32> into vector<8x4xf32>
    %r1 = vector.insert %v1, %r0 [1] : vector<4xf32> into vector<8x4xf32>
    %r2 = vector.insert %v2, %r1 [2] : vector<4xf32> into vector<8x4xf32>
    %r3 = vector.insert %v3, %r2 [3] : vector<4xf32> into vector<8x4xf32>
    %r4 = vector.insert %v4, %r3 [4] : vector<4xf32> into vector<8x4xf32>
    %r5 = vector.insert %v5, %r4 [5] : vector<4xf32> into vector<8x4xf32>
    %r6 = vector.insert %v6, %r5 [6] : vector<4xf32> into vector<8x4xf32>
    %r7 = vector.insert %v7, %r6 [7] : vector<4xf32> into vector<8x4xf32>
    return %r7 : vector<8x4xf32>
  }

  // Stores chunks i .. i+7 (`sums`, rounded to bf16) of the thread whose
  // chunk i is at row `row` of C, column `col`: rows 2 apart, those below
  // m. (The pipelines lower vector.extract only at constant positions.)
  func.func @symm_gemm_store_chunks(%c: memref<?xbf16>, %sums: vector<8x4xf32>,
                                    %row: index, %col: index, %m: index,
                                    %n: index) {
    %rows = arith.truncf %sums : vector<8x4xf32> to vector<8x4xbf16>
    %at0 = arith.muli %row, %n : index
    %at = arith.addi %at0, %col : index
    %o0 = arith.constant 0 : index
    %r0 = arith.addi %row, %o0 : index
    %in0 = arith.cmpi ult, %r0, %m : index
    scf.if %in0 {
      %v0 = vector.extract %rows[0] : vector<4xbf16> from vector<8x4xbf16>
      %d0 = arith.muli %o0, %n : index
      %i0 = arith.addi %at, %d0 : index
      vector.store %v0, %c[%i0] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
    }
    %o1 = arith.constant 2 : index
    %r1 = arith.addi %row, %o1 : index
    %in1 = arith.cmpi ult, %r1, %m : index
    scf.if %in1 {
      %v1 = vector.extract %rows[1] : vector<4xbf16> from vector<8x4xbf16>
      %d1 = arith.muli %o1, %n : index
      %i1 = arith.addi %at, %d1 : index
      vector.store %v1, %c[%i1] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
    }
    %o2 = arith.constant 4 : index
    %r2 = arith.addi %row, %o2 : index
    %in2 = arith.cmpi ult, %r2, %m : index
    scf.if %in2 {
      %v2 = vector.extract %rows[2] : vector<4xbf16> from vector<8x4xbf16>
      %d2 = arith.muli %o2, %n : index
      %i2 = arith.addi %at, %d2 : index
      vector.store %v2, %c[%i2] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
    }
    %o3 = arith.constant 6 : index
    %r3 = arith.addi %row, %o3 : index
    %in3 = arith.cmpi ult, %r3, %m : index
    scf.if %in3 {
      %v3 = vector.extract %rows[3] : vector<4xbf16> from vector<8x4xbf16>
      %d3 = arith.muli %o3, %n : index
      %i3 = arith.addi %at, %d3 : index
      vector.store %v3, %c[%i3] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
    }
    %o4 = arith.constant 8 : index
    %r4 = arith.addi %row, %o4 : index
    %in4 = arith.cmpi ult, %r4, %m : index
    scf.if %in4 {
      %v4 = vector.extract %rows[4] : vector<4xbf16> from vector<8x4xbf16>
      %d4 = arith.muli %o4, %n : index
      %i4 = arith.addi %at, %d4 : index
      vector.store %v4, %c[%i4] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
    }
    %o5 = arith.constant 10 : index
    %r5 = arith.addi %row, %o5 : index
    %in5 = arith.cmpi ult, %r5, %m : index
    scf.if %in5 {
      %v5 = vector.extract %rows[5] : vector<4xbf16> from vector<8x4xbf16>
      %d5 = arith.muli %o5, %n : index
      %i5 = arith.addi %at, %d5 : index
      vector.store %v5, %c[%i5] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
    }
    %o6 = arith.constant 12 : index
    %r6 = arith.addi %row, %o6 : index
    %in6 = arith.cmpi ult, %r6, %m : index
    scf.if %in6 {
      %v6 = vector.extract %rows[6] : vector<4xbf16> from vector<8x4xbf16>
      %d6 = arith.muli %o6, %n : index
      %i6 = arith.addi %at, %d6 : index
      vector.store %v6, %c[%i6] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
    }
    %o7 = arith.constant 14 : index
    %r7 = arith.addi %row, %o7 : index
    %in7 = arith.cmpi ult, %r7, %m : index
    scf.if %in7 {
      %v7 = vector.extract %rows[7] : vector<4xbf16> from vector<8x4xbf16>
      %d7 = arith.muli %o7, %n : index
      %i7 = arith.addi %at, %d7 : index
      vector.store %v7, %c[%i7] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
    }
    return
  }

  // A consumer warpgroup's epilogue through the workspace: sums `slots`
  // slots from element `first` (32768 apart) in slot order, and stores the
  // rows rowBase .. rowBase+63 of the tile at (m0, n0) that lie inside the
  // m x n C.
  func.func @symm_gemm_sum_slots(%work: memref<?xf32>, %c: memref<?xbf16>,
                                 %first: index, %slots: index, %wtid: index,
                                 %rowBase: index, %m0: index, %n0: index,
                                 %m: index, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %c4096 = arith.constant 4096 : index
    %c8192 = arith.constant 8192 : index
    %slotElems = arith.constant 32768 : index
    %zero = arith.constant dense<0.0> : vector<8x4xf32>
    %lane = arith.remui %wtid, %c64 : index
    %col0 = arith.muli %lane, %c4 : index
    %col = arith.addi %n0, %col0 : index
    %colIn = arith.cmpi ult, %col, %n : index
    scf.if %colIn {
      %pair = arith.divui %wtid, %c64 : index
      %rowFirst0 = arith.addi %m0, %rowBase : index
      %rowFirst = arith.addi %rowFirst0, %pair : index
      %halfAt = arith.muli %rowBase, %c256 : index
      %at0 = arith.addi %first, %halfAt : index
      %at1 = arith.addi %at0, %col0 : index
      %mine0 = arith.muli %pair, %c256 : index
      %mine = arith.addi %at1, %mine0 : index
      // Two rounds of 16 chunks (32 rows); a round below C is skipped.
      scf.for %r = %c0 to %c2 step %c1 {
        %r32 = arith.muli %r, %c32 : index
        %row = arith.addi %rowFirst, %r32 : index
        %roundIn = arith.cmpi ult, %row, %m : index
        scf.if %roundIn {
          %rAt = arith.muli %r, %c8192 : index
          %at = arith.addi %mine, %rAt : index
          %sumA, %sumB = scf.for %s = %c0 to %slots step %c1 iter_args(%a = %zero, %b = %zero) -> (vector<8x4xf32>, vector<8x4xf32>) {
            %sAt = arith.muli %s, %slotElems : index
            %atA = arith.addi %at, %sAt : index
            %atB = arith.addi %atA, %c4096 : index
            %va = func.call @symm_gemm_load_chunks(%work, %atA) : (memref<?xf32>, index) -> vector<8x4xf32>
            %vb = func.call @symm_gemm_load_chunks(%work, %atB) : (memref<?xf32>, index) -> vector<8x4xf32>
            %na = arith.addf %a, %va : vector<8x4xf32>
            %nb = arith.addf %b, %vb : vector<8x4xf32>
            scf.yield %na, %nb : vector<8x4xf32>, vector<8x4xf32>
          }
          %rowB = arith.addi %row, %c16 : index
          func.call @symm_gemm_store_chunks(%c, %sumA, %row, %col, %m, %n) : (memref<?xbf16>, vector<8x4xf32>, index, index, index, index) -> ()
          func.call @symm_gemm_store_chunks(%c, %sumB, %rowB, %col, %m, %n) : (memref<?xbf16>, vector<8x4xf32>, index, index, index, index) -> ()
        }
      }
    }
    return
  }

  // The epilogue of one unit (the tile at (%m0, %n0), split %split of
  // %splits) of an %m x %n bf16 C, row-major with row stride %n: every
  // thread calls it. The f32 workspace %work holds 128 x 256 slots: with
  // %splits > 1 one per unit (tile * splits + split: tiles * splits of
  // them), otherwise one per tile of the last tile row and column (tilesM +
  // tilesN), for the edge tiles; %counts holds two i32 counters per tile,
  // zero before the first launch and left zero by every launch; %flags is
  // the workgroup's two words for its consumers' counts.
  func.func @symm_gemm_hopper_epilogue(%acc: !acc, %bar: !barriers, %flags: !flags,
                                       %c: memref<?xbf16>, %m: index, %n: index,
                                       %m0: index, %n0: index, %work: memref<?xf32>,
                                       %counts: memref<?xi32>, %tile: index,
                                       %split: index, %splits: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %slotElems = arith.constant 32768 : index
    %ticks = arith.constant 10000000 : index
    %one = arith.constant 1 : i32
    %zero32 = arith.constant 0 : i32
    %even = arith.constant false
    %odd = arith.constant true
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %wtid = arith.remui %tid, %c128 : index
    %isConsumer = arith.cmpi ult, %wg, %c2 : index
    %isLeader = arith.cmpi eq, %wtid, %c0 : index
    %single = arith.cmpi eq, %splits, %c1 : index
    %rowHalf = arith.muli %wg, %c64 : index
    %rowFirst = arith.addi %m0, %rowHalf : index
    %active = arith.cmpi ult, %rowFirst, %m : index
    %consumes = arith.andi %isConsumer, %active : i1
    scf.if %consumes {
      %meet = arith.addi %wg, %c8 : index
      %rowEnd = arith.addi %rowFirst, %c64 : index
      %rowsIn = arith.cmpi ule, %rowEnd, %m : index
      %colEnd = arith.addi %n0, %c256 : index
      %colsIn = arith.cmpi ule, %colEnd, %n : index
      %inside = arith.andi %rowsIn, %colsIn : i1
      %direct = arith.andi %inside, %single : i1
      scf.if %direct {
        // Inside C and the whole of K: bf16 from the registers.
        func.call @symm_gemm_hopper_store_bf16(%acc, %c, %m0, %n0, %n) : (!acc, memref<?xbf16>, index, index, index) -> ()
      } else {
        // Through a workspace slot: the edge tile's own (a slot per tile
        // of the last tile row or column), or the split unit's.
        %mUp = arith.addi %m, %c127 : index
        %tilesM = arith.divui %mUp, %c128 : index
        %nUp = arith.addi %n, %c255 : index
        %tilesN = arith.divui %nUp, %c256 : index
        %tm = arith.divui %m0, %c128 : index
        %tn = arith.divui %n0, %c256 : index
        %lastTileN = arith.subi %tilesN, %c1 : index
        %lastCol = arith.cmpi eq, %tn, %lastTileN : index
        %rowSlot = arith.addi %tilesM, %tn : index
        %edgeSlot = arith.select %lastCol, %tm, %rowSlot : index
        %tileFirst = arith.muli %tile, %splits : index
        %unitSlot = arith.addi %tileFirst, %split : index
        %slotIdx = arith.select %single, %edgeSlot, %unitSlot : index
        %slotAt = arith.muli %slotIdx, %slotElems : index
        %slot = memref.reinterpret_cast %work to offset: [%slotAt], sizes: [64, 256], strides: [256, 1] : memref<?xf32> to !slot
        nvgpu.warpgroup.mma.store %acc, %slot : !acc to !slot
        // Each thread's stores are visible on the device before the count
        // (the CTA-scope meeting and the counter's acq_rel would do under
        // PTX's memory model; the fences keep it explicit).
        symm.fence ordering(release) scope(device)
        %t0 = nvgpu.mbarrier.arrive %bar[%meet] : !barriers -> !nvgpu.mbarrier.token
        nvgpu.mbarrier.try_wait.parity %bar[%meet], %even, %ticks : !barriers
        // A split counts its arrival at its half tile; the last of the S
        // sums them. The leader says which it was through %flags.
        %half = arith.muli %tile, %c2 : index
        %counter = arith.addi %half, %wg : index
        %reduce = scf.if %single -> (i1) {
          scf.yield %odd : i1
        } else {
          scf.if %isLeader {
            %lastSplit = arith.subi %splits, %c1 : index
            %lastSplit32 = arith.index_cast %lastSplit : index to i32
            %old = symm.atomic_rmw add %one, %counts[%counter] ordering(acq_rel) scope(device) : i32 -> memref<?xi32>
            %arrivedLast = arith.cmpi eq, %old, %lastSplit32 : i32
            %arrivedFlag = arith.extui %arrivedLast : i1 to i32
            memref.store %arrivedFlag, %flags[%wg] : !flags
          }
          %t1 = nvgpu.mbarrier.arrive %bar[%meet] : !barriers -> !nvgpu.mbarrier.token
          nvgpu.mbarrier.try_wait.parity %bar[%meet], %odd, %ticks : !barriers
          %flag = memref.load %flags[%wg] : !flags
          %isLast = arith.cmpi ne, %flag, %zero32 : i32
          scf.yield %isLast : i1
        }
        scf.if %reduce {
          // The other units' slots, seen through the counter.
          symm.fence ordering(acquire) scope(device)
          %splitFirst = arith.muli %tileFirst, %slotElems : index
          %first = arith.select %single, %slotAt, %splitFirst : index
          func.call @symm_gemm_sum_slots(%work, %c, %first, %splits, %wtid, %rowHalf, %m0, %n0, %m, %n) : (memref<?xf32>, memref<?xbf16>, index, index, index, index, index, index, index, index) -> ()
          // The counter starts the next launch at 0.
          %notSingle = arith.xori %single, %odd : i1
          %reset = arith.andi %notSingle, %isLeader : i1
          scf.if %reset {
            memref.store %zero32, %counts[%counter] : memref<?xi32>
          }
        }
        // An edge tile's slot is read before the next edge tile of this
        // workgroup stores into it (a split's slot is its own).
        scf.if %single {
          %t2 = nvgpu.mbarrier.arrive %bar[%meet] : !barriers -> !nvgpu.mbarrier.token
          nvgpu.mbarrier.try_wait.parity %bar[%meet], %odd, %ticks : !barriers
        }
      }
    }
    // After a unit whose epilogue went through the workspace, the whole
    // workgroup meets before the next unit. Without it, on an H100, the
    // split units a workgroup took after its first came out wrong (about
    // one K step's worth in a few percent of their elements, the same ones
    // in every run, never on the CPU target), while a meeting here made
    // every split count and grid pass (docs/Workloads.md). The cause is not
    // pinned down: with it the producer's loads for the next unit no longer
    // overlap these epilogues, and the consumer warps enter it converged.
    %tileRowEnd = arith.addi %m0, %c128 : index
    %tileRowsIn = arith.cmpi ule, %tileRowEnd, %m : index
    %tileColEnd = arith.addi %n0, %c256 : index
    %tileColsIn = arith.cmpi ule, %tileColEnd, %n : index
    %tileIn = arith.andi %tileRowsIn, %tileColsIn : i1
    %tileDirect = arith.andi %tileIn, %single : i1
    %throughWork = arith.xori %tileDirect, %odd : i1
    scf.if %throughWork {
      gpu.barrier
    }
    return
  }

  //===--------------------------------------------------------------------===//
  // The staged epilogue
  //===--------------------------------------------------------------------===//

  // Stages the consumers' accumulators in the ring once every MMA of the
  // tile has read its operands (a workgroup barrier before and after) and
  // returns the staged 128 x 256 f32 tile (warpgroup w's rows at 64 w, where
  // upstream's nvgpu.warpgroup.mma.store puts them).
  func.func @symm_gemm_hopper_stage(%acc: !acc, %ring: index) -> !epi {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %tid = gpu.thread_id x
    %isConsumer = arith.cmpi ult, %tid, %c256 : index
    %dyn = gpu.dynamic_shared_memory : !smem
    %dynF = memref.view %dyn[%c0][%c1024] : !smem to memref<?xf32, #gpu.address_space<workgroup>>
    %epiElems = arith.divui %ring, %c4 : index
    %epiStore = memref.reinterpret_cast %dynF to offset: [%epiElems], sizes: [64, 256], strides: [264, 1] : memref<?xf32, #gpu.address_space<workgroup>> to !epiStore
    %epi = memref.reinterpret_cast %dynF to offset: [%epiElems], sizes: [128, 256], strides: [264, 1] : memref<?xf32, #gpu.address_space<workgroup>> to !epi
    gpu.barrier
    scf.if %isConsumer {
      nvgpu.warpgroup.mma.store %acc, %epiStore : !acc to !epiStore
    }
    gpu.barrier
    return %epi : !epi
  }

  // A consumer thread's part %i (0 .. 15) of the staged tile: 8 consecutive
  // elements of row %row (0 .. 127) from column %col (a multiple of 8).
  // Warpgroup w's threads read rows 64 w ..; a warp reads a row.
  func.func @symm_gemm_hopper_staged(%epi: !epi, %i: index) -> (index, index, vector<8xf32>) {
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %wtid = arith.remui %tid, %c128 : index
    %rowHalf = arith.muli %wg, %c64 : index
    %i128 = arith.muli %i, %c128 : index
    %chunk = arith.addi %wtid, %i128 : index
    %r = arith.divui %chunk, %c32 : index
    %cc = arith.remui %chunk, %c32 : index
    %col = arith.muli %cc, %c8 : index
    %row = arith.addi %r, %rowHalf : index
    %v = vector.load %epi[%row, %col] : !epi, vector<8xf32>
    return %row, %col, %v : index, index, vector<8xf32>
  }

  // The consumers store the staged tile, rounded to bf16, at rows %m0 ..
  // and columns %n0 .. of the row-major C with row stride %ldc (16-byte
  // stores). The producer warpgroup does nothing.
  func.func @symm_gemm_hopper_store(%epi: !epi, %c: memref<?xbf16>, %m0: index, %n0: index, %ldc: index) {
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    func.call @symm_gemm_hopper_store_part(%epi, %c, %m0, %n0, %ldc, %c128, %c256)
        : (!epi, memref<?xbf16>, index, index, index, index, index) -> ()
    return
  }

  // @symm_gemm_hopper_store of the tile's first %rows rows (0 .. 128) and
  // first %cols columns (0 .. 256, a multiple of 8) only: a tile at the
  // bottom or right edge of C (the TMA loads read zeros past A and B).
  func.func @symm_gemm_hopper_store_part(%epi: !epi, %c: memref<?xbf16>, %m0: index, %n0: index,
                                         %ldc: index, %rows: index, %cols: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %isConsumer = arith.cmpi ult, %tid, %c256 : index
    scf.if %isConsumer {
      scf.for %i = %c0 to %c16 step %c1 {
        %r, %col, %v = func.call @symm_gemm_hopper_staged(%epi, %i) : (!epi, index) -> (index, index, vector<8xf32>)
        %rowIn = arith.cmpi ult, %r, %rows : index
        %colIn = arith.cmpi ult, %col, %cols : index
        %in = arith.andi %rowIn, %colIn : i1
        scf.if %in {
          %vb = arith.truncf %v : vector<8xf32> to vector<8xbf16>
          %gr = arith.addi %m0, %r : index
          %gc = arith.addi %n0, %col : index
          %rowStart = arith.muli %gr, %ldc : index
          %idx = arith.addi %rowStart, %gc : index
          vector.store %vb, %c[%idx] : memref<?xbf16>, vector<8xbf16>
        }
      }
    }
    return
  }

  // Ends the tile's staged epilogue: the consumers order the ring's
  // generic-proxy accesses before the next tile's TMA writes (async proxy),
  // then a workgroup barrier: the staged tile has been read.
  func.func @symm_gemm_hopper_release() {
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %isConsumer = arith.cmpi ult, %tid, %c256 : index
    scf.if %isConsumer {
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    }
    gpu.barrier
    return
  }
}
