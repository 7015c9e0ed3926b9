// Kernels of C = Σ_r A_r·B_r with K split across the ranks (rank r holds
// A_r, the M x K/W columns r of A, and B_r, the K/W x N rows r of B) where
// rank r ends with rows block r of C (M/W x N): the row-parallel linear
// layer followed by a reduce-scatter. Compiled by symm-compile for the host
// target, sm_90 and gfx942; gemm_reduce_scatter.cpp launches them. bf16 in
// memory, f16 x f16 -> f32 tensor-core fragments, bf16 out.
//
// The GEMM is gemm_all_scatter.mlir's (see there): 128x128 tiles, 8
// subgroups of 2x4 16x16 f32 fragments (512 threads with AMD's wavefronts,
// which the kernel admits: ROCDL's default limit is 256), bf16 slices staged as f16 in
// double-buffered workgroup memory, persistent blocks, and the main loop
// one delimited region (tile coordinates in, fragments out);
// gemm_reduce_scatter_hopper.mlir pairs the Hopper GEMM's TMA + wgmma main
// loop with the same variants for sm_90a. Epilogues read each fragment back
// through a per-subgroup 16x16 f32 scratch: lane l < 32 holds 8
// consecutive elements of row l / 2.
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
gpu.module @gemm_reduce_scatter {
  //===--------------------------------------------------------------------===//
  // The main loop's staging
  //===--------------------------------------------------------------------===//

  func.func @load_slice(%a: memref<?xbf16>, %lda: index, %b: memref<?xbf16>, %ldb: index,
                        %row0: index, %col0: index, %k0: index)
      -> (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>) {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %t = arith.remui %tid, %c256 : index
    %ar = arith.divui %t, %c4 : index
    %ac4 = arith.remui %t, %c4 : index
    %ac = arith.muli %ac4, %c8 : index
    %arow = arith.addi %row0, %ar : index
    %abase = arith.muli %arow, %lda : index
    %acol = arith.addi %k0, %ac : index
    %ia0 = arith.addi %abase, %acol : index
    %astep = arith.muli %lda, %c64 : index
    %ia1 = arith.addi %ia0, %astep : index
    %br = arith.divui %t, %c16 : index
    %bc16 = arith.remui %t, %c16 : index
    %bc = arith.muli %bc16, %c8 : index
    %brow = arith.addi %k0, %br : index
    %bbase = arith.muli %brow, %ldb : index
    %bcol = arith.addi %col0, %bc : index
    %ib0 = arith.addi %bbase, %bcol : index
    %bstep = arith.muli %ldb, %c16 : index
    %ib1 = arith.addi %ib0, %bstep : index
    %a0 = vector.load %a[%ia0] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
    %a1 = vector.load %a[%ia1] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
    %b0 = vector.load %b[%ib0] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
    %b1 = vector.load %b[%ib1] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
    %a0f = arith.extf %a0 : vector<8xbf16> to vector<8xf32>
    %a1f = arith.extf %a1 : vector<8xbf16> to vector<8xf32>
    %b0f = arith.extf %b0 : vector<8xbf16> to vector<8xf32>
    %b1f = arith.extf %b1 : vector<8xbf16> to vector<8xf32>
    %a0h = arith.truncf %a0f : vector<8xf32> to vector<8xf16>
    %a1h = arith.truncf %a1f : vector<8xf32> to vector<8xf16>
    %b0h = arith.truncf %b0f : vector<8xf32> to vector<8xf16>
    %b1h = arith.truncf %b1f : vector<8xf32> to vector<8xf16>
    return %a0h, %a1h, %b0h, %b1h : vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>
  }

  //===--------------------------------------------------------------------===//
  // Epilogues: lane l < 32 of a fragment whose origin in C is (r0, c0) holds
  // row r0 + l / 2, columns c0 + 8 (l % 2) ...
  //===--------------------------------------------------------------------===//

  func.func @lane_position(%r0: index, %c0: index, %lane: index) -> (index, index) {
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %lr = arith.divui %lane, %c2 : index
    %lc2 = arith.remui %lane, %c2 : index
    %lc = arith.muli %lc2, %c8 : index
    %row = arith.addi %r0, %lr : index
    %col = arith.addi %c0, %lc : index
    return %row, %col : index, index
  }

  // bulk_sync: the partial, rounded to bf16, into the local partial C
  // (m x n). C holds bf16 bits: x86 would otherwise need __truncsfbf2,
  // which libgcc before GCC 13 lacks.
  func.func @emit_partial(%v: vector<8xf32>, %c: memref<?xi16, #symm.heap>, %n: index,
                          %r0: index, %c0: index, %lane: index) {
    %c32 = arith.constant 32 : index
    %active = arith.cmpi ult, %lane, %c32 : index
    scf.if %active {
      %row, %col = func.call @lane_position(%r0, %c0, %lane) : (index, index, index) -> (index, index)
      %base = arith.muli %row, %n : index
      %i = arith.addi %base, %col : index
      %bf = arith.truncf %v : vector<8xf32> to vector<8xbf16>
      %bits = arith.bitcast %bf : vector<8xbf16> to vector<8xi16>
      vector.store %bits, %c[%i] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
    }
    return
  }

  // fused, a peer's tile: the f32 partial into slot `rank` of the owner's
  // staging (W slots of mr x n, rows relative to the owner's block), or with
  // %atomic added element by element into the owner's accumulator (mr x n).
  func.func @emit_to_owner(%v: vector<8xf32>, %staging: memref<?xf32, #symm.heap>,
                           %acc: memref<?xf32, #symm.heap>, %atomic: i1,
                           %owner: index, %mr: index, %n: index,
                           %r0: index, %c0: index, %lane: index) {
    %c0i = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %active = arith.cmpi ult, %lane, %c32 : index
    scf.if %active {
      %me32 = symm.rank : i32
      %me = arith.index_cast %me32 : i32 to index
      %owner32 = arith.index_cast %owner : index to i32
      %row, %col = func.call @lane_position(%r0, %c0, %lane) : (index, index, index) -> (index, index)
      %first = arith.muli %owner, %mr : index
      %lrow = arith.subi %row, %first : index
      scf.if %atomic {
        %abase = arith.muli %lrow, %n : index
        %ai = arith.addi %abase, %col : index
        scf.for %e = %c0i to %c8 step %c1 {
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
    }
    return
  }

  // fused, an own tile: the partials in rank order (this rank's from
  // registers, the peers' from the staging), or with %atomic this rank's
  // plus the accumulator (which it clears for the next launch), rounded
  // once to bf16, into this rank's rows of C (out: mr x n).
  func.func @emit_sum(%v: vector<8xf32>, %staging: memref<?xf32, #symm.heap>,
                      %acc: memref<?xf32, #symm.heap>, %atomic: i1,
                      %out: memref<?xi16, #symm.heap>, %mr: index, %n: index,
                      %r0: index, %c0: index, %lane: index) {
    %c0i = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %active = arith.cmpi ult, %lane, %c32 : index
    scf.if %active {
      %me32 = symm.rank : i32
      %n32 = symm.world_size : i32
      %me = arith.index_cast %me32 : i32 to index
      %w = arith.index_cast %n32 : i32 to index
      %row, %col = func.call @lane_position(%r0, %c0, %lane) : (index, index, index) -> (index, index)
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
        %s = scf.for %p = %c0i to %w step %c1 iter_args(%partial = %zero) -> (vector<8xf32>) {
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
      %bf = arith.truncf %sum : vector<8xf32> to vector<8xbf16>
      %bits = arith.bitcast %bf : vector<8xbf16> to vector<8xi16>
      vector.store %bits, %out[%o] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
    }
    return
  }

  //===--------------------------------------------------------------------===//
  // The kernel. Sizes: m a multiple of 128 x W, n a multiple of 128, kr
  // (this rank's share of K) a multiple of 32; launched with 8 subgroups of
  // %lanes threads; in the fused variant all blocks co-resident.
  //===--------------------------------------------------------------------===//

  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xi16, #symm.heap>,
                 %out: memref<?xi16, #symm.heap>, %staging: memref<?xf32, #symm.heap>,
                 %sums: memref<?xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %m: index, %n: index, %kr: index,
                 %epoch: i32, %lanes: index, %variant: i32)
      workgroup(%sa: memref<256x40xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64},
                %sb: memref<64x136xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64},
                %sc: memref<128x16xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64}) kernel attributes {rocdl.flat_work_group_size = "1,512"} {
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
    %v0 = arith.constant 0 : i32
    %one = arith.constant 1 : i32
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
    // Subgroup w = (wm, wn) owns rows 32 wm .. and columns 64 wn .. of a tile.
    %w = arith.divui %tid, %lanes : index
    %lane = arith.remui %tid, %lanes : index
    %wm = arith.divui %w, %c2 : index
    %wn = arith.remui %w, %c2 : index
    %wrow = arith.muli %wm, %c32 : index
    %wcol0 = arith.muli %wn, %c64 : index
    %wcol1 = arith.addi %wcol0, %c16 : index
    %wcol2 = arith.addi %wcol1, %c16 : index
    %wcol3 = arith.addi %wcol2, %c16 : index
    // Where this thread stores its share of a slice (see @load_slice); the
    // first 256 threads stage.
    %stager = arith.cmpi ult, %tid, %c256 : index
    %st = arith.remui %tid, %c256 : index
    %sar0 = arith.divui %st, %c4 : index
    %sar1 = arith.addi %sar0, %c64 : index
    %sac4 = arith.remui %st, %c4 : index
    %sac = arith.muli %sac4, %c8 : index
    %sbr0 = arith.divui %st, %c16 : index
    %sbr1 = arith.addi %sbr0, %c16 : index
    %sbc16 = arith.remui %st, %c16 : index
    %sbc = arith.muli %sbc16, %c8 : index
    // This subgroup's scratch rows, and what this lane reads back.
    %scrow = arith.muli %w, %c16 : index
    %l32 = arith.remui %lane, %c32 : index
    %lr = arith.divui %l32, %c2 : index
    %scread = arith.addi %scrow, %lr : index
    %lc2 = arith.remui %l32, %c2 : index
    %sccol = arith.muli %lc2, %c8 : index
    %zero = arith.constant 0.0 : f32
    %zacc = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
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
      // ==== The main loop: tile (%row0, %col0) of A·B -> %acc#0..7, the
      // fragments (0,0) (0,1) (0,2) (0,3) (1,0) .. (1,3) of subgroup (wm, wn).
      %p0, %p1, %p2, %p3 = func.call @load_slice(%a, %kr, %b, %n, %row0, %col0, %c0)
          : (memref<?xbf16>, index, memref<?xbf16>, index, index, index, index)
          -> (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>)
      scf.if %stager {
        vector.store %p0, %sa[%sar0, %sac] {alignment = 16} : memref<256x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        vector.store %p1, %sa[%sar1, %sac] {alignment = 16} : memref<256x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        vector.store %p2, %sb[%sbr0, %sbc] {alignment = 16} : memref<64x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        vector.store %p3, %sb[%sbr1, %sbc] {alignment = 16} : memref<64x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
      }
      gpu.barrier
      %slices = arith.divui %kr, %c32 : index
      %last = arith.subi %slices, %c1 : index
      %acc:8 = scf.for %s = %c0 to %slices step %c1
          iter_args(%c00 = %zacc, %c01 = %zacc, %c02 = %zacc, %c03 = %zacc, %c10 = %zacc, %c11 = %zacc, %c12 = %zacc, %c13 = %zacc)
          -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) {
        %buf = arith.remui %s, %c2 : index
        // The next slice into registers before this one is multiplied.
        %s1 = arith.addi %s, %c1 : index
        %sn = arith.minui %s1, %last : index
        %kn = arith.muli %sn, %c32 : index
        %n0, %n1, %n2, %n3 = func.call @load_slice(%a, %kr, %b, %n, %row0, %col0, %kn)
            : (memref<?xbf16>, index, memref<?xbf16>, index, index, index, index)
            -> (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>)
        %abuf = arith.muli %buf, %c128 : index
        %ar0 = arith.addi %abuf, %wrow : index
        %ar1 = arith.addi %ar0, %c16 : index
        %bbuf = arith.muli %buf, %c32 : index
        %q:8 = scf.for %kk = %c0 to %c32 step %c16
            iter_args(%d00 = %c00, %d01 = %c01, %d02 = %c02, %d03 = %c03, %d10 = %c10, %d11 = %c11, %d12 = %c12, %d13 = %c13)
            -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) {
          %fa0 = gpu.subgroup_mma_load_matrix %sa[%ar0, %kk] {leadDimension = 40 : index} : memref<256x40xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
          %fa1 = gpu.subgroup_mma_load_matrix %sa[%ar1, %kk] {leadDimension = 40 : index} : memref<256x40xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
          %br = arith.addi %bbuf, %kk : index
          %fb0 = gpu.subgroup_mma_load_matrix %sb[%br, %wcol0] {leadDimension = 136 : index} : memref<64x136xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
          %fb1 = gpu.subgroup_mma_load_matrix %sb[%br, %wcol1] {leadDimension = 136 : index} : memref<64x136xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
          %fb2 = gpu.subgroup_mma_load_matrix %sb[%br, %wcol2] {leadDimension = 136 : index} : memref<64x136xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
          %fb3 = gpu.subgroup_mma_load_matrix %sb[%br, %wcol3] {leadDimension = 136 : index} : memref<64x136xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
          %e00 = gpu.subgroup_mma_compute %fa0, %fb0, %d00 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
          %e01 = gpu.subgroup_mma_compute %fa0, %fb1, %d01 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
          %e02 = gpu.subgroup_mma_compute %fa0, %fb2, %d02 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
          %e03 = gpu.subgroup_mma_compute %fa0, %fb3, %d03 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
          %e10 = gpu.subgroup_mma_compute %fa1, %fb0, %d10 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
          %e11 = gpu.subgroup_mma_compute %fa1, %fb1, %d11 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
          %e12 = gpu.subgroup_mma_compute %fa1, %fb2, %d12 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
          %e13 = gpu.subgroup_mma_compute %fa1, %fb3, %d13 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
          scf.yield %e00, %e01, %e02, %e03, %e10, %e11, %e12, %e13 : !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">
        }
        // The other buffer was last read before the previous barrier.
        %more = arith.cmpi ult, %s, %last : index
        %stage = arith.andi %more, %stager : i1
        scf.if %stage {
          %other = arith.subi %c1, %buf : index
          %oa = arith.muli %other, %c128 : index
          %ob = arith.muli %other, %c32 : index
          %oar0 = arith.addi %oa, %sar0 : index
          %oar1 = arith.addi %oa, %sar1 : index
          %obr0 = arith.addi %ob, %sbr0 : index
          %obr1 = arith.addi %ob, %sbr1 : index
          vector.store %n0, %sa[%oar0, %sac] {alignment = 16} : memref<256x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          vector.store %n1, %sa[%oar1, %sac] {alignment = 16} : memref<256x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          vector.store %n2, %sb[%obr0, %sbc] {alignment = 16} : memref<64x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          vector.store %n3, %sb[%obr1, %sbc] {alignment = 16} : memref<64x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        }
        gpu.barrier
        scf.yield %q#0, %q#1, %q#2, %q#3, %q#4, %q#5, %q#6, %q#7 : !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">
      }
      // ==== End of the main loop (it ends with a barrier: the staging
      // memory is free again).
      %fr0 = arith.addi %row0, %wrow : index
      %fr1 = arith.addi %fr0, %c16 : index
      %fc0 = arith.addi %col0, %wcol0 : index
      %fc1 = arith.addi %col0, %wcol1 : index
      %fc2 = arith.addi %col0, %wcol2 : index
      %fc3 = arith.addi %col0, %wcol3 : index
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
      // Fragment (0, 0) through the scratch.
      gpu.barrier
      gpu.subgroup_mma_store_matrix %acc#0, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v00 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
      scf.if %own_fused {
        func.call @emit_sum(%v00, %staging, %sums, %atomic, %out, %mr, %n, %fr0, %fc0, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, memref<?xi16, #symm.heap>, index, index, index, index, index) -> ()
      } else {
        scf.if %to_owner {
          func.call @emit_to_owner(%v00, %staging, %sums, %atomic, %owner, %mr, %n, %fr0, %fc0, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, index, index, index, index, index, index) -> ()
        } else {
          func.call @emit_partial(%v00, %c, %n, %fr0, %fc0, %lane) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index) -> ()
        }
      }
      // Fragment (0, 1) through the scratch.
      gpu.barrier
      gpu.subgroup_mma_store_matrix %acc#1, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v01 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
      scf.if %own_fused {
        func.call @emit_sum(%v01, %staging, %sums, %atomic, %out, %mr, %n, %fr0, %fc1, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, memref<?xi16, #symm.heap>, index, index, index, index, index) -> ()
      } else {
        scf.if %to_owner {
          func.call @emit_to_owner(%v01, %staging, %sums, %atomic, %owner, %mr, %n, %fr0, %fc1, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, index, index, index, index, index, index) -> ()
        } else {
          func.call @emit_partial(%v01, %c, %n, %fr0, %fc1, %lane) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index) -> ()
        }
      }
      // Fragment (0, 2) through the scratch.
      gpu.barrier
      gpu.subgroup_mma_store_matrix %acc#2, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v02 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
      scf.if %own_fused {
        func.call @emit_sum(%v02, %staging, %sums, %atomic, %out, %mr, %n, %fr0, %fc2, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, memref<?xi16, #symm.heap>, index, index, index, index, index) -> ()
      } else {
        scf.if %to_owner {
          func.call @emit_to_owner(%v02, %staging, %sums, %atomic, %owner, %mr, %n, %fr0, %fc2, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, index, index, index, index, index, index) -> ()
        } else {
          func.call @emit_partial(%v02, %c, %n, %fr0, %fc2, %lane) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index) -> ()
        }
      }
      // Fragment (0, 3) through the scratch.
      gpu.barrier
      gpu.subgroup_mma_store_matrix %acc#3, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v03 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
      scf.if %own_fused {
        func.call @emit_sum(%v03, %staging, %sums, %atomic, %out, %mr, %n, %fr0, %fc3, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, memref<?xi16, #symm.heap>, index, index, index, index, index) -> ()
      } else {
        scf.if %to_owner {
          func.call @emit_to_owner(%v03, %staging, %sums, %atomic, %owner, %mr, %n, %fr0, %fc3, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, index, index, index, index, index, index) -> ()
        } else {
          func.call @emit_partial(%v03, %c, %n, %fr0, %fc3, %lane) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index) -> ()
        }
      }
      // Fragment (1, 0) through the scratch.
      gpu.barrier
      gpu.subgroup_mma_store_matrix %acc#4, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v10 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
      scf.if %own_fused {
        func.call @emit_sum(%v10, %staging, %sums, %atomic, %out, %mr, %n, %fr1, %fc0, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, memref<?xi16, #symm.heap>, index, index, index, index, index) -> ()
      } else {
        scf.if %to_owner {
          func.call @emit_to_owner(%v10, %staging, %sums, %atomic, %owner, %mr, %n, %fr1, %fc0, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, index, index, index, index, index, index) -> ()
        } else {
          func.call @emit_partial(%v10, %c, %n, %fr1, %fc0, %lane) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index) -> ()
        }
      }
      // Fragment (1, 1) through the scratch.
      gpu.barrier
      gpu.subgroup_mma_store_matrix %acc#5, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v11 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
      scf.if %own_fused {
        func.call @emit_sum(%v11, %staging, %sums, %atomic, %out, %mr, %n, %fr1, %fc1, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, memref<?xi16, #symm.heap>, index, index, index, index, index) -> ()
      } else {
        scf.if %to_owner {
          func.call @emit_to_owner(%v11, %staging, %sums, %atomic, %owner, %mr, %n, %fr1, %fc1, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, index, index, index, index, index, index) -> ()
        } else {
          func.call @emit_partial(%v11, %c, %n, %fr1, %fc1, %lane) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index) -> ()
        }
      }
      // Fragment (1, 2) through the scratch.
      gpu.barrier
      gpu.subgroup_mma_store_matrix %acc#6, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v12 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
      scf.if %own_fused {
        func.call @emit_sum(%v12, %staging, %sums, %atomic, %out, %mr, %n, %fr1, %fc2, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, memref<?xi16, #symm.heap>, index, index, index, index, index) -> ()
      } else {
        scf.if %to_owner {
          func.call @emit_to_owner(%v12, %staging, %sums, %atomic, %owner, %mr, %n, %fr1, %fc2, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, index, index, index, index, index, index) -> ()
        } else {
          func.call @emit_partial(%v12, %c, %n, %fr1, %fc2, %lane) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index) -> ()
        }
      }
      // Fragment (1, 3) through the scratch.
      gpu.barrier
      gpu.subgroup_mma_store_matrix %acc#7, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v13 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
      scf.if %own_fused {
        func.call @emit_sum(%v13, %staging, %sums, %atomic, %out, %mr, %n, %fr1, %fc3, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, memref<?xi16, #symm.heap>, index, index, index, index, index) -> ()
      } else {
        scf.if %to_owner {
          func.call @emit_to_owner(%v13, %staging, %sums, %atomic, %owner, %mr, %n, %fr1, %fc3, %lane) : (vector<8xf32>, memref<?xf32, #symm.heap>, memref<?xf32, #symm.heap>, i1, index, index, index, index, index, index) -> ()
        } else {
          func.call @emit_partial(%v13, %c, %n, %fr1, %fc3, %lane) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index) -> ()
        }
      }
      scf.if %fused {
        symm.fence ordering(release) scope(system)
        gpu.barrier
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
