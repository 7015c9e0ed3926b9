//===- gemm.mlir - Portable tile GEMM on subgroup MMA ---------------------===//
//
// The portable GEMM of Symm's device library (docs/Library.md): the main
// loop of a 128x128 tile of C = A·B (bf16 in memory, f32 accumulation) on
// `gpu.subgroup_mma_*` with 16x16x16 f16 fragments, the shape every target
// lowers (the CPU target, WMMA on NVIDIA, MFMA on AMD), and the epilogue
// helpers that take its accumulators out. The Hopper main loop (TMA +
// mbarriers + warpgroup MMA) is gemm_hopper.mlir's.
//
// The block. Every function is workgroup-cooperative unless it says
// otherwise: all threads of the block call it with the same arguments. A
// block is 8 subgroups of %lanes threads (%lanes = 32 on the CPU target and
// NVIDIA, 64 on AMD's wavefronts: 256 or 512 threads; AMD kernels need
// rocdl.flat_work_group_size = "1,512"). Subgroup s owns the 64x32
// sub-tile (s / 4, s mod 4) of the tile and holds its 4 x 2 accumulator
// fragments: fragment q = 2 i + j covers tile rows 64 (s / 4) + 16 i and
// columns 32 (s mod 4) + 16 j, 16 of each.
//
// Workgroup memory, passed in by the kernel (gpu.func workgroup
// attributions, 46080 bytes in all), each aligned to 32 bytes
// ({llvm.align = 32 : i64}: WMMA loads and stores take 32-byte aligned
// addresses, and every fragment starts at a multiple of 32 bytes):
//   %sa: memref<256x40xf16, #gpu.address_space<workgroup>>  two stages of A
//        (128 x 32), rows padded to 40 elements against bank conflicts;
//   %sb: memref<64x136xf16, #gpu.address_space<workgroup>>  two stages of B
//        (32 x 128), rows padded to 136;
//   %sc: memref<128x16xf32, #gpu.address_space<workgroup>>  the epilogue's
//        scratch, one 16x16 f32 fragment per subgroup.
//
// Global memory moves in 16-byte vectors: A, B and C start 16-byte aligned,
// and their row strides and the tile origins are multiples of 8 elements.
// bf16 inputs are staged as f16: exact for values in f16's normal range
// (what the GEMM workloads' inputs are), not for bf16's full range.
//
//===----------------------------------------------------------------------===//

!acc = !gpu.mma_matrix<16x16xf32, "COp">
!fa = !gpu.mma_matrix<16x16xf16, "AOp">
!fb = !gpu.mma_matrix<16x16xf16, "BOp">
!sa = memref<256x40xf16, #gpu.address_space<workgroup>>
!sb = memref<64x136xf16, #gpu.address_space<workgroup>>
!sc = memref<128x16xf32, #gpu.address_space<workgroup>>

