// The Hopper kernel of C = Σ_r A_r·B_r with K split across the ranks (sm_90a;
// compiled for the host target too, where symm-convert-nvgpu-to-host lowers
// the nvgpu operations): gemm_reduce_scatter.cpp launches @gemm from here
// with --kernel=hopper.
//
// @gemm is built, as examples/gemm/gemm_hopper.mlir is, on the device library's
// Hopper GEMM tile (library/gemm_hopper.mlir): 128x256 tiles, 384 threads (a producer warpgroup whose first
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
//   - A ready flag is raised, and a done count added, only after
//     symm.release_barrier, by one thread's release at system scope, which
//     then covers every thread's stores; a block waits only after all its
//     pushes (own tiles come last), so the co-resident grid cannot
//     deadlock.

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 10>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!epi = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @gemm_reduce_scatter_hopper {
  // The device library's Hopper GEMM tile (library/gemm_hopper.mlir).
  func.func private @symm_gemm_hopper_setup(!tmA, !tmB) -> (!barriers, index)
  func.func private @symm_gemm_tile_order(index, index, index) -> (index, index)
  func.func private @symm_gemm_hopper_mainloop(!tmA, !tmB, !barriers, index, index, index, index, index) -> !acc
  func.func private @symm_gemm_hopper_stage(!acc, index) -> !epi
  func.func private @symm_gemm_hopper_staged(!epi, index) -> (index, index, vector<8xf32>)
  func.func private @symm_gemm_hopper_release()

  // Sizes: m a multiple of 128 x W, n a multiple of 256, k (this rank's
  // share of K) a multiple of 64; %variant as in gemm_reduce_scatter.mlir:
  // 0 bulk_sync (the bf16 partial into %c, m x n), 1 fused (a peer's tile as
  // bf16 into its owner's %c, slot `rank`; an own tile summed into %out,
  // m/W x n), 2 fused_atomic (a peer's tile added with f32 atomics into its
  // owner's %sums, m/W x n; an own tile summed with it, which it clears).
  // In the fused variants all blocks must be co-resident.
  // symm.co_resident: in the fused variants an owner waits for peers'
  // partials that other workgroups push, so every workgroup must be
  // resident (bulk_sync's grids are held to the same bound).
  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xi16, #symm.heap>,
                 %out: memref<?xi16, #symm.heap>, %sums: memref<?xf32, #symm.heap>,
                 %flags: memref<?xi32, #symm.heap>, %m: index, %n: index, %k: index,
                 %epoch: i32, %variant: i32, %tmaA: !tmA, %tmaB: !tmB)
      kernel attributes {known_block_size = array<i32: 384, 1, 1>, symm.co_resident} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %isFirst = arith.cmpi eq, %tid, %c0 : index
    %isConsumer = arith.cmpi ult, %tid, %c256 : index
    %tilesM = arith.divui %m, %c128 : index
    %tilesN = arith.divui %n, %c256 : index
    %tiles = arith.muli %tilesM, %tilesN : index
    %kSteps = arith.divui %k, %c64 : index
    %bar, %ring = func.call @symm_gemm_hopper_setup(%tmaA, %tmaB) : (!tmA, !tmB) -> (!barriers, index)

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
      %tmLocal, %tn = func.call @symm_gemm_tile_order(%u, %rankRows, %tilesN) : (index, index, index) -> (index, index)
      %ownerRows = arith.muli %owner, %rankRows : index
      %tm = arith.addi %ownerRows, %tmLocal : index
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index
      // The tile's index among its owner's tiles, which its flags use.
      %tRow = arith.muli %tmLocal, %tilesN : index
      %tLocal = arith.addi %tRow, %tn : index

      %accOut = func.call @symm_gemm_hopper_mainloop(%tmaA, %tmaB, %bar, %ring, %m0, %n0, %kSteps, %done)
          : (!tmA, !tmB, !barriers, index, index, index, index, index) -> !acc
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
      %epi = func.call @symm_gemm_hopper_stage(%accOut, %ring) : (!acc, index) -> !epi
      scf.if %isConsumer {
        scf.for %i = %c0 to %c16 step %c1 {
          %r, %col, %v = func.call @symm_gemm_hopper_staged(%epi, %i) : (!epi, index) -> (index, index, vector<8xf32>)
          %gr = arith.addi %m0, %r : index
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
      }
      func.call @symm_gemm_hopper_release() : () -> ()
      scf.if %fused {
        symm.release_barrier scope(system)
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
