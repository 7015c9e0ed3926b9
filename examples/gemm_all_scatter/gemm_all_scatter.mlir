// Kernels of C = A·B with B split along N (rank r computes the column block
// r of C and every rank ends with all of C), compiled by symm-compile for
// the host target, sm_90 and gfx942; gemm_all_scatter.cpp launches them.
// bf16 in memory, f16 x f16 -> f32 tensor-core fragments, bf16 out.
//
// A block computes 128x128 tiles of C with 8 subgroups (256 threads with
// 32-lane subgroups, 512 with AMD's 64-lane wavefronts: the driver passes
// the subgroup size as %lanes, which convert-gpu-to-nvvm cannot lower;
// every kernel admits 512 threads on AMD, where the ROCDL lowering's default
// limit is 256).
// Subgroup s owns the 32x64 sub-tile (s / 2, s % 2): 2x4 accumulator
// fragments of 16x16, the one fragment shape every target takes. Blocks are
// persistent: block b takes tiles b, b + grid, ... in row-major tile order.
//
// The main loop (one delimited region of @gemm: tile coordinates in, the
// eight f32 accumulator fragments out) stages 128x32 slices of A and 32x128
// slices of B in workgroup memory (32-byte aligned, padded rows against
// bank conflicts), converting bf16 to f16 on the way (exact for the inputs:
// see README.md), double-buffered: the next slice is loaded from global
// memory into registers (16-byte vectors) before the current one is
// multiplied and stored into the other buffer after it, so one barrier per
// slice suffices. The epilogues only see its fragments
// (gemm_all_scatter_hopper.mlir pairs the Hopper GEMM's TMA + wgmma main
// loop with the same epilogues for sm_90a). It is written inline
// because fragments and workgroup memrefs cannot cross func.call on every
// target (the NVVM lowering takes no workgroup memref arguments).
//
// Epilogues leave through a per-subgroup 16x16 f32 scratch: each fragment
// is stored there, and lane l (l < 32) reads the 8 consecutive elements of
// row l / 2, rounds them to bf16 and stores one 16-byte vector (@emit).
//
//   @gemm      the GEMM of every variant, its epilogue chosen by %variant:
//              bulk_sync (tiles into C_r), producer_consumer (tiles into C,
//              then a flag per tile), fused_sequential (tiles into C and
//              every peer's C) and wg_specialized (some blocks compute
//              and flag, the others push like @push).
//   @push      the producer_consumer variant's consumer, on another stream:
//              waits for each tile's flag and pushes the tile to every
//              peer's C.
//   @assemble  bulk_sync's layout fix: the all-gathered column blocks
//              (W blocks of M x N/W) into C (M x N).
//
// Every variant that pushes counts arrivals: after each tile lands, the
// pusher adds 1 to arrivals[its rank] on the receiver; a launch ends when
// every peer's count reaches epoch x tiles per rank, so C is complete on
// every rank when the launch has finished everywhere.
gpu.module @gemm_all_scatter {
  // The device library's tile signalling (tiles.mlir).
  func.func private @symm_announce(memref<?xi32, #symm.heap>, i32)
  func.func private @symm_await_arrivals(memref<?xi32, #symm.heap>, i32)
  func.func private @symm_push_tiles(memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>, index, index, index, index, i32, index, index)

  //===--------------------------------------------------------------------===//
  // The main loop's staging
  //===--------------------------------------------------------------------===//

  // This thread's share of the slice at k0: two 16-byte vectors of A (rows
  // row0 + t / 4 and + 64, columns k0 + 8 (t % 4)) and two of B (rows
  // k0 + t / 16 and + 16, columns col0 + 8 (t % 16)), t = thread mod 256,
  // converted to f16.
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
  // Epilogues
  //===--------------------------------------------------------------------===//

  // Epilogue: this lane's 8 elements of a fragment whose origin is (r0, c0)
  // in C (lane l < 32 holds row l / 2, columns 8 (l % 2) ..), rounded to
  // bf16 and stored into C and, with %to_peers, into every peer's C.
  func.func @emit(%v: vector<8xf32>, %c: memref<?xi16, #symm.heap>, %ldc: index,
                  %r0: index, %c0: index, %lane: index, %to_peers: i1) {
    %c0i = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %active = arith.cmpi ult, %lane, %c32 : index
    scf.if %active {
      %lr = arith.divui %lane, %c2 : index
      %lc2 = arith.remui %lane, %c2 : index
      %lc = arith.muli %lc2, %c8 : index
      %row = arith.addi %r0, %lr : index
      %col = arith.addi %c0, %lc : index
      %base = arith.muli %row, %ldc : index
      %i = arith.addi %base, %col : index
      // C holds bf16 bits: x86 would otherwise carry bf16 values into the
      // peer loop through __truncsfbf2, which libgcc before GCC 13 lacks.
      %bf = arith.truncf %v : vector<8xf32> to vector<8xbf16>
      %bits = arith.bitcast %bf : vector<8xbf16> to vector<8xi16>
      vector.store %bits, %c[%i] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
      scf.if %to_peers {
        %me = symm.rank : i32
        %n32 = symm.world_size : i32
        %mei = arith.index_cast %me : i32 to index
        %n = arith.index_cast %n32 : i32 to index
        scf.for %p = %c0i to %n step %c1 {
          %peer = arith.cmpi ne, %p, %mei : index
          scf.if %peer {
            %p32 = arith.index_cast %p : index to i32
            symm.store %bits, %c[%i] to %p32 : vector<8xi16> -> memref<?xi16, #symm.heap>
          }
        }
      }
    }
    return
  }

  //===--------------------------------------------------------------------===//
  // Kernels. Sizes: m a multiple of 128, nb (this rank's columns of B and
  // C) a multiple of 128, k a multiple of 32; C is m x ldc, this rank's
  // block at columns coloff ... Launch with 8 subgroups of %lanes threads.
  //===--------------------------------------------------------------------===//

  //===--------------------------------------------------------------------===//
  // Kernels
  //===--------------------------------------------------------------------===//

  // Sizes: m a multiple of 128, nb (this rank's columns of B and of C) a
  // multiple of 128, k a multiple of 32; C is m x ldc with this rank's
  // block at columns coloff ..; launched with 8 subgroups of %lanes threads.
  // %variant picks the epilogue (a uniform branch; the main loop is the
  // same for all):
  //   0 (bulk_sync)         tiles into C;
  //   1 (producer_consumer) tiles into C, then flags[t] = epoch (release);
  //   2 (fused_sequential)  tiles into C and every peer's C, announced; the
  //                         launch ends when the peers' tiles have landed;
  //   3 (wg_specialized)    blocks below %compute_grid compute like 1, the
  //                         others push like @push; ends like 2.
  // Blocks below %compute_grid take tiles bid, bid + compute_grid, ...; the
  // compute blocks never wait, so the pushers always make progress.
  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xi16, #symm.heap>,
                 %flags: memref<?xi32, #symm.heap>, %arrivals: memref<?xi32, #symm.heap>,
                 %m: index, %nb: index, %k: index, %ldc: index, %coloff: index,
                 %epoch: i32, %lanes: index, %variant: i32, %compute_grid: index)
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
    %v1 = arith.constant 1 : i32
    %v2 = arith.constant 2 : i32
    %v3 = arith.constant 3 : i32
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %is1 = arith.cmpi eq, %variant, %v1 : i32
    %is3 = arith.cmpi eq, %variant, %v3 : i32
    %flag_tiles = arith.ori %is1, %is3 : i1
    %to_peers = arith.cmpi eq, %variant, %v2 : i32
    %awaits = arith.cmpi uge, %variant, %v2 : i32
    %tiles_m = arith.divui %m, %c128 : index
    %tiles_n = arith.divui %nb, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
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
    %computes = arith.cmpi ult, %bid, %compute_grid : index
    scf.if %computes {
      scf.for %t = %bid to %tiles step %compute_grid {
        %tm = arith.divui %t, %tiles_n : index
        %tn = arith.remui %t, %tiles_n : index
        %row0 = arith.muli %tm, %c128 : index
        %col0 = arith.muli %tn, %c128 : index
        // ==== The main loop: tile (%row0, %col0) of A·B -> %acc#0..7, the
        // fragments (0,0) (0,1) (0,2) (0,3) (1,0) .. (1,3) of subgroup (wm, wn).
        %p0, %p1, %p2, %p3 = func.call @load_slice(%a, %k, %b, %nb, %row0, %col0, %c0)
            : (memref<?xbf16>, index, memref<?xbf16>, index, index, index, index)
            -> (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>)
        scf.if %stager {
          vector.store %p0, %sa[%sar0, %sac] {alignment = 16} : memref<256x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          vector.store %p1, %sa[%sar1, %sac] {alignment = 16} : memref<256x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          vector.store %p2, %sb[%sbr0, %sbc] {alignment = 16} : memref<64x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          vector.store %p3, %sb[%sbr1, %sbc] {alignment = 16} : memref<64x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        }
        gpu.barrier
        %slices = arith.divui %k, %c32 : index
        %last = arith.subi %slices, %c1 : index
        %acc:8 = scf.for %s = %c0 to %slices step %c1
            iter_args(%c00 = %zacc, %c01 = %zacc, %c02 = %zacc, %c03 = %zacc, %c10 = %zacc, %c11 = %zacc, %c12 = %zacc, %c13 = %zacc)
            -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) {
          %buf = arith.remui %s, %c2 : index
          // The next slice into registers before this one is multiplied.
          %s1 = arith.addi %s, %c1 : index
          %sn = arith.minui %s1, %last : index
          %kn = arith.muli %sn, %c32 : index
          %n0, %n1, %n2, %n3 = func.call @load_slice(%a, %k, %b, %nb, %row0, %col0, %kn)
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
        %ccol = arith.addi %coloff, %col0 : index
        %fr0 = arith.addi %row0, %wrow : index
        %fr1 = arith.addi %fr0, %c16 : index
        %fc0 = arith.addi %ccol, %wcol0 : index
        %fc1 = arith.addi %ccol, %wcol1 : index
        %fc2 = arith.addi %ccol, %wcol2 : index
        %fc3 = arith.addi %ccol, %wcol3 : index
        // Fragment (0, 0) through the scratch.
        gpu.barrier
        gpu.subgroup_mma_store_matrix %acc#0, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v00 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        func.call @emit(%v00, %c, %ldc, %fr0, %fc0, %lane, %to_peers) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index, i1) -> ()
        // Fragment (0, 1) through the scratch.
        gpu.barrier
        gpu.subgroup_mma_store_matrix %acc#1, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v01 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        func.call @emit(%v01, %c, %ldc, %fr0, %fc1, %lane, %to_peers) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index, i1) -> ()
        // Fragment (0, 2) through the scratch.
        gpu.barrier
        gpu.subgroup_mma_store_matrix %acc#2, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v02 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        func.call @emit(%v02, %c, %ldc, %fr0, %fc2, %lane, %to_peers) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index, i1) -> ()
        // Fragment (0, 3) through the scratch.
        gpu.barrier
        gpu.subgroup_mma_store_matrix %acc#3, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v03 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        func.call @emit(%v03, %c, %ldc, %fr0, %fc3, %lane, %to_peers) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index, i1) -> ()
        // Fragment (1, 0) through the scratch.
        gpu.barrier
        gpu.subgroup_mma_store_matrix %acc#4, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v10 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        func.call @emit(%v10, %c, %ldc, %fr1, %fc0, %lane, %to_peers) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index, i1) -> ()
        // Fragment (1, 1) through the scratch.
        gpu.barrier
        gpu.subgroup_mma_store_matrix %acc#5, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v11 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        func.call @emit(%v11, %c, %ldc, %fr1, %fc1, %lane, %to_peers) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index, i1) -> ()
        // Fragment (1, 2) through the scratch.
        gpu.barrier
        gpu.subgroup_mma_store_matrix %acc#6, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v12 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        func.call @emit(%v12, %c, %ldc, %fr1, %fc2, %lane, %to_peers) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index, i1) -> ()
        // Fragment (1, 3) through the scratch.
        gpu.barrier
        gpu.subgroup_mma_store_matrix %acc#7, %sc[%scrow, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<128x16xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %v13 = vector.load %sc[%scread, %sccol] {alignment = 16} : memref<128x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        func.call @emit(%v13, %c, %ldc, %fr1, %fc3, %lane, %to_peers) : (vector<8xf32>, memref<?xi16, #symm.heap>, index, index, index, index, i1) -> ()
        scf.if %to_peers {
          func.call @symm_announce(%arrivals, %v1) : (memref<?xi32, #symm.heap>, i32) -> ()
        }
        scf.if %flag_tiles {
          symm.fence ordering(release) scope(system)
          gpu.barrier
          scf.if %t0 {
            symm.store %epoch, %flags[%t] ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
          }
        }
      }
    } else {
      %pusher = arith.subi %bid, %compute_grid : index
      %pushers = arith.subi %grid, %compute_grid : index
      func.call @symm_push_tiles(%c, %flags, %arrivals, %m, %nb, %ldc, %coloff, %epoch, %pusher, %pushers)
          : (memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>,
             index, index, index, index, i32, index, index) -> ()
    }
    scf.if %awaits {
      %tiles32 = arith.index_cast %tiles : index to i32
      %expected = arith.muli %epoch, %tiles32 : i32
      func.call @symm_await_arrivals(%arrivals, %expected) : (memref<?xi32, #symm.heap>, i32) -> ()
    }
    gpu.return
  }


  gpu.func @push(%c: memref<?xi16, #symm.heap>, %flags: memref<?xi32, #symm.heap>,
                 %arrivals: memref<?xi32, #symm.heap>, %m: index, %nb: index, %ldc: index,
                 %coloff: index, %epoch: i32) kernel attributes {rocdl.flat_work_group_size = "1,512"} {
    %c128 = arith.constant 128 : index
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    func.call @symm_push_tiles(%c, %flags, %arrivals, %m, %nb, %ldc, %coloff, %epoch, %bid, %grid)
        : (memref<?xi16, #symm.heap>, memref<?xi32, #symm.heap>, memref<?xi32, #symm.heap>,
           index, index, index, index, i32, index, index) -> ()
    %tiles_m = arith.divui %m, %c128 : index
    %tiles_n = arith.divui %nb, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %tiles32 = arith.index_cast %tiles : index to i32
    %expected = arith.muli %epoch, %tiles32 : i32
    func.call @symm_await_arrivals(%arrivals, %expected) : (memref<?xi32, #symm.heap>, i32) -> ()
    gpu.return
  }

  // C (m x W nb) from the all-gathered blocks: block r (m x nb, rank r's
  // columns) at r m nb of %gathered; 16-byte vectors, grid-stride.
  gpu.func @assemble(%gathered: memref<?xi16, #symm.heap>, %c: memref<?xi16, #symm.heap>,
                     %m: index, %nb: index, %n: index) kernel attributes {rocdl.flat_work_group_size = "1,512"} {
    %c8 = arith.constant 8 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %grid = gpu.grid_dim x
    %base = arith.muli %bid, %bdim : index
    %start = arith.addi %base, %tid : index
    %stride = arith.muli %grid, %bdim : index
    %cols = arith.divui %n, %c8 : index
    %vectors = arith.muli %m, %cols : index
    %block = arith.muli %m, %nb : index
    scf.for %v = %start to %vectors step %stride {
      %row = arith.divui %v, %cols : index
      %cv = arith.remui %v, %cols : index
      %col = arith.muli %cv, %c8 : index
      %r = arith.divui %col, %nb : index
      %rc = arith.remui %col, %nb : index
      %src0 = arith.muli %r, %block : index
      %srow = arith.muli %row, %nb : index
      %src1 = arith.addi %src0, %srow : index
      %src = arith.addi %src1, %rc : index
      %rowbase = arith.muli %row, %n : index
      %dst = arith.addi %rowbase, %col : index
      %bits = vector.load %gathered[%src] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
      vector.store %bits, %c[%dst] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
    }
    gpu.return
  }
}