gpu.module @symm_library_gemm {
  //===--------------------------------------------------------------------===//
  // The main loop
  //===--------------------------------------------------------------------===//

  // The accumulators of the 128x128 tile at (%row0, %col0) of C = A·B over
  // all of K: A is read at rows %row0 .., columns 0 .. %k - 1 (row stride
  // %lda), B at rows 0 .. %k - 1, columns %col0 .. (row stride %ldb). %k is
  // a multiple of 32. Returns this subgroup's 8 fragments (see the top of
  // the file), in order q = 0 .. 7.
  //
  // K advances 32 at a time through the two stages of %sa and %sb: the next
  // step's 16-byte vectors are loaded into registers before the current
  // stage is multiplied and stored into the other stage after it, so one
  // barrier per step suffices. The function ends with that barrier: the
  // stages are free again when it returns, and a kernel may call it for
  // tile after tile.
  func.func @symm_gemm_tile_bf16(%a: memref<?xbf16>, %lda: index, %row0: index,
                                 %b: memref<?xbf16>, %ldb: index, %col0: index,
                                 %k: index, %lanes: index, %sa: !sa, %sb: !sb)
      -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %p:4 = func.call @symm_gemm_stage_load(%a, %lda, %row0, %b, %ldb, %col0, %c0)
        : (memref<?xbf16>, index, index, memref<?xbf16>, index, index, index)
        -> (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>)
    func.call @symm_gemm_stage_store(%p#0, %p#1, %p#2, %p#3, %c0, %sa, %sb)
        : (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>, index, !sa, !sb) -> ()
    gpu.barrier
    %z = gpu.subgroup_mma_constant_matrix %zero : !acc
    %steps = arith.divui %k, %c32 : index
    %last = arith.subi %steps, %c1 : index
    %r:8 = scf.for %s = %c0 to %steps step %c1
        iter_args(%x0 = %z, %x1 = %z, %x2 = %z, %x3 = %z,
                  %x4 = %z, %x5 = %z, %x6 = %z, %x7 = %z)
        -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc) {
      %stage = arith.remui %s, %c2 : index
      // The last step loads its own slice again rather than branch; it is
      // not stored.
      %s1 = arith.addi %s, %c1 : index
      %sn = arith.minui %s1, %last : index
      %kn = arith.muli %sn, %c32 : index
      %n:4 = func.call @symm_gemm_stage_load(%a, %lda, %row0, %b, %ldb, %col0, %kn)
          : (memref<?xbf16>, index, index, memref<?xbf16>, index, index, index)
          -> (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>)
      %y:8 = func.call @symm_gemm_stage_mma(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %stage, %lanes, %sa, %sb)
          : (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, index, index, !sa, !sb)
          -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc)
      // The other stage was last read before the previous step's barrier.
      %more = arith.cmpi ult, %s, %last : index
      scf.if %more {
        %other = arith.subi %c1, %stage : index
        func.call @symm_gemm_stage_store(%n#0, %n#1, %n#2, %n#3, %other, %sa, %sb)
            : (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>, index, !sa, !sb) -> ()
      }
      gpu.barrier
      scf.yield %y#0, %y#1, %y#2, %y#3, %y#4, %y#5, %y#6, %y#7 : !acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc
    }
    return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7 : !acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc
  }

  // Not cooperative: where thread t (mod 256) of the block moves its share
  // of a 32-deep slice, relative to the slice: two 16-byte vectors of A at
  // rows %ar and %ar + 64, columns %ac (%ar = t / 4, %ac = 8 (t mod 4)), and
  // two of B at rows %br and %br + 16, columns %bc (%br = t / 16,
  // %bc = 8 (t mod 16)). 256 threads cover the slice; on 512 the upper half
  // repeats the lower half's loads.
  func.func @symm_gemm_stage_coords() -> (index, index, index, index) {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %t = arith.remui %tid, %c256 : index
    %ar = arith.divui %t, %c4 : index
    %ac4 = arith.remui %t, %c4 : index
    %ac = arith.muli %ac4, %c8 : index
    %br = arith.divui %t, %c16 : index
    %bc16 = arith.remui %t, %c16 : index
    %bc = arith.muli %bc16, %c8 : index
    return %ar, %ac, %br, %bc : index, index, index, index
  }

  // Not cooperative (any thread, at any time): this thread's share of the
  // slice at %k0 of the tile (@symm_gemm_stage_coords), converted to f16.
  func.func @symm_gemm_stage_load(%a: memref<?xbf16>, %lda: index, %row0: index,
                                  %b: memref<?xbf16>, %ldb: index, %col0: index, %k0: index)
      -> (vector<8xf16>, vector<8xf16>, vector<8xf16>, vector<8xf16>) {
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %ar, %ac, %br, %bc = func.call @symm_gemm_stage_coords() : () -> (index, index, index, index)
    %arow = arith.addi %row0, %ar : index
    %abase = arith.muli %arow, %lda : index
    %acol = arith.addi %k0, %ac : index
    %ia0 = arith.addi %abase, %acol : index
    %astep = arith.muli %lda, %c64 : index
    %ia1 = arith.addi %ia0, %astep : index
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

  // Not cooperative: the vectors @symm_gemm_stage_load returned to this
  // thread into stage %stage (0 or 1) of %sa and %sb, where they belong.
  // Only the first 256 threads store (the others' vectors are the same).
  func.func @symm_gemm_stage_store(%a0: vector<8xf16>, %a1: vector<8xf16>,
                                   %b0: vector<8xf16>, %b1: vector<8xf16>,
                                   %stage: index, %sa: !sa, %sb: !sb) {
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %stager = arith.cmpi ult, %tid, %c256 : index
    scf.if %stager {
      %ar, %ac, %br, %bc = func.call @symm_gemm_stage_coords() : () -> (index, index, index, index)
      %arows = arith.muli %stage, %c128 : index
      %brows = arith.muli %stage, %c32 : index
      %ar0 = arith.addi %arows, %ar : index
      %ar1 = arith.addi %ar0, %c64 : index
      %br0 = arith.addi %brows, %br : index
      %br1 = arith.addi %br0, %c16 : index
      vector.store %a0, %sa[%ar0, %ac] {alignment = 16} : !sa, vector<8xf16>
      vector.store %a1, %sa[%ar1, %ac] {alignment = 16} : !sa, vector<8xf16>
      vector.store %b0, %sb[%br0, %bc] {alignment = 16} : !sb, vector<8xf16>
      vector.store %b1, %sb[%br1, %bc] {alignment = 16} : !sb, vector<8xf16>
    }
    return
  }

  // Subgroup-cooperative: this subgroup's fragments %x0 .. %x7 plus its
  // sub-tile's product over stage %stage of %sa and %sb (two 16-deep MMA
  // steps).
  func.func @symm_gemm_stage_mma(%x0: !acc, %x1: !acc, %x2: !acc, %x3: !acc,
                                 %x4: !acc, %x5: !acc, %x6: !acc, %x7: !acc,
                                 %stage: index, %lanes: index, %sa: !sa, %sb: !sb)
      -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %sg = arith.divui %tid, %lanes : index
    %sg_row = arith.divui %sg, %c4 : index
    %sg_col = arith.remui %sg, %c4 : index
    %wm = arith.muli %sg_row, %c64 : index
    %arows = arith.muli %stage, %c128 : index
    %ar0 = arith.addi %arows, %wm : index
    %ar1 = arith.addi %ar0, %c16 : index
    %ar2 = arith.addi %ar1, %c16 : index
    %ar3 = arith.addi %ar2, %c16 : index
    %bc0 = arith.muli %sg_col, %c32 : index
    %bc1 = arith.addi %bc0, %c16 : index
    %brows = arith.muli %stage, %c32 : index
    %y:8 = scf.for %kk = %c0 to %c32 step %c16
        iter_args(%y0 = %x0, %y1 = %x1, %y2 = %x2, %y3 = %x3,
                  %y4 = %x4, %y5 = %x5, %y6 = %x6, %y7 = %x7)
        -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc) {
      %br = arith.addi %brows, %kk : index
      %fa0 = gpu.subgroup_mma_load_matrix %sa[%ar0, %kk] {leadDimension = 40 : index} : !sa -> !fa
      %fa1 = gpu.subgroup_mma_load_matrix %sa[%ar1, %kk] {leadDimension = 40 : index} : !sa -> !fa
      %fa2 = gpu.subgroup_mma_load_matrix %sa[%ar2, %kk] {leadDimension = 40 : index} : !sa -> !fa
      %fa3 = gpu.subgroup_mma_load_matrix %sa[%ar3, %kk] {leadDimension = 40 : index} : !sa -> !fa
      %fb0 = gpu.subgroup_mma_load_matrix %sb[%br, %bc0] {leadDimension = 136 : index} : !sb -> !fb
      %fb1 = gpu.subgroup_mma_load_matrix %sb[%br, %bc1] {leadDimension = 136 : index} : !sb -> !fb
      %z0 = gpu.subgroup_mma_compute %fa0, %fb0, %y0 : !fa, !fb -> !acc
      %z1 = gpu.subgroup_mma_compute %fa0, %fb1, %y1 : !fa, !fb -> !acc
      %z2 = gpu.subgroup_mma_compute %fa1, %fb0, %y2 : !fa, !fb -> !acc
      %z3 = gpu.subgroup_mma_compute %fa1, %fb1, %y3 : !fa, !fb -> !acc
      %z4 = gpu.subgroup_mma_compute %fa2, %fb0, %y4 : !fa, !fb -> !acc
      %z5 = gpu.subgroup_mma_compute %fa2, %fb1, %y5 : !fa, !fb -> !acc
      %z6 = gpu.subgroup_mma_compute %fa3, %fb0, %y6 : !fa, !fb -> !acc
      %z7 = gpu.subgroup_mma_compute %fa3, %fb1, %y7 : !fa, !fb -> !acc
      scf.yield %z0, %z1, %z2, %z3, %z4, %z5, %z6, %z7 : !acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc
    }
    return %y#0, %y#1, %y#2, %y#3, %y#4, %y#5, %y#6, %y#7 : !acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc
  }

  //===--------------------------------------------------------------------===//
  // Epilogues
  //===--------------------------------------------------------------------===//

  // Fragment %q of this subgroup's accumulators %x0 .. %x7, for the tile at
  // (%row0, %col0) of C: returns this lane's 8 consecutive f32 elements, the
  // row and column of C of the first, and whether the lane holds any. Lane
  // l < 32 holds row l / 2, columns 8 (l mod 2) .. of the fragment; lanes
  // 32 .. of AMD's wavefronts hold none. A fragment's register layout is the
  // target's, so it goes through this subgroup's 16 rows of %sc (two
  // barriers: the previous fragment's reads are done, this one's stores are
  // visible).
  func.func @symm_gemm_fragment_row(%x0: !acc, %x1: !acc, %x2: !acc, %x3: !acc,
                                    %x4: !acc, %x5: !acc, %x6: !acc, %x7: !acc,
                                    %q: index, %row0: index, %col0: index,
                                    %lanes: index, %sc: !sc)
      -> (vector<8xf32>, index, index, i1) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %f = scf.index_switch %q -> !acc
    case 0 { scf.yield %x0 : !acc }
    case 1 { scf.yield %x1 : !acc }
    case 2 { scf.yield %x2 : !acc }
    case 3 { scf.yield %x3 : !acc }
    case 4 { scf.yield %x4 : !acc }
    case 5 { scf.yield %x5 : !acc }
    case 6 { scf.yield %x6 : !acc }
    default { scf.yield %x7 : !acc }
    %tid = gpu.thread_id x
    %sg = arith.divui %tid, %lanes : index
    %lane = arith.remui %tid, %lanes : index
    %slot = arith.muli %sg, %c16 : index
    gpu.barrier
    gpu.subgroup_mma_store_matrix %f, %sc[%slot, %c0] {leadDimension = 16 : index} : !acc, !sc
    gpu.barrier
    %l = arith.remui %lane, %c32 : index
    %lr = arith.divui %l, %c2 : index
    %lc2 = arith.remui %l, %c2 : index
    %lc = arith.muli %lc2, %c8 : index
    %sr = arith.addi %slot, %lr : index
    %v = vector.load %sc[%sr, %lc] {alignment = 16} : !sc, vector<8xf32>
    %has = arith.cmpi ult, %lane, %c32 : index
    // Where the fragment is in the tile: sub-tile (sg / 4, sg mod 4),
    // fragment (q / 2, q mod 2) in it.
    %sg_row = arith.divui %sg, %c4 : index
    %sg_col = arith.remui %sg, %c4 : index
    %fi = arith.divui %q, %c2 : index
    %fj = arith.remui %q, %c2 : index
    %wm = arith.muli %sg_row, %c64 : index
    %wn = arith.muli %sg_col, %c32 : index
    %fr = arith.muli %fi, %c16 : index
    %fc = arith.muli %fj, %c16 : index
    %r0 = arith.addi %row0, %wm : index
    %r1 = arith.addi %r0, %fr : index
    %row = arith.addi %r1, %lr : index
    %k0 = arith.addi %col0, %wn : index
    %k1 = arith.addi %k0, %fc : index
    %col = arith.addi %k1, %lc : index
    return %v, %row, %col, %has : vector<8xf32>, index, index, i1
  }

  // The tile's accumulators, rounded once to bf16, into C (row stride %ldc)
  // at (%row0, %col0).
  func.func @symm_gemm_store_tile_bf16(%x0: !acc, %x1: !acc, %x2: !acc, %x3: !acc,
                                       %x4: !acc, %x5: !acc, %x6: !acc, %x7: !acc,
                                       %c: memref<?xbf16>, %ldc: index,
                                       %row0: index, %col0: index,
                                       %lanes: index, %sc: !sc) {
    %c128 = arith.constant 128 : index
    func.call @symm_gemm_store_tile_rows_bf16(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %c, %ldc, %row0, %col0, %c128, %lanes, %sc)
        : (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, memref<?xbf16>, index, index, index, index, index, !sc) -> ()
    return
  }

  // The first %rows rows of the tile (0 .. 128) into C as
  // @symm_gemm_store_tile_bf16 stores them, the others not: the bottom
  // tile of a C whose rows are not a multiple of 128 (its A rows past C's
  // are read, and must be readable, but their products are dropped).
  func.func @symm_gemm_store_tile_rows_bf16(%x0: !acc, %x1: !acc, %x2: !acc, %x3: !acc,
                                            %x4: !acc, %x5: !acc, %x6: !acc, %x7: !acc,
                                            %c: memref<?xbf16>, %ldc: index,
                                            %row0: index, %col0: index, %rows: index,
                                            %lanes: index, %sc: !sc) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %rowEnd = arith.addi %row0, %rows : index
    scf.for %q = %c0 to %c8 step %c1 {
      %v, %row, %col, %has = func.call @symm_gemm_fragment_row(%x0, %x1, %x2, %x3, %x4, %x5, %x6, %x7, %q, %row0, %col0, %lanes, %sc)
          : (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, index, index, index, index, !sc)
          -> (vector<8xf32>, index, index, i1)
      %inside = arith.cmpi ult, %row, %rowEnd : index
      %store = arith.andi %has, %inside : i1
      scf.if %store {
        %bf = arith.truncf %v : vector<8xf32> to vector<8xbf16>
        %base = arith.muli %row, %ldc : index
        %i = arith.addi %base, %col : index
        vector.store %bf, %c[%i] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
      }
    }
    return
  }

  // Not cooperative: %v rounded to bf16 into the symmetric C, which holds
  // bf16 bits (i16), at %c[%i] (16-byte aligned), and with %to_peers at the
  // same place of every peer's C. The bits, not bf16 values, cross the
  // peer loop: on x86 a bf16 value there would need __truncsfbf2, which
  // libgcc before GCC 13 lacks.
  func.func @symm_gemm_store_row_bf16(%v: vector<8xf32>, %c: memref<?xi16, #symm.heap>,
                                      %i: index, %to_peers: i1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bf = arith.truncf %v : vector<8xf32> to vector<8xbf16>
    %bits = arith.bitcast %bf : vector<8xbf16> to vector<8xi16>
    vector.store %bits, %c[%i] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
    scf.if %to_peers {
      %me = symm.rank : i32
      %n32 = symm.world_size : i32
      %mei = arith.index_cast %me : i32 to index
      %n = arith.index_cast %n32 : i32 to index
      scf.for %p = %c0 to %n step %c1 {
        %peer = arith.cmpi ne, %p, %mei : index
        scf.if %peer {
          %p32 = arith.index_cast %p : index to i32
          symm.store %bits, %c[%i] to %p32 : vector<8xi16> -> memref<?xi16, #symm.heap>
        }
      }
    }
    return
  }
}
