// Kernels of C = Σ_r A_r·B_r with K split across the ranks (rank r holds
// A_r, the M x K/W columns r of A, and B_r, the K/W x N rows r of B) where
// rank r ends with rows block r of C (M/W x N): the row-parallel linear
// layer followed by a reduce-scatter. Compiled by symm-compile for the host
// target, sm_90 and gfx942; gemm_reduce_scatter.cpp launches them. bf16 in
// memory, f16 x f16 -> f32 tensor-core fragments, bf16 out.
//
// The GEMM is the device library's portable tile (library/gemm.mlir), as in
// gemm_all_scatter.mlir: 128x128 tiles, 8 subgroups of 4x2 16x16 f32
// fragments (512 threads with AMD's wavefronts, which the kernel admits:
// ROCDL's default limit is 256), bf16 slices staged as f16 in
// double-buffered workgroup memory, persistent blocks;
// gemm_reduce_scatter_hopper.mlir pairs the Hopper GEMM's TMA + wgmma main
// loop with the same variants for sm_90a. Epilogues read each fragment back
// through a per-subgroup 16x16 f32 scratch (symm_gemm_fragment_row): lane
// l < 32 gets 8 consecutive elements of a row of C.
//
// @gemm's %variant:
//   0 (bulk_sync)  the partial tile, rounded to bf16, into this rank's
//                  full partial C (M x N); symm_reduce_scatter follows.
//   1 (fused)      tile t belongs to the rank owning its rows. A peer's
//                  tile goes from the scratch straight into the owner's
//                  staging slot for this rank (f32, 16-byte stores) and
//                  raises ready[t][rank] there; the owner, after its own
//                  main loop for the tile, waits for every peer's flag,
//                  adds the partials in rank order to its fragments, rounds
//                  once to bf16 and stores its rows of C, then adds 1 to
//                  done[rank] on every peer. Rank r walks the tiles from
//                  the end of its own rows, so the peers' tiles come first
//                  and its own (which wait) last; a block waits only after
//                  all its pushes, so the persistent grid (co-resident)
//                  cannot deadlock. A launch ends when every owner has
//                  reduced all its tiles (done[p] = epoch x tiles per
//                  rank), so the next launch may overwrite the slots.
//                  Staging slots beat atomics by design: a partial lands
//                  as plain 16-byte stores and is read once by its owner,
//                  where an f32 atomic add per element over NVLink moves
//                  4 bytes per transaction.
//   2 (fused_atomic) the same, but a peer's partial is added with f32
//                  atomics into the owner's accumulator %sums (mr x n, zero
//                  between launches: the owner reads and clears it before
//                  its done signal), recorded to measure that choice.
//
// Flags (i32, on every rank): ready at t_local * W + source (t_local: the
// tile's index among its owner's tiles), done at tiles_per_rank * W + p.
// Ready flags are set to the launch's epoch (1, 2, ...), done counts grow.
!acc = !gpu.mma_matrix<16x16xf32, "COp">
!sa = memref<256x40xf16, #gpu.address_space<workgroup>>
!sb = memref<64x136xf16, #gpu.address_space<workgroup>>
!sc = memref<128x16xf32, #gpu.address_space<workgroup>>

