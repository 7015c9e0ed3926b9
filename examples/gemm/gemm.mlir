// The portable GEMM kernel, C = A·B: bf16 in, f32 accumulation, bf16 out,
// on subgroup MMA (`gpu.subgroup_mma_*`, 16x16x16 f16 fragments, the shape
// every target lowers: the CPU target, WMMA on NVIDIA, MFMA on AMD).
// Compiled by symm-compile for the host target, sm_90 and gfx942;
// gemm.cpp launches it.
//
// Kernel ABI (shared with gemm_hopper.mlir's kernel; see README.md):
//   gpu.module @gemm, gpu.func @gemm(%a, %b, %c, %m, %n, %k)
//     %a  memref<?xbf16>  A, M x K, row-major
//     %b  memref<?xbf16>  B, K x N, row-major
//     %c  memref<?xbf16>  C, M x N, row-major (written)
//     %m, %n, %k  index   M, N multiples of 128; K a multiple of 32
//   grid: any number of blocks in x (persistent: block b computes the
//     128x128 tiles b, b + grid, ...; at most one block per tile is useful)
//   block: 8 subgroups, i.e. 8 x the subgroup size threads in x (256 on
//     the CPU target and NVIDIA, 512 on AMD's 64-lane wavefronts)
//   shared memory: none dynamic; 46080 bytes of static workgroup memory.
//
// Design. A block computes a 128x128 tile of C; its 8 subgroups are a
// 2 x 4 grid of 64x32 sub-tiles, each 4 x 2 fragments of 16x16 with f32
// accumulators. The K loop steps 32 at a time through two stages of
// workgroup memory: while the subgroups multiply the tiles of A (128x32)
// and B (32x128) in one stage, every thread loads the next step's tiles
// from global memory in 16-byte vectors (two of A, two of B per thread),
// converts them bf16 -> f16 (exact for values in f16's normal range) and
// stores them into the other stage; one barrier per step. Rows of the
// stages are padded (40 and 136 elements) so that fragment loads of
// successive rows start in different banks; every fragment starts 32 bytes
// aligned (WMMA requires it; hence llvm.align on the buffers). The epilogue rounds each f32
// fragment to bf16 once, through a 16x16 f32 scratch per subgroup, in
// 16-byte stores. Tiles are visited in groups of 8 tile-rows so that the
// blocks running at once share rows of A and columns of B in the cache.
gpu.module @gemm {
  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xbf16>,
                 %m: index, %n: index, %k: index)
      workgroup(%sa: memref<2x128x40xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64},
                %sb: memref<2x32x136xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64},
                %sc: memref<8x16x16xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64}) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c48 = arith.constant 48 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %tid = gpu.thread_id x
    %threads = gpu.block_dim x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    // 8 subgroups whatever their size; %sg is uniform within a subgroup.
    %lanes = arith.divui %threads, %c8 : index
    %sg = arith.divui %tid, %lanes : index
    %lane = arith.remui %tid, %lanes : index
    %sg_row = arith.divui %sg, %c4 : index
    %sg_col = arith.remui %sg, %c4 : index
    %wm = arith.muli %sg_row, %c64 : index
    %wn = arith.muli %sg_col, %c32 : index
    %wm16 = arith.addi %wm, %c16 : index
    %wm32 = arith.addi %wm, %c32 : index
    %wm48 = arith.addi %wm, %c48 : index
    %wn16 = arith.addi %wn, %c16 : index

    // The two 16-byte vectors of each of A's and B's tiles (512 vectors
    // each) this thread moves per step; with 512 threads both slots are the
    // same vector, moved twice by the same thread.
    %v1t = arith.addi %tid, %threads : index
    %v0 = arith.remui %tid, %c512 : index
    %v1 = arith.remui %v1t, %c512 : index
    // A: row v / 4 of the 128x32 tile, columns 8 (v mod 4) ...
    %ar0 = arith.divui %v0, %c4 : index
    %ar1 = arith.divui %v1, %c4 : index
    %ac0m = arith.remui %v0, %c4 : index
    %ac1m = arith.remui %v1, %c4 : index
    %ac0 = arith.muli %ac0m, %c8 : index
    %ac1 = arith.muli %ac1m, %c8 : index
    // B: row v / 16 of the 32x128 tile, columns 8 (v mod 16) ...
    %br0 = arith.divui %v0, %c16 : index
    %br1 = arith.divui %v1, %c16 : index
    %bc0m = arith.remui %v0, %c16 : index
    %bc1m = arith.remui %v1, %c16 : index
    %bc0 = arith.muli %bc0m, %c8 : index
    %bc1 = arith.muli %bc1m, %c8 : index

    %tiles_m = arith.divui %m, %c128 : index
    %tiles_n = arith.divui %n, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    %steps = arith.divui %k, %c32 : index
    %last_step = arith.subi %steps, %c1 : index
    %group_tiles = arith.muli %tiles_n, %c8 : index
    scf.for %t = %bid to %tiles step %grid {
      // Tile t: groups of 8 tile-rows, column-major within a group.
      %group = arith.divui %t, %group_tiles : index
      %first_m = arith.muli %group, %c8 : index
      %rest_m = arith.subi %tiles_m, %first_m : index
      %group_m = arith.minui %rest_m, %c8 : index
      %in_group = arith.remui %t, %group_tiles : index
      %tm_off = arith.remui %in_group, %group_m : index
      %tm = arith.addi %first_m, %tm_off : index
      %tn = arith.divui %in_group, %group_m : index
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c128 : index

      // ===== The main loop: tile (%m0, %n0) in, this subgroup's eight f32
      // accumulator fragments out (fragment (i, j) is rows %wm + 16 i and
      // columns %wn + 16 j of the tile). On NVIDIA, a Hopper main loop (TMA
      // + wgmma, gemm_hopper.mlir) replaces this region.
      %acc:8 = scf.execute_region -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                                      !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                                      !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                                      !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) {
        // Global offsets of this thread's vectors in step 0.
        %ag0r = arith.addi %m0, %ar0 : index
        %ag1r = arith.addi %m0, %ar1 : index
        %ag0rk = arith.muli %ag0r, %k : index
        %ag1rk = arith.muli %ag1r, %k : index
        %ag0 = arith.addi %ag0rk, %ac0 : index
        %ag1 = arith.addi %ag1rk, %ac1 : index
        %bg0rn = arith.muli %br0, %n : index
        %bg1rn = arith.muli %br1, %n : index
        %bg0c = arith.addi %n0, %bc0 : index
        %bg1c = arith.addi %n0, %bc1 : index
        %bg0 = arith.addi %bg0rn, %bg0c : index
        %bg1 = arith.addi %bg1rn, %bg1c : index
        %b_step = arith.muli %n, %c32 : index

        // Step 0 into stage 0.
        %pa0 = vector.load %a[%ag0] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
        %pa1 = vector.load %a[%ag1] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
        %pb0 = vector.load %b[%bg0] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
        %pb1 = vector.load %b[%bg1] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
        %pa0f = arith.extf %pa0 : vector<8xbf16> to vector<8xf32>
        %pa1f = arith.extf %pa1 : vector<8xbf16> to vector<8xf32>
        %pb0f = arith.extf %pb0 : vector<8xbf16> to vector<8xf32>
        %pb1f = arith.extf %pb1 : vector<8xbf16> to vector<8xf32>
        %pa0h = arith.truncf %pa0f : vector<8xf32> to vector<8xf16>
        %pa1h = arith.truncf %pa1f : vector<8xf32> to vector<8xf16>
        %pb0h = arith.truncf %pb0f : vector<8xf32> to vector<8xf16>
        %pb1h = arith.truncf %pb1f : vector<8xf32> to vector<8xf16>
        vector.store %pa0h, %sa[%c0, %ar0, %ac0] : memref<2x128x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        vector.store %pa1h, %sa[%c0, %ar1, %ac1] : memref<2x128x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        vector.store %pb0h, %sb[%c0, %br0, %bc0] : memref<2x32x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        vector.store %pb1h, %sb[%c0, %br1, %bc1] : memref<2x32x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        gpu.barrier

        %zero = arith.constant 0.0 : f32
        %init = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
        %r:8 = scf.for %s = %c0 to %steps step %c1
            iter_args(%x00 = %init, %x01 = %init, %x10 = %init, %x11 = %init,
                      %x20 = %init, %x21 = %init, %x30 = %init, %x31 = %init)
            -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) {
          %stage = arith.remui %s, %c2 : index
          %other = arith.subi %c1, %stage : index
          // The next step's vectors are loaded before the multiply so that
          // their latency overlaps it. The last step loads its own vectors
          // again (into the stage no one reads) rather than branch.
          %s1 = arith.addi %s, %c1 : index
          %next = arith.minui %s1, %last_step : index
          %ka = arith.muli %next, %c32 : index
          %kb = arith.muli %next, %b_step : index
          %na0i = arith.addi %ag0, %ka : index
          %na1i = arith.addi %ag1, %ka : index
          %nb0i = arith.addi %bg0, %kb : index
          %nb1i = arith.addi %bg1, %kb : index
          %na0 = vector.load %a[%na0i] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
          %na1 = vector.load %a[%na1i] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
          %nb0 = vector.load %b[%nb0i] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
          %nb1 = vector.load %b[%nb1i] {alignment = 16} : memref<?xbf16>, vector<8xbf16>

          %y:8 = scf.for %kk = %c0 to %c32 step %c16
              iter_args(%y00 = %x00, %y01 = %x01, %y10 = %x10, %y11 = %x11,
                        %y20 = %x20, %y21 = %x21, %y30 = %x30, %y31 = %x31)
              -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                  !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                  !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                  !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) {
            %fa0 = gpu.subgroup_mma_load_matrix %sa[%stage, %wm, %kk] {leadDimension = 40 : index} : memref<2x128x40xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
            %fa1 = gpu.subgroup_mma_load_matrix %sa[%stage, %wm16, %kk] {leadDimension = 40 : index} : memref<2x128x40xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
            %fa2 = gpu.subgroup_mma_load_matrix %sa[%stage, %wm32, %kk] {leadDimension = 40 : index} : memref<2x128x40xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
            %fa3 = gpu.subgroup_mma_load_matrix %sa[%stage, %wm48, %kk] {leadDimension = 40 : index} : memref<2x128x40xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
            %fb0 = gpu.subgroup_mma_load_matrix %sb[%stage, %kk, %wn] {leadDimension = 136 : index} : memref<2x32x136xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
            %fb1 = gpu.subgroup_mma_load_matrix %sb[%stage, %kk, %wn16] {leadDimension = 136 : index} : memref<2x32x136xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "BOp">
            %z00 = gpu.subgroup_mma_compute %fa0, %fb0, %y00 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
            %z01 = gpu.subgroup_mma_compute %fa0, %fb1, %y01 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
            %z10 = gpu.subgroup_mma_compute %fa1, %fb0, %y10 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
            %z11 = gpu.subgroup_mma_compute %fa1, %fb1, %y11 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
            %z20 = gpu.subgroup_mma_compute %fa2, %fb0, %y20 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
            %z21 = gpu.subgroup_mma_compute %fa2, %fb1, %y21 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
            %z30 = gpu.subgroup_mma_compute %fa3, %fb0, %y30 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
            %z31 = gpu.subgroup_mma_compute %fa3, %fb1, %y31 : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
            scf.yield %z00, %z01, %z10, %z11, %z20, %z21, %z30, %z31
                : !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                  !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                  !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                  !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">
          }

          %na0f = arith.extf %na0 : vector<8xbf16> to vector<8xf32>
          %na1f = arith.extf %na1 : vector<8xbf16> to vector<8xf32>
          %nb0f = arith.extf %nb0 : vector<8xbf16> to vector<8xf32>
          %nb1f = arith.extf %nb1 : vector<8xbf16> to vector<8xf32>
          %na0h = arith.truncf %na0f : vector<8xf32> to vector<8xf16>
          %na1h = arith.truncf %na1f : vector<8xf32> to vector<8xf16>
          %nb0h = arith.truncf %nb0f : vector<8xf32> to vector<8xf16>
          %nb1h = arith.truncf %nb1f : vector<8xf32> to vector<8xf16>
          vector.store %na0h, %sa[%other, %ar0, %ac0] : memref<2x128x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          vector.store %na1h, %sa[%other, %ar1, %ac1] : memref<2x128x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          vector.store %nb0h, %sb[%other, %br0, %bc0] : memref<2x32x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          vector.store %nb1h, %sb[%other, %br1, %bc1] : memref<2x32x136xf16, #gpu.address_space<workgroup>>, vector<8xf16>
          // Every subgroup is done with %stage (written again in the next
          // step) and %other is complete.
          gpu.barrier
          scf.yield %y#0, %y#1, %y#2, %y#3, %y#4, %y#5, %y#6, %y#7
              : !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
                !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">
        }
        scf.yield %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7
            : !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
              !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
              !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">,
              !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">
      }
      // ===== End of the main loop.

      // The epilogue: fragment q = 2 i + j goes through this subgroup's
      // scratch (store_matrix writes only its own element type), and its
      // lanes round it to bf16 and store rows of 8 elements.
      %tile_row = arith.addi %m0, %wm : index
      %tile_col = arith.addi %n0, %wn : index
      %lane8 = arith.muli %lane, %c8 : index
      %lanes8 = arith.muli %lanes, %c8 : index
      scf.for %q = %c0 to %c8 step %c1 {
        %f = scf.index_switch %q -> !gpu.mma_matrix<16x16xf32, "COp">
        case 0 { scf.yield %acc#0 : !gpu.mma_matrix<16x16xf32, "COp"> }
        case 1 { scf.yield %acc#1 : !gpu.mma_matrix<16x16xf32, "COp"> }
        case 2 { scf.yield %acc#2 : !gpu.mma_matrix<16x16xf32, "COp"> }
        case 3 { scf.yield %acc#3 : !gpu.mma_matrix<16x16xf32, "COp"> }
        case 4 { scf.yield %acc#4 : !gpu.mma_matrix<16x16xf32, "COp"> }
        case 5 { scf.yield %acc#5 : !gpu.mma_matrix<16x16xf32, "COp"> }
        case 6 { scf.yield %acc#6 : !gpu.mma_matrix<16x16xf32, "COp"> }
        default { scf.yield %acc#7 : !gpu.mma_matrix<16x16xf32, "COp"> }
        gpu.subgroup_mma_store_matrix %f, %sc[%sg, %c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<8x16x16xf32, #gpu.address_space<workgroup>>
        // The lanes read elements other lanes stored.
        gpu.barrier
        %fi = arith.divui %q, %c2 : index
        %fj = arith.remui %q, %c2 : index
        %fr = arith.muli %fi, %c16 : index
        %fc = arith.muli %fj, %c16 : index
        %row0 = arith.addi %tile_row, %fr : index
        %col0 = arith.addi %tile_col, %fc : index
        scf.for %e = %lane8 to %c256 step %lanes8 {
          %er = arith.divui %e, %c16 : index
          %ec = arith.remui %e, %c16 : index
          %v = vector.load %sc[%sg, %er, %ec] : memref<8x16x16xf32, #gpu.address_space<workgroup>>, vector<8xf32>
          %vb = arith.truncf %v : vector<8xf32> to vector<8xbf16>
          %row = arith.addi %row0, %er : index
          %col = arith.addi %col0, %ec : index
          %rown = arith.muli %row, %n : index
          %at = arith.addi %rown, %col : index
          vector.store %vb, %c[%at] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
        }
        // The scratch is written again by the next fragment.
        gpu.barrier
      }
    }
    gpu.return
  }
}
