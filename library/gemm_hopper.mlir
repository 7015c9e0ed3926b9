//===- gemm_hopper.mlir - The Hopper GEMM tile: TMA, mbarriers, wgmma ----===//
//
// Symm's device library (docs/Library.md): the pieces of a persistent bf16
// GEMM on Hopper (sm_90a; the CPU target runs them too), for kernels that
// compute C = A·B tile by tile and do their own thing with each tile. A
// kernel calls them in this order (examples/gemm/gemm_hopper.mlir is the
// plain GEMM, examples/*_hopper.mlir the fused workloads):
//
//   %bar, %ring = @symm_gemm_hopper_setup(%tmaA, %tmaB)      once
//   for each tile of this workgroup, %done = K steps run before:
//     %acc = @symm_gemm_hopper_mainloop(%tmaA, %tmaB, %bar, %ring,
//                                       %am0, %n0, %kSteps, %done)
//     %epi = @symm_gemm_hopper_stage(%acc, %ring)
//     consumers: @symm_gemm_hopper_store(%epi, %c, %m0, %n0, %ldc), or
//                their own loop over @symm_gemm_hopper_staged(%epi, %i)
//     @symm_gemm_hopper_release()
//
// Requirements: workgroups of 384 threads (known_block_size), 197632 bytes
// of dynamic shared memory (a 4-stage ring of 48 KiB, plus 1 KiB to align it),
// every thread of the workgroup calling each function. Tiles are 128 x 256
// of C, K in steps of 64. The TMA descriptors: A row-major (rows x K) with a
// 128 x 64 box, B row-major (K x N) with a 64 x 64 box, both bf16 with the
// 128-byte swizzle. A workgroup is three warpgroups: warpgroup 0's first
// thread streams K through the ring with TMA (a 128 x 64 box of A and four
// 64 x 64 boxes of B per stage), each stage guarded by a "full" mbarrier
// (the TMA's transaction bytes) and an "empty" one (one arrival per
// consumer); warpgroups 1 and 2 multiply rows 64 (w - 1) .. of the A box by
// the whole B stage with wgmma (64 x 256 x 64, one group in flight) and
// release a stage once the MMA after it has been issued. The 128-byte
// swizzle makes the TMA boxes the layouts wgmma reads: a stage's A box is
// [128][64] (K-major) and its B is [4][64][64] (MN-major), which is why B is
// loaded in four boxes. Stage and parity count K steps over all of a
// workgroup's tiles (%done).
//
// The epilogue stages the accumulators through the ring (idle by then) as
// f32 rows padded to 264 elements (a warp's stores take two wavefronts).
// Three workgroup barriers per tile separate the MMAs' reads of the ring,
// the accumulators' stores, their reads and the next tile's TMA writes;
// the consumers fence the proxies (fence.proxy.async.shared::cta) before
// the last one, since the staging is generic-proxy traffic and TMA
// async-proxy, and barriers alone do not order the proxies.
//
//===----------------------------------------------------------------------===//

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!descA = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x256xbf16, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!epiStore = memref<64x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>
!epi = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @symm_library_gemm_hopper {
  // Initialises the ring's mbarriers (s < 4: stage s is full; 4 + s: it is
  // empty) and prefetches the descriptors; returns the barriers and the
  // ring's offset in dynamic shared memory, its first 1 KiB boundary (the
  // 128-byte swizzle repeats every 1 KiB, and wgmma's descriptors take the
  // pattern to start there). Ends with a workgroup barrier.
  func.func @symm_gemm_hopper_setup(%tmaA: !tmA, %tmaB: !tmB) -> (!barriers, index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
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
        nvgpu.mbarrier.init %bar[%e], %c2 : !barriers
      }
      nvgpu.tma.prefetch.descriptor %tmaA : !tmA
      nvgpu.tma.prefetch.descriptor %tmaB : !tmB
    }
    gpu.barrier
    return %bar, %ring : !barriers, index
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

  // One tile's main loop: %kSteps steps of 64 along K, A's rows %am0 ..
  // %am0 + 127 (A's own row coordinate: a gathered A may be another
  // descriptor's) and C's columns %n0 .. %n0 + 255. The producer's first
  // thread issues the TMA loads and returns once the last is issued (a
  // kernel may wait for something there while the consumers compute); the
  // consumers return their 64 x 256 accumulators once every MMA completed;
  // the producer's are zero.
  func.func @symm_gemm_hopper_mainloop(%tmaA: !tmA, %tmaB: !tmB, %bar: !barriers, %ring: index,
                                       %am0: index, %n0: index, %kSteps: index, %done: index) -> !acc {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
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
    %isProducer = arith.cmpi eq, %wg, %c0 : index
    %isLeader = arith.cmpi eq, %wtid, %c0 : index
    %dyn = gpu.dynamic_shared_memory : !smem
    %bBase = arith.addi %ring, %aRingBytes : index
    %accOut = scf.if %isProducer -> (!acc) {
      scf.if %isLeader {
        scf.for %ks = %c0 to %kSteps step %c1 {
          %it = arith.addi %done, %ks : index
          %s = arith.remui %it, %stages : index
          %round = arith.divui %it, %stages : index
          // Refilling a stage waits until both consumers released its
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
      %half = arith.subi %wg, %c1 : index
      %aHalf = arith.muli %half, %c8192 : index
      %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
      %accK = scf.for %ks = %c0 to %kSteps step %c1 iter_args(%acc = %init) -> (!acc) {
        %it = arith.addi %done, %ks : index
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
        // One group stays in flight: the MMA of the step before this one
        // has completed, and its stage may be refilled.
        %notFirst = arith.cmpi ugt, %it, %c0 : index
        %release = arith.andi %notFirst, %isLeader : i1
        scf.if %release {
          %pit = arith.subi %it, %c1 : index
          %ps = arith.remui %pit, %stages : index
          %e = arith.addi %ps, %stages : index
          %token = nvgpu.mbarrier.arrive %bar[%e] : !barriers -> !nvgpu.mbarrier.token
        }
        scf.yield %next : !acc
      }
      nvvm.wgmma.wait.group.sync.aligned 0
      scf.yield %accK : !acc
    }
    return %accOut : !acc
  }

  // Stages the consumers' accumulators in the ring once every MMA of the
  // tile has read its operands (a workgroup barrier before and after) and
  // returns the staged 128 x 256 f32 tile.
  func.func @symm_gemm_hopper_stage(%acc: !acc, %ring: index) -> !epi {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %rowsBefore = arith.constant 16896 : index
    %tid = gpu.thread_id x
    %isConsumer = arith.cmpi uge, %tid, %c128 : index
    %dyn = gpu.dynamic_shared_memory : !smem
    %dynF = memref.view %dyn[%c0][%c1024] : !smem to memref<?xf32, #gpu.address_space<workgroup>>
    %epiElems = arith.divui %ring, %c4 : index
    // warpgroup.mma.store puts row r of warpgroup w's accumulator at row
    // 64 w + r of its destination (the row follows the warp's index in the
    // workgroup), so each consumer's destination starts 64 w rows before
    // its 64 rows of the buffer: for both, 64 rows (64 x 264 elements)
    // before the buffer.
    %storeOffset = arith.subi %epiElems, %rowsBefore : index
    %epiStore = memref.reinterpret_cast %dynF to offset: [%storeOffset], sizes: [64, 256], strides: [264, 1] : memref<?xf32, #gpu.address_space<workgroup>> to !epiStore
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
  // Warpgroup w's threads read rows 64 (w - 1) ..; a warp reads a row.
  func.func @symm_gemm_hopper_staged(%epi: !epi, %i: index) -> (index, index, vector<8xf32>) {
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %consumer = arith.subi %tid, %c128 : index
    %wg = arith.divui %consumer, %c128 : index
    %wtid = arith.remui %consumer, %c128 : index
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
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %isConsumer = arith.cmpi uge, %tid, %c128 : index
    scf.if %isConsumer {
      scf.for %i = %c0 to %c16 step %c1 {
        %r, %col, %v = func.call @symm_gemm_hopper_staged(%epi, %i) : (!epi, index) -> (index, index, vector<8xf32>)
        %vb = arith.truncf %v : vector<8xf32> to vector<8xbf16>
        %gr = arith.addi %m0, %r : index
        %gc = arith.addi %n0, %col : index
        %rowStart = arith.muli %gr, %ldc : index
        %idx = arith.addi %rowStart, %gc : index
        vector.store %vb, %c[%idx] : memref<?xbf16>, vector<8xbf16>
      }
    }
    return
  }

  // Ends the tile's epilogue: the consumers order the ring's generic-proxy
  // accesses before the next tile's TMA writes (async proxy), then a
  // workgroup barrier: the staged tile has been read.
  func.func @symm_gemm_hopper_release() {
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %isConsumer = arith.cmpi uge, %tid, %c128 : index
    scf.if %isConsumer {
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    }
    gpu.barrier
    return
  }
}
