// The all-gather + GEMM workload's Hopper kernel (sm_90a): C = gather(A) · B
// with the main loop of examples/gemm/gemm_hopper.mlir (TMA, mbarriers,
// warpgroup MMA; read its header first), for every variant of
// all_gather_gemm.mlir (whose header explains the variants, the flags and
// the epochs). all_gather_gemm.cpp launches it for --kernel=hopper.
//
// ABI: @all_gather_gemm(a_shard, a_full, b, c, flags, m, n, k, epoch,
// source, producers, consumers, tmaA0 .. tmaA7, tmaB); 384 threads, 197632
// bytes of dynamic shared memory; 128 x 256 tiles, so M % (128 W) == 0,
// N % 256 == 0, K % 64 == 0, and W <= 8. `source` and `producers` are the
// portable kernel's (0 gathered, 1 pull, 2 pushed; workgroups 0 ..
// producers-1 copy this rank's shard into the peers' a_full). tmaA<q>
// (q < W) is a descriptor over rank q's M/W rows of A, wherever this
// variant reads them, with a 128 x 64 box; the kernel loads row block rb
// from tmaA<owner> at the block's row within its owner's rows:
//   bulk_sync  rank q's rows of a_full (gathered beforehand)
//   pull       rank q's a_shard itself, through the symm_translate'd
//              pointer: TMA reads the peer's memory over NVLink
//   push/fused this rank's a_shard for its own rows, the rows of a_full the
//              peers push into for theirs
// tmaB is gemm_hopper's B descriptor.
//
// What differs from gemm_hopper.mlir (the rest is its text):
// - Copying workgroups (bid < producers) run the portable kernel's copy
//   loop instead of the GEMM (after the common barrier set-up).
// - Tile order: gemm_hopper's groups of 8 tile rows, over row blocks
//   rotated to start at this rank's own (rank r: its first row block, then
//   the next ones, wrapping), so every block starts on rows that need no
//   peer and the ranks read from different peers at a time.
// - Which tiles a workgroup takes: the next in that order, from a ticket
//   counter in the flags (thread 0 draws, a workgroup-memory slot and a
//   barrier share it), instead of tiles b, b + G, ...: push's copy kernel
//   and fused's copying workgroups hold SMs at first (a workgroup of this
//   kernel fills an SM), and the GEMM workgroups that start when they are
//   done take only the tiles left.
// - The A box comes from tmaA<owner> (an scf.index_switch around the TMA
//   load), and all W descriptors are prefetched.
// - Before the first TMA of a tile whose rows come from a peer (pull: its
//   ready[owner]; push, fused: ready[row block]) the producer thread waits
//   for the flag (symm.wait, acquire at system scope) and then issues
//   fence.proxy.async.global.
// - pull announces ready[me] on every peer as the kernel starts; push and
//   fused count drained[me] on every peer once a workgroup's tiles are done
//   (both as in the portable kernel).
//
// GPU-only hazards (the CPU target cannot show them; it runs TMA as a plain
// copy and the proxy fences as no-ops):
// - A peer's rows are written by the generic proxy (the peer's SM stores
//   of symm.put, or, for pull, the peer's stream before its kernel began)
//   and read here by the async proxy (TMA). The acquire load of the flag
//   orders the generic proxy only; fence.proxy.async.global after it, in
//   the same thread and before the TMA is issued, extends that order to
//   the TMA's reads. Issuing the TMA before the flag is seen, or without
//   the fence, may load stale rows (NaNs after the reset) on a GPU.
// - Only the producer thread waits: the consumers wait on the stage's full
//   mbarrier as always, which completes only after the TMA wrote the box;
//   wgmma reads workgroup memory through the async proxy and is ordered by
//   that mbarrier, as in gemm_hopper.
// - drained: a workgroup's last TMA reads of a_full have completed (their
//   bytes completed the full mbarriers its consumers waited on) before the
//   final workgroup barrier; thread 0 then fences the async proxy and
//   releases drained[me] on the peers, which may overwrite a_full in the
//   next epoch with generic stores.
// - The epilogue reuses the ring as f32 staging with gemm_hopper's three
//   workgroup barriers per tile; the copy workgroups never touch it.
// - Copying workgroups have the lowest ids and so get SMs first; GEMM
//   workgroups wait only for peers' copying workgroups, so those beyond
//   the SMs left wait for an SM, not for each other. The ticket counter is
//   local and only needs to hand each tile out once (relaxed, device
//   scope); launch e starts at (e - 1)(tiles + G) since every workgroup
//   draws one ticket past the last tile.

