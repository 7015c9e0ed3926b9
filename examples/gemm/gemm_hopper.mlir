// C = A·B on Hopper (sm_90a): bf16 A (M x K, row-major) and B (K x N,
// row-major), f32 accumulation in warpgroup MMA registers, bf16 C (M x N,
// row-major). The kernel ABI is examples/gemm's (README): @gemm(A, B, C, M, N,
// K), then the two TMA descriptors the driver makes on the host: A's with a
// 128 x 64 box (rows x K) and B's with a 64 x 64 box, both bf16 with the
// 128-byte swizzle. Tiles are 128 x 256; M % 128 == 0, N % 256 == 0 and
// K % 64 == 0. Launch: any grid (block b computes tiles b, b + grid, ...),
// 384 threads, 197632 bytes of dynamic shared memory.
//
// A workgroup is three warpgroups. Warpgroup 0 is the producer: its first
// thread streams the K dimension through a ring of 4 stages with TMA (a
// 128 x 64 box of A and four 64 x 64 boxes of B per stage, 48 KiB), each
// stage guarded by a "full" mbarrier (the TMA's transaction bytes) and an
// "empty" one (one arrival per consumer). Warpgroups 1 and 2 are consumers:
// warpgroup w multiplies rows 64(w-1) .. 64(w-1)+63 of the A box by the whole
// B stage with wgmma (64 x 256 x 64 per stage, asynchronous, one group in
// flight) and releases a stage once the MMA after it has been issued. The
// 128-byte swizzle makes the TMA boxes the layouts wgmma reads: a stage's A
// box is [128][64] (K-major) and its B is [4][64][64] (MN-major: four
// 64-column boxes of 64 K rows), which is why B is loaded in four boxes.
// Stage and parity count K steps over all of a workgroup's tiles.
//
// Epilogue: the accumulators go through workgroup memory (the ring's
// buffers, idle by then) as f32 rows padded to 264 elements (so a warp's
// stores take two wavefronts) and leave as 16-byte bf16 vectors, a row per
// 32 threads. Three workgroup barriers per tile separate the MMAs' reads of
// the ring, the stores of the accumulators, their reads, and the next
// tile's TMA writes (after a proxy fence: the staging is generic-proxy
// traffic, TMA async-proxy).
//
// Tiles are numbered in groups of 8 tile rows so that the workgroups
// running at once share A and B panels in L2.

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!descA = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x256xbf16, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!epiStore = memref<64x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>
!epiLoad = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @gemm_hopper {
  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xbf16>,
                 %m: index, %n: index, %k: index, %tmaA: !tmA, %tmaB: !tmB)
      kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c264 = arith.constant 264 : index
    %c1024 = arith.constant 1024 : index
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
    %isConsumer = arith.cmpi ne, %wg, %c0 : index
    %isLeader = arith.cmpi eq, %wtid, %c0 : index
    %half = arith.subi %wg, %c1 : index
    %aHalf = arith.muli %half, %c8192 : index
    %rowHalf = arith.muli %half, %c64 : index

    %tilesM = arith.divui %m, %c128 : index
    %tilesN = arith.divui %n, %c256 : index
    %tiles = arith.muli %tilesM, %tilesN : index
    %groupTiles = arith.muli %tilesN, %c8 : index
    %kSteps = arith.divui %k, %c64 : index

    // The ring starts at the first 1 KiB boundary of dynamic shared memory:
    // the 128-byte swizzle repeats every 1 KiB, and wgmma's descriptors
    // take the pattern to start there.
    %dyn = gpu.dynamic_shared_memory : !smem
    %dynAddr = memref.extract_aligned_pointer_as_index %dyn : !smem -> index
    %mis = arith.remui %dynAddr, %c1024 : index
    %slack = arith.subi %c1024, %mis : index
    %base = arith.remui %slack, %c1024 : index
    %bBase = arith.addi %base, %aRingBytes : index
    // warpgroup.mma.store puts row r of warpgroup w's accumulator at row
    // 64 w + r of its destination (the row follows the warp's index in the
    // workgroup), so each consumer's destination starts 64 w rows before
    // its 64 rows of the buffer: for both, 64 rows before the buffer.
    %dynF = memref.view %dyn[%c0][%c1024] : !smem to memref<?xf32, #gpu.address_space<workgroup>>
    %epiElems = arith.divui %base, %c4 : index
    %rowsBefore = arith.muli %c64, %c264 : index
    %storeOffset = arith.subi %epiElems, %rowsBefore : index
    %epiStore = memref.reinterpret_cast %dynF to offset: [%storeOffset], sizes: [64, 256], strides: [264, 1] : memref<?xf32, #gpu.address_space<workgroup>> to !epiStore
    %epi = memref.reinterpret_cast %dynF to offset: [%epiElems], sizes: [128, 256], strides: [264, 1] : memref<?xf32, #gpu.address_space<workgroup>> to !epiLoad

    // Barrier s < 4: stage s is full; 4 + s: stage s is empty.
    %bar = nvgpu.mbarrier.create -> !barriers
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

    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %stepsDone = scf.for %t = %bid to %tiles step %grid iter_args(%done = %c0) -> (index) {
      %group = arith.divui %t, %groupTiles : index
      %firstM = arith.muli %group, %c8 : index
      %rowsLeft = arith.subi %tilesM, %firstM : index
      %groupRows = arith.minui %rowsLeft, %c8 : index
      %inGroup = arith.remui %t, %groupTiles : index
      %tmOff = arith.remui %inGroup, %groupRows : index
      %tm = arith.addi %firstM, %tmOff : index
      %tn = arith.divui %inGroup, %groupRows : index
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index

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
            %aOff = arith.addi %base, %aOff0 : index
            %aDst = memref.view %dyn[%aOff][] : !smem to memref<128x64xbf16, #gpu.address_space<workgroup>>
            nvgpu.tma.async.load %tmaA[%kc, %m0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
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
        %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
        %accK = scf.for %ks = %c0 to %kSteps step %c1 iter_args(%acc = %init) -> (!acc) {
          %it = arith.addi %done, %ks : index
          %s = arith.remui %it, %stages : index
          %round = arith.divui %it, %stages : index
          %rbit = arith.andi %round, %c1 : index
          %parity = arith.index_cast %rbit : index to i1
          nvgpu.mbarrier.try_wait.parity %bar[%s], %parity, %ticks : !barriers
          %aOff0 = arith.muli %s, %c16384 : index
          %aOff1 = arith.addi %base, %aOff0 : index
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
      // Every MMA of the tile has read its operands: the ring is free.
      gpu.barrier
      scf.if %isConsumer {
        nvgpu.warpgroup.mma.store %accOut, %epiStore : !acc to !epiStore
      }
      gpu.barrier
      scf.if %isConsumer {
        %gRowBase = arith.addi %m0, %rowHalf : index
        scf.for %i = %c0 to %c16 step %c1 {
          %i128 = arith.muli %i, %c128 : index
          %chunk = arith.addi %wtid, %i128 : index
          %r = arith.divui %chunk, %c32 : index
          %cc = arith.remui %chunk, %c32 : index
          %col = arith.muli %cc, %c8 : index
          %er = arith.addi %r, %rowHalf : index
          %v = vector.load %epi[%er, %col] : !epiLoad, vector<8xf32>
          %vb = arith.truncf %v : vector<8xf32> to vector<8xbf16>
          %gr = arith.addi %gRowBase, %r : index
          %gc = arith.addi %n0, %col : index
          %rowStart = arith.muli %gr, %n : index
          %idx = arith.addi %rowStart, %gc : index
          vector.store %vb, %c[%idx] : memref<?xbf16>, vector<8xbf16>
        }
        // The ring's generic-proxy accesses (the accumulators' stores and
        // reads) are ordered before the next tile's TMA writes, which go
        // through the async proxy: barriers alone do not order the proxies.
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      }
      // The buffer is read before the next tile's TMA writes it.
      gpu.barrier
      %doneNext = arith.addi %done, %kSteps : index
      scf.yield %doneNext : index
    }
    gpu.return
  }
}
