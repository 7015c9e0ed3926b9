// The Hopper kernels of C = A·B with B split along N (sm_90a; compiled for
// the host target too, where symm-convert-nvgpu-to-host lowers the nvgpu
// operations): gemm_all_scatter.cpp launches @gemm from here with
// --kernel=hopper, and the portable module's @push and @assemble beside it.
//
// @gemm is built, as examples/gemm/gemm_hopper.mlir is, on the device library's
// Hopper GEMM tile (library/gemm_hopper.mlir): 128x256 tiles, 384 threads (a producer warpgroup whose first
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
//     or an arrival is raised only after symm.release_barrier, by one
//     thread's release at system scope, which then covers every thread's
//     stores, so a receiver that acquires it sees the whole tile.
//   - wg_specialized's pushers spin while the compute blocks run: the
//     compute blocks never wait on anyone, so every launch finishes even
//     when pushers are not resident (--grid above the resident blocks).

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 10>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!epi = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @gemm_all_scatter_hopper {
  // The device library's tile signalling (tiles.mlir).
  func.func private @symm_announce(memref<?xi32, #symm.heap>, i32)
  func.func private @symm_await_arrivals(memref<?xi32, #symm.heap>, i32)
  func.func private @symm_push_tiles(memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>, index, index, index, index, i32, index, index)
  // The device library's Hopper GEMM tile (library/gemm_hopper.mlir).
  func.func private @symm_gemm_hopper_setup(!tmA, !tmB) -> (!barriers, index)
  func.func private @symm_gemm_tile_order(index, index, index) -> (index, index)
  func.func private @symm_gemm_hopper_mainloop(!tmA, !tmB, !barriers, index, index, index, index, index) -> !acc
  func.func private @symm_gemm_hopper_stage(!acc, index) -> !epi
  func.func private @symm_gemm_hopper_staged(!epi, index) -> (index, index, vector<8xf32>)
  func.func private @symm_gemm_hopper_release()

  // Sizes: m a multiple of 128, n (this rank's columns of B and of C) a
  // multiple of 256, k a multiple of 64; C is m x ldc with this rank's block
  // at columns coloff ... %variant picks the epilogue as in
  // gemm_all_scatter.mlir's @gemm: 0 bulk_sync (tiles into C), 1
  // producer_consumer (tiles into C, then their flags = epoch), 2
  // fused_sequential (tiles into C and every peer's C, announced; the launch
  // ends when the peers' tiles have landed), 3 wg_specialized (blocks below
  // %compute_grid compute like 1, the others push; ends like 2).
  // symm.co_resident: in fused_sequential every workgroup ends waiting for
  // the tiles the peers' workgroups push, so all must be resident at once
  // (the other variants' grids are held to the same bound).
  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xi16, #symm.heap>,
                 %flags: memref<?xi32, #symm.heap>, %arrivals: memref<?xi32, #symm.heap>,
                 %m: index, %n: index, %k: index, %ldc: index, %coloff: index,
                 %epoch: i32, %variant: i32, %compute_grid: index, %tmaA: !tmA, %tmaB: !tmB)
      kernel attributes {known_block_size = array<i32: 384, 1, 1>, symm.co_resident} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %isFirst = arith.cmpi eq, %tid, %c0 : index
    %isConsumer = arith.cmpi ult, %tid, %c256 : index
    // Any M: the bottom tile row's boxes read zeros past A's last row, and
    // its stores stop at C's.
    %c127 = arith.constant 127 : index
    %mUp = arith.addi %m, %c127 : index
    %tilesM = arith.divui %mUp, %c128 : index
    %tilesN = arith.divui %n, %c256 : index
    %tiles = arith.muli %tilesM, %tilesN : index
    %kSteps = arith.divui %k, %c64 : index
    %bar, %ring = func.call @symm_gemm_hopper_setup(%tmaA, %tmaB) : (!tmA, !tmB) -> (!barriers, index)

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
      // What a trace shows (symm-compile --trace); nothing otherwise.
      symm.trace.begin "tile" (%t)
      %tm, %tn = func.call @symm_gemm_tile_order(%t, %tilesM, %tilesN) : (index, index, index) -> (index, index)
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index
      %accOut = func.call @symm_gemm_hopper_mainloop(%tmaA, %tmaB, %bar, %ring, %m0, %n0, %kSteps, %done)
          : (!tmA, !tmB, !barriers, index, index, index, index, index) -> !acc
      symm.trace.begin "epilogue" (%t)
      %epi = func.call @symm_gemm_hopper_stage(%accOut, %ring) : (!acc, index) -> !epi
      scf.if %isConsumer {
        scf.for %i = %c0 to %c16 step %c1 {
          %r, %col, %v = func.call @symm_gemm_hopper_staged(%epi, %i) : (!epi, index) -> (index, index, vector<8xf32>)
          %vb = arith.truncf %v : vector<8xf32> to vector<8xbf16>
          // C holds bf16 bits, as in gemm_all_scatter.mlir's @emit.
          %bits = arith.bitcast %vb : vector<8xbf16> to vector<8xi16>
          %gr = arith.addi %m0, %r : index
          %tc = arith.addi %n0, %col : index
          %gc = arith.addi %coloff, %tc : index
          %rowStart = arith.muli %gr, %ldc : index
          %idx = arith.addi %rowStart, %gc : index
          %inC = arith.cmpi ult, %gr, %m : index
          scf.if %inC {
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
        }
      }
      func.call @symm_gemm_hopper_release() : () -> ()
      symm.trace.end "epilogue"
      scf.if %toPeers {
        func.call @symm_announce(%arrivals, %v2) : (memref<?xi32, #symm.heap>, i32) -> ()
      }
      scf.if %flagTiles {
        symm.release_barrier scope(system)
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
      symm.trace.end "tile"
      scf.yield %doneNext : index
    }
    %pushes = arith.cmpi uge, %bid, %compute_grid : index
    scf.if %pushes {
      %pusher = arith.subi %bid, %compute_grid : index
      %pushers = arith.subi %grid, %compute_grid : index
      symm.trace.begin "push"
      func.call @symm_push_tiles(%c, %flags, %arrivals, %m, %n, %ldc, %coloff, %epoch, %pusher, %pushers)
          : (memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>,
             index, index, index, index, i32, index, index) -> ()
      symm.trace.end "push"
    }
    scf.if %awaits {
      %halves32 = arith.index_cast %halves : index to i32
      %expected = arith.muli %epoch, %halves32 : i32
      func.call @symm_await_arrivals(%arrivals, %expected) : (memref<?xi32, #symm.heap>, i32) -> ()
    }
    gpu.return
  }
}
