// Kernels of the all-gather + GEMM workload C = gather(A) · B (bf16 in, f32
// accumulation, bf16 out), compiled by symm-compile for the host target, for
// sm_90 and for gfx942; all_gather_gemm.cpp launches them.
//
// A (M x K, row-major) is sharded by rows: rank r holds rows r·M/W ..
// (r+1)·M/W - 1 in `a_shard`, in the heap. Each rank multiplies the gathered
// A by its own B (K x N, row-major: a column shard of a weight, as in
// PyTorch's fused_all_gather_matmul) into its own C (M x N).
//
// One kernel, @all_gather_gemm, serves every variant; its arguments say
// where A's tiles come from and which workgroups copy A instead:
//   bulk_sync  source 0: A gathered beforehand (symm_all_gather) in a_full
//   pull       source 1: the rows of rank q are loaded from q's a_shard,
//              through the heap, inside the k loop
//   push       two launches on two streams: producers = grid (every
//              workgroup copies this rank's shard into the peers' a_full,
//              one flag per row block), and source 2, producers = 0 (the
//              GEMM: a peer's row block waits for its flag, this rank's
//              rows are read from a_shard)
//   fused      one launch, source 2: workgroups 0 .. producers-1 copy,
//              the others compute
//
// The GEMM: 128x128 block tiles, 32-deep k steps. A workgroup is 8
// subgroups (256 threads with 32 lanes, 512 with AMD's 64); subgroup s owns
// the 64x32 sub-tile (s / 4, s mod 4) of the block tile: 4x2 fragments of
// 16x16x16, the one shape every target's MMA takes. A and B tiles are staged
// in workgroup memory converted from bf16 to f16 (exact in f16's normal
// range), double-buffered: the 16-byte loads of step s + 1 are issued before
// step s is multiplied and stored into the other buffer after, so one barrier
// per step suffices. The f32 accumulators are rounded to bf16 once, on the
// way out.
//
// Consumer workgroups are persistent: workgroup b takes tiles b, b + G, ...
// of this rank's tile order, which starts at its own row blocks (local A,
// nothing to wait for) and goes on with the next ranks'.
//
// Flags (i32, heap): ready[rb] for each 128-row block rb of A, then
// drained[q] for each rank q. Launch e of a variant passes epoch e (1, 2,
// ...) and flags only grow, so back-to-back launches need no reset.
// - push, fused: ready[rb] = e on rank p when row block rb of epoch e is in
//   p's a_full. drained[p] on rank q counts p's consumer workgroups that are
//   done: before it overwrites p's a_full with epoch e, rank q waits until
//   all of p's consumers of epoch e - 1 are done reading it.
// - pull: ready[q] = e on rank p when rank q's shard of epoch e is in place
//   (raised as q's kernel starts: its shard was written before it on q's
//   stream).
!heap = memref<?xbf16, #symm.heap>
!flags = memref<?xi32, #symm.heap>
!slice = memref<?xbf16, strided<[1], offset: ?>, #symm.heap>
!acc = !gpu.mma_matrix<16x16xf32, "COp">
!fa = !gpu.mma_matrix<16x16xf16, "AOp">
!fb = !gpu.mma_matrix<16x16xf16, "BOp">
// Two stages of A (128 x 32, rows padded to 40) and of B (32 x 128, rows
// padded to 136): the padding keeps 16-byte rows aligned and spreads the
// subgroups' fragment loads over the banks.
!sa = memref<256x40xf16, #gpu.address_space<workgroup>>
!sb = memref<64x136xf16, #gpu.address_space<workgroup>>
// One 16x16 f32 fragment per subgroup, for the epilogue's conversion.
!sc = memref<128x16xf32, #gpu.address_space<workgroup>>