!heap = memref<?xbf16, #symm.heap>
!flags = memref<?xi32, #symm.heap>
!slice = memref<?xbf16, strided<[1], offset: ?>, #symm.heap>
!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!descA = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xbf16, 3>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x256xbf16, 3>>
!smem = memref<?xi8, #gpu.address_space<workgroup>>
!epiStore = memref<64x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>
!epiLoad = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @all_gather_gemm_hopper {
  // Producer work item u, as in all_gather_gemm.mlir: this rank's row
  // block u / (W - 1) for peer me + 1 + u mod (W - 1); the peer, the row
  // block, drained[peer]'s index and the value it must reach, and the
  // 128 x k rows in this rank's shard and in the peer's a_full.
  func.func @push_item(%u: index, %a_shard: !heap, %a_full: !heap,
                       %m: index, %k: index, %epoch: i32, %consumers: index)
      -> (i32, index, index, i32, !slice, !slice) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c1_i32 = arith.constant 1 : i32
    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %w = arith.index_cast %w32 : i32 to index
    %tm = arith.divui %m, %c128 : index
    %per_rank = arith.divui %tm, %w : index
    %peers = arith.subi %w, %c1 : index
    %lb = arith.divui %u, %peers : index
    %po = arith.remui %u, %peers : index
    %po1 = arith.addi %po, %c1 : index
    %pm = arith.addi %me, %po1 : index
    %p = arith.remui %pm, %w : index
    %p32 = arith.index_cast %p : index to i32
    %rb0 = arith.muli %me, %per_rank : index
    %rb = arith.addi %rb0, %lb : index
    %drained = arith.addi %tm, %p : index
    %e1 = arith.subi %epoch, %c1_i32 : i32
    %cons32 = arith.index_cast %consumers : index to i32
    %want = arith.muli %e1, %cons32 : i32
    %rows = arith.muli %c128, %k : index
    %src_off = arith.muli %lb, %rows : index
    %dst_off = arith.muli %rb, %rows : index
    %src = memref.subview %a_shard[%src_off] [%rows] [1] : !heap to !slice
    %dst = memref.subview %a_full[%dst_off] [%rows] [1] : !heap to !slice
    return %p32, %rb, %drained, %want, %src, %dst : i32, index, index, i32, !slice, !slice
  }

  gpu.func @all_gather_gemm(%a_shard: !heap, %a_full: !heap,
                            %b: memref<?xbf16>, %c: memref<?xbf16>,
                            %flags: !flags, %m: index, %n: index, %k: index,
                            %epoch: i32, %source: index, %producers: index,
                            %consumers: index, %tmaA0: !tmA, %tmaA1: !tmA, %tmaA2: !tmA, %tmaA3: !tmA, %tmaA4: !tmA, %tmaA5: !tmA, %tmaA6: !tmA, %tmaA7: !tmA, %tmaB: !tmB)
      workgroup(%ticket: memref<1xi32, #gpu.address_space<workgroup>>)
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
    %one = arith.constant 1 : i32
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

    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %w = arith.index_cast %w32 : i32 to index
    %perRank = arith.divui %tilesM, %w : index
    %shardRows = arith.muli %perRank, %c128 : index
    %firstRb = arith.muli %me, %perRank : index

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
      scf.for %q = %c0 to %w step %c1 {
        scf.index_switch %q
        case 0 {
          nvgpu.tma.prefetch.descriptor %tmaA0 : !tmA
          scf.yield
        }
        case 1 {
          nvgpu.tma.prefetch.descriptor %tmaA1 : !tmA
          scf.yield
        }
        case 2 {
          nvgpu.tma.prefetch.descriptor %tmaA2 : !tmA
          scf.yield
        }
        case 3 {
          nvgpu.tma.prefetch.descriptor %tmaA3 : !tmA
          scf.yield
        }
        case 4 {
          nvgpu.tma.prefetch.descriptor %tmaA4 : !tmA
          scf.yield
        }
        case 5 {
          nvgpu.tma.prefetch.descriptor %tmaA5 : !tmA
          scf.yield
        }
        case 6 {
          nvgpu.tma.prefetch.descriptor %tmaA6 : !tmA
          scf.yield
        }
        default {
          nvgpu.tma.prefetch.descriptor %tmaA7 : !tmA
          scf.yield
        }
      }
      nvgpu.tma.prefetch.descriptor %tmaB : !tmB
    }
    gpu.barrier

    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %produce = arith.cmpi ult, %bid, %producers : index
    scf.if %produce {
      // Copying workgroup: work items bid, bid + producers, ... (see
      // @push_item), as in the portable kernel.
      %peers = arith.subi %w, %c1 : index
      %items = arith.muli %perRank, %peers : index
      scf.for %u = %bid to %items step %producers {
        %p, %rb, %drained, %want, %src, %dst = func.call @push_item(%u, %a_shard, %a_full, %m, %k, %epoch, %consumers)
            : (index, !heap, !heap, index, index, i32, index) -> (i32, index, index, i32, !slice, !slice)
        scf.if %isFirst {
          %seen = symm.wait %flags[%drained] ge %want scope(system) : !flags -> i32
        }
        gpu.barrier
        symm.put %src to %dst on %p signal(set %epoch, %flags[%rb] : !flags) scope(system) : !slice -> !slice
      }
    } else {
      %cb0 = arith.subi %bid, %producers : index
      %g = arith.subi %grid, %producers : index
      %pull = arith.cmpi eq, %source, %c1 : index
      %pushed = arith.cmpi eq, %source, %c2 : index
      // pull: this rank's shard of this epoch is in place for the peers.
      %b0 = arith.cmpi eq, %cb0, %c0 : index
      %lead = arith.andi %b0, %isFirst : i1
      %announce = arith.andi %pull, %lead : i1
      scf.if %announce {
        scf.for %q = %c0 to %w step %c1 {
          %peer = arith.cmpi ne, %q, %me : index
          scf.if %peer {
            %q32 = arith.index_cast %q : index to i32
            symm.signal set %epoch, %flags[%me] on %q32 scope(system) : i32 -> !flags
          }
        }
      }

      // Tiles are handed out in this rank's order from a ticket counter,
      // flags[M/128 + W], instead of by workgroup id: a workgroup that
      // starts late, on an SM the copies held, takes fewer tiles. Launch e
      // draws tickets from (e - 1)(tiles + G) on: one per tile, and one per
      // workgroup that finds none left.
      %ticketIdx = arith.addi %tilesM, %w : index
      %epochIdx = arith.index_cast %epoch : i32 to index
      %launchesBefore = arith.subi %epochIdx, %c1 : index
      %perLaunch = arith.addi %tiles, %g : index
      %ticketBase = arith.muli %launchesBefore, %perLaunch : index
      %stepsDone:2 = scf.while (%done = %c0) : (index) -> (index, index) {
        scf.if %isFirst {
          %drawn = symm.atomic_rmw add %one, %flags[%ticketIdx] ordering(relaxed) scope(device) : i32 -> !flags
          memref.store %drawn, %ticket[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
        }
        // Thread 0 writes the slot again only after the tile's barriers,
        // when every thread has read it.
        gpu.barrier
        %drawn32 = memref.load %ticket[%c0] : memref<1xi32, #gpu.address_space<workgroup>>
        %drawnIdx = arith.index_cast %drawn32 : i32 to index
        %t = arith.subi %drawnIdx, %ticketBase : index
        %more = arith.cmpi ult, %t, %tiles : index
        scf.condition(%more) %done, %t : index, index
      } do {
      ^bb0(%done: index, %t: index):
        %group = arith.divui %t, %groupTiles : index
        %firstM = arith.muli %group, %c8 : index
        %rowsLeft = arith.subi %tilesM, %firstM : index
        %groupRows = arith.minui %rowsLeft, %c8 : index
        %inGroup = arith.remui %t, %groupTiles : index
        %tmOff = arith.remui %inGroup, %groupRows : index
        %tmRot = arith.addi %firstM, %tmOff : index
        %tn = arith.divui %inGroup, %groupRows : index
        // Row blocks in this rank's order: its own first.
        %tmAbs = arith.addi %tmRot, %firstRb : index
        %tm = arith.remui %tmAbs, %tilesM : index
        %m0 = arith.muli %tm, %c128 : index
        %n0 = arith.muli %tn, %c256 : index
        // The A rows' owner, their first row among the owner's, and the
        // flag a peer's rows wait for.
        %owner = arith.divui %tm, %perRank : index
        %ownerRow0 = arith.muli %owner, %shardRows : index
        %arow0 = arith.subi %m0, %ownerRow0 : index
        %theirs = arith.cmpi ne, %owner, %me : index
        %fromPeer = arith.ori %pull, %pushed : i1
        %mustWait = arith.andi %theirs, %fromPeer : i1
        %flag = arith.select %pull, %owner, %tm : index

        %accOut = scf.if %isProducer -> (!acc) {
          scf.if %isLeader {
            // The peer's rows are in place (acquire), and the TMA's reads
            // (the async proxy) are ordered after that.
            scf.if %mustWait {
              %seen = symm.wait %flags[%flag] ge %epoch scope(system) : !flags -> i32
              nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
            }
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
              scf.index_switch %owner
              case 0 {
                nvgpu.tma.async.load %tmaA0[%kc, %arow0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
                scf.yield
              }
              case 1 {
                nvgpu.tma.async.load %tmaA1[%kc, %arow0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
                scf.yield
              }
              case 2 {
                nvgpu.tma.async.load %tmaA2[%kc, %arow0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
                scf.yield
              }
              case 3 {
                nvgpu.tma.async.load %tmaA3[%kc, %arow0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
                scf.yield
              }
              case 4 {
                nvgpu.tma.async.load %tmaA4[%kc, %arow0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
                scf.yield
              }
              case 5 {
                nvgpu.tma.async.load %tmaA5[%kc, %arow0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
                scf.yield
              }
              case 6 {
                nvgpu.tma.async.load %tmaA6[%kc, %arow0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
                scf.yield
              }
              default {
                nvgpu.tma.async.load %tmaA7[%kc, %arow0], %bar[%s] to %aDst : !tmA, !barriers -> memref<128x64xbf16, #gpu.address_space<workgroup>>
                scf.yield
              }
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
            %dA = nvgpu.warpgroup.generate.descriptor %aTile, %tmaA0 : memref<64x64xbf16, #gpu.address_space<workgroup>>, !tmA -> !descA
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
        }
        // The buffer is read before the next tile's TMA writes it.
        gpu.barrier
        %doneNext = arith.addi %done, %kSteps : index
        scf.yield %doneNext : index
      }

      // push, fused: every TMA read of this workgroup's peer rows has
      // completed (its consumers saw the bytes, then the barrier above):
      // count it on every peer, after ordering the async proxy's reads
      // before the release.
      %count = arith.andi %pushed, %isFirst : i1
      scf.if %count {
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
        %dr = arith.addi %tilesM, %me : index
        scf.for %q = %c0 to %w step %c1 {
          %peer = arith.cmpi ne, %q, %me : index
          scf.if %peer {
            %q32 = arith.index_cast %q : index to i32
            symm.signal add %one, %flags[%dr] on %q32 scope(system) : i32 -> !flags
          }
        }
      }
    }
    gpu.return
  }
}
