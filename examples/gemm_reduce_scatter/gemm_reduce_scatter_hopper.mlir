// The Hopper kernel of C = Σ_r A_r·B_r with K split across the ranks (sm_90a;
// compiled for the host target too, where symm-convert-nvgpu-to-host lowers
// the nvgpu operations): gemm_reduce_scatter.cpp launches @gemm from here
// with --kernel=hopper.
//
// @gemm is examples/gemm/gemm_hopper.mlir's kernel, its main loop copied
// unchanged: 128x256 tiles, 384 threads (a producer warpgroup whose first
// thread streams K through a 4-stage TMA ring guarded by "full" and "empty"
// mbarriers, two consumer warpgroups of 64x256 warpgroup MMAs), the same
// TMA descriptors (this rank's A_r, m x k, with 128 x 64 boxes and B_r,
// k x n, with 64 x 64 boxes; bf16, 128-byte swizzle; k is this rank's share
// of K), stage and parity counted across a block's tiles, 197632 bytes of
// dynamic shared memory. What differs from gemm_hopper.mlir:
//   - the arguments: gemm_reduce_scatter.mlir's buffers (partial C, this
//     rank's rows of C, fused_atomic's accumulator, the flags), the epoch
//     and the variant follow the sizes;
//   - the tile order: the tiles of one owner's rows (rank q owns tile rows
//     q m/128W ..) in groups of 8 tile rows, owner after owner; in the fused
//     variants from the owner after this rank round to this rank, so the
//     peers' tiles come first and this rank's own (which wait) last;
//   - after an own tile's main loop the producer's first thread waits for
//     every peer's ready flag (while the consumers finish their MMAs);
//   - the epilogue's global stores, per variant as in
//     gemm_reduce_scatter.mlir's @gemm, and the flags after the epilogue's
//     last barrier.
//
// The fused variant stages bf16 partials, not f32 (README: half the bytes
// over NVLink, as NCCL's bf16 reduce-scatter moves; within the tolerance
// that bulk_sync's bf16 partials already need): a peer's tile goes, rounded
// to bf16, into slot `rank` of its owner's partial C (m x n, W slots of
// m/W x n), raises ready[t][rank] there, and the owner adds the partials in
// rank order to its own f32 accumulators, rounds once and stores its rows.
// fused_atomic adds f32 partials with atomics as the portable kernel does.
// Flags count 128x256 tiles: ready at t_local W + source, done at
// tiles_per_rank W + p.
//
// GPU-only hazards, which CPU ranks cannot show:
//   - TMA reads only A_r and B_r, this rank's own inputs written before the
//     launch; the data that arrives from peers (the staging slots, the
//     accumulator) is read with generic loads after the flag's acquire and
//     a workgroup barrier. Were it read by TMA or wgmma (the async proxy),
//     the acquire would have to come before the TMA is issued and be
//     followed by fence.proxy.async, since peers write it through the
//     generic proxy.
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
//   - A ready flag is raised, and a done count added, only after every
//     thread's fence.sc.sys (symm.fence release system) and a workgroup
//     barrier; a block waits only after all its pushes (own tiles come
//     last), so the co-resident grid cannot deadlock.

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!descA = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x256xbf16, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!epiStore = memref<64x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>
!epiLoad = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @gemm_reduce_scatter_hopper {
  // Sizes: m a multiple of 128 x W, n a multiple of 256, k (this rank's
  // share of K) a multiple of 64; %variant as in gemm_reduce_scatter.mlir:
  // 0 bulk_sync (the bf16 partial into %c, m x n), 1 fused (a peer's tile as
  // bf16 into its owner's %c, slot `rank`; an own tile summed into %out,
  // m/W x n), 2 fused_atomic (a peer's tile added with f32 atomics into its
  // owner's %sums, m/W x n; an own tile summed with it, which it clears).
  // In the fused variants all blocks must be co-resident.
  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xi16, #symm.heap>,
                 %out: memref<?xi16, #symm.heap>, %sums: memref<?xf32, #symm.heap>,
                 %flags: memref<?xi32, #symm.heap>, %m: index, %n: index, %k: index,
                 %epoch: i32, %variant: i32, %tmaA: !tmA, %tmaB: !tmB)
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

    %v0 = arith.constant 0 : i32
    %v2 = arith.constant 2 : i32
    %one = arith.constant 1 : i32
    %fused = arith.cmpi ne, %variant, %v0 : i32
    %atomic = arith.cmpi eq, %variant, %v2 : i32
    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %world = arith.index_cast %w32 : i32 to index
    %mr = arith.divui %m, %world : index
    %rankRows = arith.divui %tilesM, %world : index
    %perRank = arith.divui %tiles, %world : index
    %doneBase = arith.muli %perRank, %world : index
    %zero = arith.constant dense<0.0> : vector<8xf32>

    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %stepsDone = scf.for %vt = %bid to %tiles step %grid iter_args(%done = %c0) -> (index) {
      // The owners' row blocks one after the other: in order for bulk_sync,
      // from the next rank round to this one for the fused variants.
      %block = arith.divui %vt, %perRank : index
      %u = arith.remui %vt, %perRank : index
      %after = arith.addi %me, %c1 : index
      %jr0 = arith.addi %after, %block : index
      %jr = arith.remui %jr0, %world : index
      %owner = arith.select %fused, %jr, %block : index
      %group = arith.divui %u, %groupTiles : index
      %firstM = arith.muli %group, %c8 : index
      %rowsLeft = arith.subi %rankRows, %firstM : index
      %groupRows = arith.minui %rowsLeft, %c8 : index
      %inGroup = arith.remui %u, %groupTiles : index
      %tmOff = arith.remui %inGroup, %groupRows : index
      %tmLocal = arith.addi %firstM, %tmOff : index
      %tn = arith.divui %inGroup, %groupRows : index
      %ownerRows = arith.muli %owner, %rankRows : index
      %tm = arith.addi %ownerRows, %tmLocal : index
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index
      // The tile's index among its owner's tiles, which its flags use.
      %tRow = arith.muli %tmLocal, %tilesN : index
      %tLocal = arith.addi %tRow, %tn : index

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
      %mine = arith.cmpi eq, %owner, %me : index
      %ownFused = arith.andi %fused, %mine : i1
      %theirs = arith.cmpi ne, %owner, %me : index
      %toOwner = arith.andi %fused, %theirs : i1
      %readyBase = arith.muli %tLocal, %world : index
      // An own tile waits for every peer's partial (there already, mostly:
      // the peers computed it first); the producer's first thread waits
      // while the consumers finish the tile's MMAs.
      %waits = arith.andi %ownFused, %isFirst : i1
      scf.if %waits {
        scf.for %p = %c0 to %world step %c1 {
          %peer = arith.cmpi ne, %p, %me : index
          scf.if %peer {
            %f = arith.addi %readyBase, %p : index
            %seen = symm.wait %flags[%f] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
          }
        }
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
          %gr = arith.addi %gRowBase, %r : index
          %gc = arith.addi %n0, %col : index
          // The row within its owner's block.
          %ownerFirst = arith.muli %owner, %mr : index
          %lrow = arith.subi %gr, %ownerFirst : index
          %lrowStart = arith.muli %lrow, %n : index
          %o = arith.addi %lrowStart, %gc : index
          scf.if %ownFused {
            // The partials in rank order (this rank's from the accumulators,
            // the peers' from their slots), or this rank's plus the atomic
            // accumulator, which it clears for the next launch; rounded
            // once.
            %sum = scf.if %atomic -> (vector<8xf32>) {
              %others = vector.load %sums[%o] {alignment = 16} : memref<?xf32, #symm.heap>, vector<8xf32>
              vector.store %zero, %sums[%o] {alignment = 16} : memref<?xf32, #symm.heap>, vector<8xf32>
              %s = arith.addf %v, %others : vector<8xf32>
              scf.yield %s : vector<8xf32>
            } else {
              %s = scf.for %p = %c0 to %world step %c1 iter_args(%partial = %zero) -> (vector<8xf32>) {
                %peer = arith.cmpi ne, %p, %me : index
                %part = scf.if %peer -> (vector<8xf32>) {
                  %slotRows = arith.muli %p, %mr : index
                  %srow = arith.addi %slotRows, %lrow : index
                  %srowStart = arith.muli %srow, %n : index
                  %si = arith.addi %srowStart, %gc : index
                  %pbits = vector.load %c[%si] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
                  %pb = arith.bitcast %pbits : vector<8xi16> to vector<8xbf16>
                  %pf = arith.extf %pb : vector<8xbf16> to vector<8xf32>
                  scf.yield %pf : vector<8xf32>
                } else {
                  scf.yield %v : vector<8xf32>
                }
                %added = arith.addf %partial, %part : vector<8xf32>
                scf.yield %added : vector<8xf32>
              }
              scf.yield %s : vector<8xf32>
            }
            %sb = arith.truncf %sum : vector<8xf32> to vector<8xbf16>
            %sbits = arith.bitcast %sb : vector<8xbf16> to vector<8xi16>
            vector.store %sbits, %out[%o] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
          } else {
            // C and the slots hold bf16 bits, as in gemm_reduce_scatter.mlir.
            %vb = arith.truncf %v : vector<8xf32> to vector<8xbf16>
            %bits = arith.bitcast %vb : vector<8xbf16> to vector<8xi16>
            scf.if %toOwner {
              %owner32 = arith.index_cast %owner : index to i32
              scf.if %atomic {
                scf.for %e = %c0 to %c8 step %c1 {
                  %x = vector.extract %v[%e] : f32 from vector<8xf32>
                  %ai = arith.addi %o, %e : index
                  %old = symm.atomic_rmw fadd %x, %sums[%ai] on %owner32 ordering(relaxed) scope(system) : f32 -> memref<?xf32, #symm.heap>
                }
              } else {
                %slotRows = arith.muli %me, %mr : index
                %srow = arith.addi %slotRows, %lrow : index
                %srowStart = arith.muli %srow, %n : index
                %si = arith.addi %srowStart, %gc : index
                symm.store %bits, %c[%si] to %owner32 : vector<8xi16> -> memref<?xi16, #symm.heap>
              }
            } else {
              %rowStart = arith.muli %gr, %n : index
              %idx = arith.addi %rowStart, %gc : index
              vector.store %bits, %c[%idx] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
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
      scf.if %fused {
        symm.fence ordering(release) scope(system)
        gpu.barrier
        scf.if %isFirst {
          scf.if %mine {
            // Reduced: the peers may overwrite their slots next launch.
            %doneAt = arith.addi %doneBase, %me : index
            scf.for %p = %c0 to %world step %c1 {
              %peer = arith.cmpi ne, %p, %me : index
              scf.if %peer {
                %p32 = arith.index_cast %p : index to i32
                symm.signal add %one, %flags[%doneAt] on %p32 scope(system) : i32 -> memref<?xi32, #symm.heap>
              }
            }
          } else {
            %owner32 = arith.index_cast %owner : index to i32
            %f = arith.addi %readyBase, %me : index
            symm.store %epoch, %flags[%f] to %owner32 ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
          }
        }
      }
      %doneNext = arith.addi %done, %kSteps : index
      scf.yield %doneNext : index
    }
    // Every owner has reduced this launch's tiles: the slots are free.
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %first0 = arith.andi %isFirst, %b0 : i1
    %lastWaiter = arith.andi %first0, %fused : i1
    scf.if %lastWaiter {
      %perRank32 = arith.index_cast %perRank : index to i32
      %expected = arith.muli %epoch, %perRank32 : i32
      scf.for %p = %c0 to %world step %c1 {
        %peer = arith.cmpi ne, %p, %me : index
        scf.if %peer {
          %f = arith.addi %doneBase, %p : index
          %seen = symm.wait %flags[%f] ge %expected scope(system) : memref<?xi32, #symm.heap> -> i32
        }
      }
    }
    gpu.return
  }
}