gpu.module @all_gather_gemm {
  // The staging thread's 16-byte loads of one k step: two vectors of the
  // 128 x 32 A tile at (arow0, k0) of `a` (row stride k) and two of the
  // 32 x 128 B tile at (k0, col0) of `b` (row stride n). 256 threads cover
  // both tiles; with 512 threads (AMD) the upper half repeats the lower
  // half's (the same values into the same places).
  func.func @load_stage(%a: !heap, %arow0: index, %b: memref<?xbf16>,
                        %col0: index, %k0: index, %n: index, %k: index)
      -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>) {
    %ar, %ac, %br, %bc = func.call @stage_coords() : () -> (index, index, index, index)
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %arow = arith.addi %arow0, %ar : index
    %abase = arith.muli %arow, %k : index
    %ak = arith.addi %k0, %ac : index
    %ai0 = arith.addi %abase, %ak : index
    %k64 = arith.muli %k, %c64 : index
    %ai1 = arith.addi %ai0, %k64 : index
    %brow = arith.addi %k0, %br : index
    %bbase = arith.muli %brow, %n : index
    %bcol = arith.addi %col0, %bc : index
    %bi0 = arith.addi %bbase, %bcol : index
    %n16 = arith.muli %n, %c16 : index
    %bi1 = arith.addi %bi0, %n16 : index
    %va0 = vector.load %a[%ai0] {alignment = 16} : !heap, vector<8xbf16>
    %va1 = vector.load %a[%ai1] {alignment = 16} : !heap, vector<8xbf16>
    %vb0 = vector.load %b[%bi0] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
    %vb1 = vector.load %b[%bi1] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
    return %va0, %va1, %vb0, %vb1 : vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>
  }

  // The staging thread's place in the tiles: A row %ar (and %ar + 64) at
  // column %ac, B row %br (and %br + 16) at column %bc.
  func.func @stage_coords() -> (index, index, index, index) {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %st = arith.remui %tid, %c256 : index
    %ar = arith.divui %st, %c4 : index
    %ac4 = arith.remui %st, %c4 : index
    %ac = arith.muli %ac4, %c8 : index
    %br = arith.divui %st, %c16 : index
    %bc16 = arith.remui %st, %c16 : index
    %bc = arith.muli %bc16, %c8 : index
    return %ar, %ac, %br, %bc : index, index, index, index
  }

  func.func @to_f16(%v: vector<8xbf16>) -> vector<8xf16> {
    %f = arith.extf %v : vector<8xbf16> to vector<8xf32>
    %h = arith.truncf %f : vector<8xf32> to vector<8xf16>
    return %h : vector<8xf16>
  }

  // Tile v of this rank's order: (row block, column block). The order starts
  // at this rank's first row block and wraps around.
  func.func @tile_of(%v: index, %m: index, %n: index) -> (index, index) {
    %c128 = arith.constant 128 : index
    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %w = arith.index_cast %w32 : i32 to index
    %tm = arith.divui %m, %c128 : index
    %tn = arith.divui %n, %c128 : index
    %tiles = arith.muli %tm, %tn : index
    %per_rank = arith.divui %tm, %w : index
    %first_rb = arith.muli %me, %per_rank : index
    %first = arith.muli %first_rb, %tn : index
    %vf = arith.addi %v, %first : index
    %t = arith.remui %vf, %tiles : index
    %rb = arith.divui %t, %tn : index
    %cb = arith.remui %t, %tn : index
    return %rb, %cb : index, index
  }

  // Where row block %rb's A rows are read from: the memref, the row of the
  // block's first row in it, whether a flag must be awaited first and which.
  func.func @a_source(%source: index, %rb: index, %a_shard: !heap,
                      %a_full: !heap, %m: index)
      -> (!heap, index, i1, index) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %false = arith.constant false
    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %w = arith.index_cast %w32 : i32 to index
    %shard_rows = arith.divui %m, %w : index
    %row0 = arith.muli %rb, %c128 : index
    %owner = arith.divui %row0, %shard_rows : index
    %owner_row0 = arith.muli %owner, %shard_rows : index
    %local_row = arith.subi %row0, %owner_row0 : index
    %theirs = arith.cmpi ne, %owner, %me : index
    %c0 = arith.constant 0 : index
    %gathered = arith.cmpi eq, %source, %c0 : index
    %pull = arith.cmpi eq, %source, %c1 : index
    %src, %arow0, %wait, %flag = scf.if %gathered -> (!heap, index, i1, index) {
      scf.yield %a_full, %row0, %false, %rb : !heap, index, i1, index
    } else {
      %r:4 = scf.if %pull -> (!heap, index, i1, index) {
        %owner32 = arith.index_cast %owner : index to i32
        %remote = symm.translate %a_shard to %owner32 : !heap
        scf.yield %remote, %local_row, %theirs, %owner : !heap, index, i1, index
      } else {
        %s = arith.select %theirs, %a_full, %a_shard : !heap
        %r0 = arith.select %theirs, %row0, %local_row : index
        scf.yield %s, %r0, %theirs, %rb : !heap, index, i1, index
      }
      scf.yield %r#0, %r#1, %r#2, %r#3 : !heap, index, i1, index
    }
    return %src, %arow0, %wait, %flag : !heap, index, i1, index
  }

  // Producer work item u: this rank's row block u / (W - 1) for peer
  // me + 1 + u mod (W - 1). Returns the peer, the row block, the index of
  // drained[peer] and the value it must reach before the peer's a_full is
  // overwritten (all `consumers` workgroups of the previous epoch done), and
  // the 128 x k rows in this rank's shard and in the peer's a_full.
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

  // C = gather(A) · B on this rank. `source` (0 gathered, 1 pull, 2 pushed)
  // says where A's rows come from (see the top of the file). Workgroups
  // 0 .. producers-1 copy this rank's shard into the peers' a_full instead
  // (their flags count on `consumers` workgroups per rank for drained); the
  // other G = grid - producers compute tiles. Computing workgroups wait
  // only for the peers' producers, which have the lowest ids and so start
  // first; producers wait only for the peers' previous launch.
  // The workgroup buffers are 32-byte aligned: WMMA loads and stores take
  // 32-byte aligned addresses (every fragment's offset is a multiple of 32),
  // and buffers without the attribute are only element-aligned.
  gpu.func @all_gather_gemm(%a_shard: !heap, %a_full: !heap,
                            %b: memref<?xbf16>, %c: memref<?xbf16>,
                            %flags: !flags, %m: index, %n: index, %k: index,
                            %epoch: i32, %lanes: index, %source: index,
                            %producers: index, %consumers: index)
      workgroup(%sa: !sa {llvm.align = 32 : i64}, %sb: !sb {llvm.align = 32 : i64},
                %sc: !sc {llvm.align = 32 : i64}) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0.0 : f32
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %w = arith.index_cast %w32 : i32 to index
    %tm = arith.divui %m, %c128 : index
    %tn = arith.divui %n, %c128 : index
    %tiles = arith.muli %tm, %tn : index
    %per_rank = arith.divui %tm, %w : index
    %produce = arith.cmpi ult, %bid, %producers : index
    scf.if %produce {
      // Producer: work items bid, bid + producers, ... (see @push_item).
      %peers = arith.subi %w, %c1 : index
      %items = arith.muli %per_rank, %peers : index
      scf.for %u = %bid to %items step %producers {
        %p, %rb, %drained, %want, %src, %dst = func.call @push_item(%u, %a_shard, %a_full, %m, %k, %epoch, %consumers)
            : (index, !heap, !heap, index, index, i32, index) -> (i32, index, index, i32, !slice, !slice)
        scf.if %first {
          %seen = symm.wait %flags[%drained] ge %want scope(system) : !flags -> i32
        }
        gpu.barrier
        symm.put %src to %dst on %p signal(set %epoch, %flags[%rb] : !flags) scope(system) : !slice -> !slice
      }
    } else {
      %cb0 = arith.subi %bid, %producers : index
      %g = arith.subi %grid, %producers : index
      // pull: this rank's shard of this epoch is in place for the peers.
      %pull = arith.cmpi eq, %source, %c1 : index
      %b0 = arith.cmpi eq, %cb0, %c0 : index
      %lead = arith.andi %b0, %first : i1
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

      // This subgroup's sub-tile, and its slot of %sc.
      %sub = arith.divui %tid, %lanes : index
      %lane = arith.remui %tid, %lanes : index
      %wr = arith.divui %sub, %c4 : index
      %wc = arith.remui %sub, %c4 : index
      %row = arith.muli %wr, %c64 : index
      %col = arith.muli %wc, %c32 : index
      %col1 = arith.addi %col, %c16 : index
      %slot = arith.muli %sub, %c16 : index
      %ar, %ac, %br, %bc = func.call @stage_coords() : () -> (index, index, index, index)
      %steps = arith.divui %k, %c32 : index
      %last = arith.subi %steps, %c1 : index

      scf.for %v = %cb0 to %tiles step %g {
        %rb, %cbk = func.call @tile_of(%v, %m, %n) : (index, index, index) -> (index, index)
        %crow0 = arith.muli %rb, %c128 : index
        %col0 = arith.muli %cbk, %c128 : index
        %a, %arow0, %wait, %flag = func.call @a_source(%source, %rb, %a_shard, %a_full, %m)
            : (index, index, !heap, !heap, index) -> (!heap, index, i1, index)
        %wait1 = arith.andi %wait, %first : i1
        scf.if %wait1 {
          %seen = symm.wait %flags[%flag] ge %epoch scope(system) : !flags -> i32
        }
        gpu.barrier

        //===------------------------------------------------------------===//
        // The GEMM main loop: the tile's A rows (%a from row %arow0), its B
        // columns (%b from column %col0) in; this subgroup's 4x2 f32
        // accumulator fragments (%r, row-major) out. A target-specific main
        // loop (Hopper: TMA + warpgroup MMA) replaces this region.
        //===------------------------------------------------------------===//
        %p:4 = func.call @load_stage(%a, %arow0, %b, %col0, %c0, %n, %k)
            : (!heap, index, memref<?xbf16>, index, index, index, index)
            -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>)
        %ar64 = arith.addi %ar, %c64 : index
        %br16 = arith.addi %br, %c16 : index
        %ph0 = func.call @to_f16(%p#0) : (vector<8xbf16>) -> vector<8xf16>
        %ph1 = func.call @to_f16(%p#1) : (vector<8xbf16>) -> vector<8xf16>
        %ph2 = func.call @to_f16(%p#2) : (vector<8xbf16>) -> vector<8xf16>
        %ph3 = func.call @to_f16(%p#3) : (vector<8xbf16>) -> vector<8xf16>
        vector.store %ph0, %sa[%ar, %ac] {alignment = 16} : !sa, vector<8xf16>
        vector.store %ph1, %sa[%ar64, %ac] {alignment = 16} : !sa, vector<8xf16>
        vector.store %ph2, %sb[%br, %bc] {alignment = 16} : !sb, vector<8xf16>
        vector.store %ph3, %sb[%br16, %bc] {alignment = 16} : !sb, vector<8xf16>
        gpu.barrier
        %z = gpu.subgroup_mma_constant_matrix %zero : !acc
        %r:8 = scf.for %s = %c0 to %steps step %c1
            iter_args(%d0 = %z, %d1 = %z, %d2 = %z, %d3 = %z,
                      %d4 = %z, %d5 = %z, %d6 = %z, %d7 = %z)
            -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc) {
          // Step s + 1's loads are in flight while step s is multiplied
          // (the last step loads itself again, into the idle buffer).
          %s1 = arith.addi %s, %c1 : index
          %nxt = arith.minui %s1, %last : index
          %k0 = arith.muli %nxt, %c32 : index
          %v4:4 = func.call @load_stage(%a, %arow0, %b, %col0, %k0, %n, %k)
              : (!heap, index, memref<?xbf16>, index, index, index, index)
              -> (vector<8xbf16>, vector<8xbf16>, vector<8xbf16>, vector<8xbf16>)
          %buf = arith.remui %s, %c2 : index
          %abuf = arith.muli %buf, %c128 : index
          %bbuf = arith.muli %buf, %c32 : index
          %ar0 = arith.addi %abuf, %row : index
          %ar1 = arith.addi %ar0, %c16 : index
          %ar2 = arith.addi %ar1, %c16 : index
          %ar3 = arith.addi %ar2, %c16 : index
          %e:8 = scf.for %kk = %c0 to %c32 step %c16
              iter_args(%e0 = %d0, %e1 = %d1, %e2 = %d2, %e3 = %d3,
                        %e4 = %d4, %e5 = %d5, %e6 = %d6, %e7 = %d7)
              -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc) {
            %bk = arith.addi %bbuf, %kk : index
            %a0 = gpu.subgroup_mma_load_matrix %sa[%ar0, %kk] {leadDimension = 40 : index} : !sa -> !fa
            %a1 = gpu.subgroup_mma_load_matrix %sa[%ar1, %kk] {leadDimension = 40 : index} : !sa -> !fa
            %a2 = gpu.subgroup_mma_load_matrix %sa[%ar2, %kk] {leadDimension = 40 : index} : !sa -> !fa
            %a3 = gpu.subgroup_mma_load_matrix %sa[%ar3, %kk] {leadDimension = 40 : index} : !sa -> !fa
            %b0f = gpu.subgroup_mma_load_matrix %sb[%bk, %col] {leadDimension = 136 : index} : !sb -> !fb
            %b1f = gpu.subgroup_mma_load_matrix %sb[%bk, %col1] {leadDimension = 136 : index} : !sb -> !fb
            %f0 = gpu.subgroup_mma_compute %a0, %b0f, %e0 : !fa, !fb -> !acc
            %f1 = gpu.subgroup_mma_compute %a0, %b1f, %e1 : !fa, !fb -> !acc
            %f2 = gpu.subgroup_mma_compute %a1, %b0f, %e2 : !fa, !fb -> !acc
            %f3 = gpu.subgroup_mma_compute %a1, %b1f, %e3 : !fa, !fb -> !acc
            %f4 = gpu.subgroup_mma_compute %a2, %b0f, %e4 : !fa, !fb -> !acc
            %f5 = gpu.subgroup_mma_compute %a2, %b1f, %e5 : !fa, !fb -> !acc
            %f6 = gpu.subgroup_mma_compute %a3, %b0f, %e6 : !fa, !fb -> !acc
            %f7 = gpu.subgroup_mma_compute %a3, %b1f, %e7 : !fa, !fb -> !acc
            scf.yield %f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7 : !acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc
          }
          // The other buffer was last read in step s - 1, before its barrier.
          %other = arith.subi %c1, %buf : index
          %oa = arith.muli %other, %c128 : index
          %ob = arith.muli %other, %c32 : index
          %sa0 = arith.addi %oa, %ar : index
          %sa1 = arith.addi %sa0, %c64 : index
          %sb0 = arith.addi %ob, %br : index
          %sb1 = arith.addi %sb0, %c16 : index
          %h0 = func.call @to_f16(%v4#0) : (vector<8xbf16>) -> vector<8xf16>
          %h1 = func.call @to_f16(%v4#1) : (vector<8xbf16>) -> vector<8xf16>
          %h2 = func.call @to_f16(%v4#2) : (vector<8xbf16>) -> vector<8xf16>
          %h3 = func.call @to_f16(%v4#3) : (vector<8xbf16>) -> vector<8xf16>
          vector.store %h0, %sa[%sa0, %ac] {alignment = 16} : !sa, vector<8xf16>
          vector.store %h1, %sa[%sa1, %ac] {alignment = 16} : !sa, vector<8xf16>
          vector.store %h2, %sb[%sb0, %bc] {alignment = 16} : !sb, vector<8xf16>
          vector.store %h3, %sb[%sb1, %bc] {alignment = 16} : !sb, vector<8xf16>
          gpu.barrier
          scf.yield %e#0, %e#1, %e#2, %e#3, %e#4, %e#5, %e#6, %e#7 : !acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc
        }
        //===------------------------------------------------------------===//
        // End of the GEMM main loop.
        //===------------------------------------------------------------===//

        // The epilogue, one fragment at a time through the subgroup's slot
        // of %sc (a fragment's layout is the target's): lane l converts row
        // l / 2, columns 8 (l mod 2) .. +7 to bf16 and stores them as one
        // 16-byte vector (lanes past 32, on AMD, have none).
        scf.for %fi = %c0 to %c8 step %c1 {
          %frag = scf.index_switch %fi -> !acc
          case 0 { scf.yield %r#0 : !acc }
          case 1 { scf.yield %r#1 : !acc }
          case 2 { scf.yield %r#2 : !acc }
          case 3 { scf.yield %r#3 : !acc }
          case 4 { scf.yield %r#4 : !acc }
          case 5 { scf.yield %r#5 : !acc }
          case 6 { scf.yield %r#6 : !acc }
          default { scf.yield %r#7 : !acc }
          gpu.subgroup_mma_store_matrix %frag, %sc[%slot, %c0] {leadDimension = 16 : index} : !acc, !sc
          gpu.barrier
          %fr = arith.divui %fi, %c2 : index
          %fc = arith.remui %fi, %c2 : index
          %fr16 = arith.muli %fr, %c16 : index
          %fc16 = arith.muli %fc, %c16 : index
          %crow1 = arith.addi %crow0, %row : index
          %crow = arith.addi %crow1, %fr16 : index
          %ccol1 = arith.addi %col0, %col : index
          %ccol = arith.addi %ccol1, %fc16 : index
          scf.for %el = %lane to %c32 step %lanes {
            %er = arith.divui %el, %c2 : index
            %eh = arith.remui %el, %c2 : index
            %ec = arith.muli %eh, %c8 : index
            %sr = arith.addi %slot, %er : index
            %fv = vector.load %sc[%sr, %ec] : !sc, vector<8xf32>
            %bv = arith.truncf %fv : vector<8xf32> to vector<8xbf16>
            %orow = arith.addi %crow, %er : index
            %ocol = arith.addi %ccol, %ec : index
            %obase = arith.muli %orow, %n : index
            %oi = arith.addi %obase, %ocol : index
            vector.store %bv, %c[%oi] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
          }
          // The slot is written again by the next fragment.
          gpu.barrier
        }
      }

      // push, fused: this workgroup is done reading the peers' rows of
      // a_full (every thread, by the barrier): count it on every peer.
      %pushed = arith.cmpi eq, %source, %c2 : index
      gpu.barrier
      %count = arith.andi %pushed, %first : i1
      scf.if %count {
        %dr = arith.addi %tm, %me : index
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
