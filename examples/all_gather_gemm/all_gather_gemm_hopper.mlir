// The all-gather + GEMM workload's Hopper kernel (sm_90a): C = gather(A) · B
// with the device library's Hopper GEMM tile (library/gemm_hopper.mlir: TMA,
// mbarriers, warpgroup MMA; read its header first), for every variant of
// all_gather_gemm.mlir (whose header explains the variants, the flags and
// the epochs). all_gather_gemm.cpp launches it for --kernel=hopper.
//
// ABI: @all_gather_gemm(a_shard, a_full, b, c, flags, m, n, k, epoch,
// source, producers, consumers, tmaA0 .. tmaA7, tmaB); 384 threads, 197632
// bytes of dynamic shared memory; 128 x 256 tiles of the padded A (any M >=
// 1, row blocks as in all_gather_gemm.mlir), N and K multiples of 8 (TMA
// strides; the boxes read zeros past N and K, and the stores stop at C's
// rows and columns), and W <= 8. `source` and `producers` are the portable
// kernel's (0 gathered, 1 pull, 2 pushed; workgroups 0 .. producers-1 copy
// this rank's shard into the peers' a_full). tmaA<q> (q < W) is a
// descriptor over rank q's P·128 rows of A (its padded shard), wherever this
// variant reads them, with a 128 x 64 box; the kernel loads row block rb
// from tmaA<owner> at the block's row within its owner's rows:
//   bulk_sync  rank q's rows of a_full (gathered beforehand)
//   pull       rank q's a_shard itself, through the symm_translate'd
//              pointer: TMA reads the peer's memory over NVLink
//   push/fused this rank's a_shard for its own rows, the rows of a_full the
//              peers push into for theirs
// tmaB is gemm_hopper's B descriptor.
//
// What differs from examples/gemm/gemm_hopper.mlir:
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
// copy and the proxy fences as no-ops; and with two ranks time-sharing one
// GPU, the variants that wait fault: docs/Workloads.md):
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
!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 10>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!epi = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @all_gather_gemm_hopper {
  // The device library's Hopper GEMM tile (library/gemm_hopper.mlir).
  func.func private @symm_gemm_hopper_setup(!tmA, !tmB) -> (!barriers, index)
  func.func private @symm_gemm_tile_order(index, index, index) -> (index, index)
  func.func private @symm_gemm_hopper_mainloop(!tmA, !tmB, !barriers, index, index, index, index, index) -> !acc
  func.func private @symm_gemm_hopper_stage(!acc, index) -> !epi
  func.func private @symm_gemm_hopper_store_part(!epi, memref<?xbf16>, index, index, index, index, index)
  func.func private @symm_gemm_hopper_release()
  func.func private @symm_gemm_hopper_loader() -> i1
  // The device library's all-gather push of row blocks (library/tiles.mlir).
  func.func private @symm_push_row_blocks(!heap, !heap, !flags, index, index, i32, index, index, index)
  func.func private @symm_row_blocks(index) -> (index, index, index)
  func.func private @symm_row_block_rows(index, index) -> (index, index)

  // Rank q's A descriptor.
  func.func private @a_descriptor(%q: index, %tmaA0: !tmA, %tmaA1: !tmA, %tmaA2: !tmA, %tmaA3: !tmA, %tmaA4: !tmA, %tmaA5: !tmA, %tmaA6: !tmA, %tmaA7: !tmA) -> !tmA {
    %d = scf.index_switch %q -> !tmA
    case 0 {
      scf.yield %tmaA0 : !tmA
    }
    case 1 {
      scf.yield %tmaA1 : !tmA
    }
    case 2 {
      scf.yield %tmaA2 : !tmA
    }
    case 3 {
      scf.yield %tmaA3 : !tmA
    }
    case 4 {
      scf.yield %tmaA4 : !tmA
    }
    case 5 {
      scf.yield %tmaA5 : !tmA
    }
    case 6 {
      scf.yield %tmaA6 : !tmA
    }
    default {
      scf.yield %tmaA7 : !tmA
    }
    return %d : !tmA
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
    %c64 = arith.constant 64 : index
    %c63 = arith.constant 63 : index
    %c128 = arith.constant 128 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %isFirst = arith.cmpi eq, %tid, %c0 : index
    // Row blocks of the padded A (the library's @symm_row_blocks: each
    // rank's rows in whole blocks); columns and K steps past N and K read
    // zeros (the TMA boxes' out-of-bounds fill) and are not stored.
    %s, %perRank, %mp = func.call @symm_row_blocks(%m) : (index) -> (index, index, index)
    %tilesM = arith.divui %mp, %c128 : index
    %nUp = arith.addi %n, %c255 : index
    %tilesN = arith.divui %nUp, %c256 : index
    %tiles = arith.muli %tilesM, %tilesN : index
    %kUp = arith.addi %k, %c63 : index
    %kSteps = arith.divui %kUp, %c64 : index

    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %w = arith.index_cast %w32 : i32 to index
    %shardRows = arith.muli %perRank, %c128 : index
    %firstRb = arith.muli %me, %perRank : index

    %bar, %ring = func.call @symm_gemm_hopper_setup(%tmaA0, %tmaB) : (!tmA, !tmB) -> (!barriers, index)
    scf.if %isFirst {
      scf.for %q = %c1 to %w step %c1 {
        %d = func.call @a_descriptor(%q, %tmaA0, %tmaA1, %tmaA2, %tmaA3, %tmaA4, %tmaA5, %tmaA6, %tmaA7) : (index, !tmA, !tmA, !tmA, !tmA, !tmA, !tmA, !tmA, !tmA) -> !tmA
        nvgpu.tma.prefetch.descriptor %d : !tmA
      }
    }

    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %produce = arith.cmpi ult, %bid, %producers : index
    scf.if %produce {
      // Copying workgroup: work items bid, bid + producers, ..., as in the
      // portable kernel (the library's all-gather push of row blocks).
      func.call @symm_push_row_blocks(%a_shard, %a_full, %flags, %mp, %k, %epoch, %consumers, %bid, %producers)
          : (!heap, !heap, !flags, index, index, i32, index, index, index) -> ()
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
      // flags[W P + W], instead of by workgroup id: a workgroup that
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
        %tmRot, %tn = func.call @symm_gemm_tile_order(%t, %tilesM, %tilesN) : (index, index, index) -> (index, index)
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

        // The peer's rows are in place (acquire), and the TMA's reads (the
        // async proxy) are ordered after that: the thread that issues them
        // waits.
        %loader = func.call @symm_gemm_hopper_loader() : () -> i1
        %waitHere = arith.andi %mustWait, %loader : i1
        scf.if %waitHere {
          %seen = symm.wait %flags[%flag] ge %epoch scope(system) : !flags -> i32
          nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
        }
        %tmaA = func.call @a_descriptor(%owner, %tmaA0, %tmaA1, %tmaA2, %tmaA3, %tmaA4, %tmaA5, %tmaA6, %tmaA7) : (index, !tmA, !tmA, !tmA, !tmA, !tmA, !tmA, !tmA, !tmA) -> !tmA
        %accOut = func.call @symm_gemm_hopper_mainloop(%tmaA, %tmaB, %bar, %ring, %arow0, %n0, %kSteps, %done)
            : (!tmA, !tmB, !barriers, index, index, index, index, index) -> !acc
        %epi = func.call @symm_gemm_hopper_stage(%accOut, %ring) : (!acc, index) -> !epi
        %cm0, %crows = func.call @symm_row_block_rows(%tm, %m) : (index, index) -> (index, index)
        %colsLeft = arith.subi %n, %n0 : index
        %ccols = arith.minui %colsLeft, %c256 : index
        func.call @symm_gemm_hopper_store_part(%epi, %c, %cm0, %n0, %n, %crows, %ccols)
            : (!epi, memref<?xbf16>, index, index, index, index, index) -> ()
        func.call @symm_gemm_hopper_release() : () -> ()
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