gpu.module @gemm_reduce_scatter {
  // The device library's portable GEMM tile (gemm.mlir).
  func.func private @symm_gemm_tile_bf16(memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index, !sa, !sb)
      -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc)
  func.func private @symm_gemm_fragment_row(!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, index, index, index, index, !sc)
      -> (vector<8xf32>, index, index, i1)
  func.func private @symm_gemm_store_row_bf16(vector<8xf32>, memref<?xi16, #symm.heap>, index, i1)

  //===--------------------------------------------------------------------===//
  // The fused epilogues: 8 f32 elements of a row of C at (row, col), from
  // symm_gemm_fragment_row.
  //===--------------------------------------------------------------------===//

  // A peer's tile: the f32 partial into slot `rank` of the owner's staging
  // (W slots of mr x n, rows relative to the owner's block), or with
  // %atomic added element by element into the owner's accumulator (mr x n).
  func.func @emit_to_owner(%v: vector<8xf32>, %staging: memref<?xf32, #symm.heap>,
                           %acc: memref<?xf32, #symm.heap>, %atomic: i1,
                           %owner: index, %mr: index, %n: index,
                           %row: index, %col: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %me32 = symm.rank : i32
    %me = arith.index_cast %me32 : i32 to index
    %owner32 = arith.index_cast %owner : index to i32
    %first = arith.muli %owner, %mr : index
    %lrow = arith.subi %row, %first : index
    scf.if %atomic {
      %abase = arith.muli %lrow, %n : index
      %ai = arith.addi %abase, %col : index
      scf.for %e = %c0 to %c8 step %c1 {
        %x = vector.extract %v[%e] : f32 from vector<8xf32>
        %i = arith.addi %ai, %e : index
        %old = symm.atomic_rmw fadd %x, %acc[%i] on %owner32 ordering(relaxed) scope(system) : f32 -> memref<?xf32, #symm.heap>
      }
    } else {
      %slot_rows = arith.muli %me, %mr : index
      %srow = arith.addi %slot_rows, %lrow : index
      %base = arith.muli %srow, %n : index
      %i = arith.addi %base, %col : index
      symm.store %v, %staging[%i] to %owner32 : vector<8xf32> -> memref<?xf32, #symm.heap>
    }
    return
  }

  // An own tile: the partials in rank order (this rank's from registers,
  // the peers' from the staging), or with %atomic this rank's plus the
  // accumulator (which it clears for the next launch), rounded once to
  // bf16, into this rank's rows of C (out: mr x n).
  func.func @emit_sum(%v: vector<8xf32>, %staging: memref<?xf32, #symm.heap>,
                      %acc: memref<?xf32, #symm.heap>, %atomic: i1,
                      %out: memref<?xi16, #symm.heap>, %mr: index, %n: index,
                      %row: index, %col: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %false = arith.constant false
    %me32 = symm.rank : i32
    %n32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %w = arith.index_cast %n32 : i32 to index
    %first = arith.muli %me, %mr : index
    %lrow = arith.subi %row, %first : index
    %obase = arith.muli %lrow, %n : index
    %o = arith.addi %obase, %col : index
    %zero = arith.constant dense<0.0> : vector<8xf32>
    %sum = scf.if %atomic -> (vector<8xf32>) {
      %theirs = vector.load %acc[%o] {alignment = 16} : memref<?xf32, #symm.heap>, vector<8xf32>
      vector.store %zero, %acc[%o] {alignment = 16} : memref<?xf32, #symm.heap>, vector<8xf32>
      %s = arith.addf %v, %theirs : vector<8xf32>
      scf.yield %s : vector<8xf32>
    } else {
      %s = scf.for %p = %c0 to %w step %c1 iter_args(%partial = %zero) -> (vector<8xf32>) {
        %peer = arith.cmpi ne, %p, %me : index
        %part = scf.if %peer -> (vector<8xf32>) {
          %slot_rows = arith.muli %p, %mr : index
          %srow = arith.addi %slot_rows, %lrow : index
          %base = arith.muli %srow, %n : index
          %i = arith.addi %base, %col : index
          %t = vector.load %staging[%i] {alignment = 16} : memref<?xf32, #symm.heap>, vector<8xf32>
          scf.yield %t : vector<8xf32>
        } else {
          scf.yield %v : vector<8xf32>
        }
        %next = arith.addf %partial, %part : vector<8xf32>
        scf.yield %next : vector<8xf32>
      }
      scf.yield %s : vector<8xf32>
    }
    func.call @symm_gemm_store_row_bf16(%sum, %out, %o, %false) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, i1) -> ()
    return
  }

  //===--------------------------------------------------------------------===//
  // The kernel. Sizes: m a multiple of 128 x W, n a multiple of 128, kr
  // (this rank's share of K) a multiple of 32; launched with 8 subgroups of
  // %lanes threads; in the fused variant all blocks co-resident.
  //===--------------------------------------------------------------------===//

  // symm.co_resident: in the fused variants an owner waits for peers'
  // partials that other workgroups push, so every workgroup must be
  // resident (bulk_sync's grids are held to the same bound).
  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xi16, #symm.heap>,
                 %out: memref<?xi16, #symm.heap>, %staging: memref<?xf32, #symm.heap>,
                 %sums: memref<?xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %m: index, %n: index, %kr: index,
                 %epoch: i32, %lanes: index, %variant: i32)
      workgroup(%sa: !sa {llvm.align = 32 : i64}, %sb: !sb {llvm.align = 32 : i64},
                %sc: !sc {llvm.align = 32 : i64}) kernel attributes {rocdl.flat_work_group_size = "1,512", symm.co_resident} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %v0 = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %fused = arith.cmpi ne, %variant, %v0 : i32
    %v2 = arith.constant 2 : i32
    %atomic = arith.cmpi eq, %variant, %v2 : i32
    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %world = arith.index_cast %w32 : i32 to index
    %mr = arith.divui %m, %world : index
    %tiles_m = arith.divui %m, %c128 : index
    %tiles_n = arith.divui %n, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %per_rank = arith.divui %tiles, %world : index
    %me1 = arith.addi %me, %c1 : index
    %my_end = arith.muli %me1, %per_rank : index
    %done_base = arith.muli %per_rank, %world : index
    scf.for %v = %bid to %tiles step %grid {
      // bulk_sync walks the tiles in order, fused from the end of its own.
      %vt = arith.addi %v, %my_end : index
      %rot = arith.remui %vt, %tiles : index
      %t = arith.select %fused, %rot, %v : index
      %owner = arith.divui %t, %per_rank : index
      %owner_first = arith.muli %owner, %per_rank : index
      %t_local = arith.subi %t, %owner_first : index
      %mine = arith.cmpi eq, %owner, %me : index
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %row0 = arith.muli %tm, %c128 : index
      %col0 = arith.muli %tn, %c128 : index
      %acc:8 = func.call @symm_gemm_tile_bf16(%a, %kr, %row0, %b, %n, %col0, %kr, %lanes, %sa, %sb)
          : (memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index, !sa, !sb)
          -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc)
      %own_fused = arith.andi %fused, %mine : i1
      %theirs = arith.cmpi ne, %owner, %me : index
      %to_owner = arith.andi %fused, %theirs : i1
      %ready_base = arith.muli %t_local, %world : index
      // An own tile waits for every peer's partial (already there, mostly:
      // the peers computed it first).
      scf.if %own_fused {
        scf.if %t0 {
          scf.for %p = %c0 to %world step %c1 {
            %peer = arith.cmpi ne, %p, %me : index
            scf.if %peer {
              %f = arith.addi %ready_base, %p : index
              %seen = symm.wait %flags[%f] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
            }
          }
        }
      }
      scf.for %q = %c0 to %c8 step %c1 {
        %x, %row, %col, %has = func.call @symm_gemm_fragment_row(%acc#0, %acc#1, %acc#2, %acc#3, %acc#4, %acc#5, %acc#6, %acc#7, %q, %row0, %col0, %lanes, %sc)
            : (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, index, index, index, index, !sc)
            -> (vector<8xf32>, index, index, i1)
        scf.if %has {
          scf.if %own_fused {
            func.call @emit_sum(%x, %staging, %sums, %atomic, %out, %mr, %n, %row, %col) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, memref<?xi16, #symm.heap>, index, index, index, index) -> ()
          } else {
            scf.if %to_owner {
              func.call @emit_to_owner(%x, %staging, %sums, %atomic, %owner, %mr, %n, %row, %col) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, index, index, index, index, index) -> ()
            } else {
              // bulk_sync: the partial, rounded to bf16, into the local
              // partial C (m x n).
              %base = arith.muli %row, %n : index
              %i = arith.addi %base, %col : index
              func.call @symm_gemm_store_row_bf16(%x, %c, %i, %false) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, i1) -> ()
            }
          }
        }
      }
      scf.if %fused {
        symm.release_barrier scope(system)
        scf.if %t0 {
          scf.if %mine {
            // Reduced: the peers may overwrite their slots next launch.
            %done = arith.addi %done_base, %me : index
            scf.for %p = %c0 to %world step %c1 {
              %peer = arith.cmpi ne, %p, %me : index
              scf.if %peer {
                %p32 = arith.index_cast %p : index to i32
                symm.signal add %one, %flags[%done] on %p32 scope(system) : i32 -> memref<?xi32, #symm.heap>
              }
            }
          } else {
            %owner32 = arith.index_cast %owner : index to i32
            %f = arith.addi %ready_base, %me : index
            symm.store %epoch, %flags[%f] to %owner32 ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
          }
        }
      }
    }
    // Every owner has reduced this launch's tiles: the slots are free.
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %t00 = arith.andi %t0, %b0 : i1
    %last_waiter = arith.andi %t00, %fused : i1
    scf.if %last_waiter {
      %per_rank32 = arith.index_cast %per_rank : index to i32
      %expected = arith.muli %epoch, %per_rank32 : i32
      scf.for %p = %c0 to %world step %c1 {
        %peer = arith.cmpi ne, %p, %me : index
        scf.if %peer {
          %f = arith.addi %done_base, %p : index
          %seen = symm.wait %flags[%f] ge %expected scope(system) : memref<?xi32, #symm.heap> -> i32
        }
      }
    }
    gpu.return
  }
}
