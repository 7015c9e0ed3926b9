// The Hopper kernels of C = A·B with B split along N (sm_90a; compiled for
// the host target too, where symm-convert-nvgpu-to-host lowers the nvgpu
// operations): gemm_all_scatter.cpp launches @gemm from here with
// --kernel=hopper, and the portable module's @push and @assemble beside it.
//
// @gemm is examples/gemm/gemm_hopper.mlir's kernel, its main loop copied
// unchanged: 128x256 tiles, 384 threads (a producer warpgroup whose first
// thread streams K through a 4-stage TMA ring guarded by "full" and "empty"
// mbarriers, two consumer warpgroups of 64x256 warpgroup MMAs), the same
// TMA descriptors (A: m x k with 128 x 64 boxes; B: this rank's k x n block
// B_r with 64 x 64 boxes; bf16, 128-byte swizzle), tiles in groups of 8
// tile rows, stage and parity counted across a block's tiles, 197632 bytes
// of dynamic shared memory. What differs from gemm_hopper.mlir:
//   - the arguments: C is a symmetric m x ldc matrix of bf16 bits with this
//     rank's block at columns coloff .., and the variant's flags, arrival
//     counts, epoch, variant and compute grid follow (see @gemm);
//   - the tiles: blocks below %compute_grid take tiles bid, bid +
//     compute_grid, ...; in wg_specialized the others run @push_tiles;
//   - the epilogue's global stores: bf16 bits at (row, coloff + column) of
//     C with row stride ldc, and in fused_sequential the same 16-byte
//     vector into every peer's C; then, after the epilogue's last barrier,
//     the variant's announcement (fused_sequential: arrivals, 2 per tile)
//     or tile flags (producer_consumer, wg_specialized);
//   - the flags and arrival counts keep the portable kernels' unit, the
//     128x128 tile: a 128x256 tile raises the flags of its two halves and
//     counts two arrivals, so the portable @push (producer_consumer's push
//     kernel) and the device library's @symm_push_tiles serve both kernels.
// The announcements, the wait for the peers' arrivals and the pushers are
// the device library's (library/tiles.mlir), as in gemm_all_scatter.mlir.
//
// GPU-only hazards, which CPU ranks cannot show:
//   - A and B are this rank's own inputs, written before the launch: no TMA
//     reads data that a peer writes during it, so no flag has to be
//     acquired before a TMA load and no proxy fence is needed for them.
//   - The epilogue reuses the ring (written by TMA and read by wgmma, both
//     in the async proxy) for the generic-proxy f32 staging: the three
//     workgroup barriers of gemm_hopper.mlir (after wgmma.wait.group 0, after
//     the accumulator stores, after the reads) order the two, and the next
//     tile's TMA is issued only after the last one. As gemm_hopper.mlir does,
//     the consumers also fence the proxies (fence.proxy.async.shared::cta)
//     before that barrier: the PTX memory model orders generic-proxy
//     accesses before later async-proxy ones to the same shared memory only
//     through such a fence, and the epilogue, longer here, makes the window
//     wider.
//   - Peer stores of C are plain st.global through the peer mapping; a flag
//     or an arrival is raised only after every thread's fence.sc.sys
//     (symm.fence release system) and a workgroup barrier, so a receiver
//     that acquires it sees the whole tile.
//   - wg_specialized's pushers spin while the compute blocks run: the
//     compute blocks never wait on anyone, so every launch finishes even
//     when pushers are not resident (--grid above the resident blocks).

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!descA = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x256xbf16, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!epiStore = memref<64x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>
!epiLoad = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @gemm_all_scatter_hopper {
  // The device library's tile signalling (tiles.mlir).
  func.func private @symm_announce(memref<?xi32, #symm.heap>, i32)
  func.func private @symm_await_arrivals(memref<?xi32, #symm.heap>, i32)
  func.func private @symm_push_tiles(memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>, index, index, index, index, i32, index, index)

  // Sizes: m a multiple of 128, n (this rank's columns of B and of C) a
  // multiple of 256, k a multiple of 64; C is m x ldc with this rank's block
  // at columns coloff ... %variant picks the epilogue as in
  // gemm_all_scatter.mlir's @gemm: 0 bulk_sync (tiles into C), 1
  // producer_consumer (tiles into C, then their flags = epoch), 2
  // fused_sequential (tiles into C and every peer's C, announced; the launch
  // ends when the peers' tiles have landed), 3 wg_specialized (blocks below
  // %compute_grid compute like 1, the others push; ends like 2).
  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xi16, #symm.heap>,
                 %flags: memref<?xi32, #symm.heap>, %arrivals: memref<?xi32, #symm.heap>,
                 %m: index, %n: index, %k: index, %ldc: index, %coloff: index,
                 %epoch: i32, %variant: i32, %compute_grid: index, %tmaA: !tmA, %tmaB: !tmB)
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

    %v1 = arith.constant 1 : i32
    %v2 = arith.constant 2 : i32
    %v3 = arith.constant 3 : i32
    %is1 = arith.cmpi eq, %variant, %v1 : i32
    %is3 = arith.cmpi eq, %variant, %v3 : i32
    %flagTiles = arith.ori %is1, %is3 : i1
    %toPeers = arith.cmpi eq, %variant, %v2 : i32
    %awaits = arith.cmpi uge, %variant, %v2 : i32
    %me = symm.rank : i32
    %world32 = symm.world_size : i32
    %mei = arith.index_cast %me : i32 to index
    %world = arith.index_cast %world32 : i32 to index
    // Flags and arrivals count 128x128 tiles (the portable kernels' unit).
    %halvesN = arith.divui %n, %c128 : index
    %halves = arith.muli %tilesM, %halvesN : index

    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    // Blocks at or above %compute_grid (wg_specialized's pushers) take no
    // tile.
    %computes = arith.cmpi ult, %bid, %compute_grid : index
    %myTiles = arith.select %computes, %tiles, %c0 : index
    %stepsDone = scf.for %t = %bid to %myTiles step %compute_grid iter_args(%done = %c0) -> (index) {
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
          // C holds bf16 bits, as in gemm_all_scatter.mlir's @emit.
          %bits = arith.bitcast %vb : vector<8xbf16> to vector<8xi16>
          %gr = arith.addi %gRowBase, %r : index
          %tc = arith.addi %n0, %col : index
          %gc = arith.addi %coloff, %tc : index
          %rowStart = arith.muli %gr, %ldc : index
          %idx = arith.addi %rowStart, %gc : index
          vector.store %bits, %c[%idx] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
          scf.if %toPeers {
            scf.for %p = %c0 to %world step %c1 {
              %peer = arith.cmpi ne, %p, %mei : index
              scf.if %peer {
                %p32 = arith.index_cast %p : index to i32
                symm.store %bits, %c[%idx] to %p32 : vector<8xi16> -> memref<?xi16, #symm.heap>
              }
            }
          }
        }
        // The ring's generic-proxy accesses (the accumulators' stores and
        // reads) are ordered before the next tile's TMA writes, which go
        // through the async proxy.
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      }
      // The buffer is read before the next tile's TMA writes it.
      gpu.barrier
      scf.if %toPeers {
        func.call @symm_announce(%arrivals, %v2) : (memref<?xi32, #symm.heap>, i32) -> ()
      }
      scf.if %flagTiles {
        symm.fence ordering(release) scope(system)
        gpu.barrier
        scf.if %isFirst {
          %tn2 = arith.muli %tn, %c2 : index
          %f0 = arith.muli %tm, %halvesN : index
          %f = arith.addi %f0, %tn2 : index
          %f1 = arith.addi %f, %c1 : index
          symm.store %epoch, %flags[%f] ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
          symm.store %epoch, %flags[%f1] ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
        }
      }
      %doneNext = arith.addi %done, %kSteps : index
      scf.yield %doneNext : index
    }
    %pushes = arith.cmpi uge, %bid, %compute_grid : index
    scf.if %pushes {
      %pusher = arith.subi %bid, %compute_grid : index
      %pushers = arith.subi %grid, %compute_grid : index
      func.call @symm_push_tiles(%c, %flags, %arrivals, %m, %n, %ldc, %coloff, %epoch, %pusher, %pushers)
          : (memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>,
             index, index, index, index, i32, index, index) -> ()
    }
    scf.if %awaits {
      %halves32 = arith.index_cast %halves : index to i32
      %expected = arith.muli %epoch, %halves32 : i32
      func.call @symm_await_arrivals(%arrivals, %expected) : (memref<?xi32, #symm.heap>, i32) -> ()
    }
    gpu.return
  }
}
