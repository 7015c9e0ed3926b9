// Kernels of the all-gather + GEMM workload C = gather(A) · B (bf16 in, f32
// accumulation, bf16 out), compiled by symm-compile for the host target, for
// sm_90 and for gfx942; all_gather_gemm.cpp launches them.
//
// A (M x K, row-major, any M >= 1) is sharded by rows: rank r holds rows
// r·S .. min((r+1)·S, M) - 1, S = ceil(M / W), in `a_shard` (the last ranks
// fewer, or none), in the heap. Each rank multiplies the gathered A by its
// own B (K x N, row-major: a column shard of a weight, as in PyTorch's
// fused_all_gather_matmul) into its own C (M x N).
//
// Row blocks: each rank's rows are P = ceil(S / 128) blocks of 128, the last
// one partial, and A is tiled as if it were padded to W·P·128 rows: row
// block rb = q·P + b is block b of rank q. a_shard holds P·128 rows and
// a_full W·P·128 (rank q's block b at row rb·128): whole blocks move and
// are multiplied, and only the rows of C that exist are stored (the
// library's @symm_row_blocks, @symm_row_block_rows). With M a multiple of
// 128·W the padding is empty.
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
// The GEMM is the device library's portable tile (library/gemm.mlir):
// 128x128 block tiles, 32-deep k steps, a workgroup of 8 subgroups (256
// threads with 32 lanes, 512 with AMD's 64) holding 16x16x16 f16 x f16 ->
// f32 fragments, the one shape every target's MMA takes; A and B staged in
// workgroup memory as f16 (exact in f16's normal range), double-buffered.
// The f32 accumulators are rounded to bf16 once, on the way out.
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
!acc = !gpu.mma_matrix<16x16xf32, "COp">
// The library tile's workgroup memory: two stages of A (128 x 32, rows
// padded to 40) and of B (32 x 128, rows padded to 136), and one 16x16 f32
// fragment per subgroup for the epilogue's conversion.
!sa = memref<256x40xf16, #gpu.address_space<workgroup>>
!sb = memref<64x136xf16, #gpu.address_space<workgroup>>
!sc = memref<128x16xf32, #gpu.address_space<workgroup>>

gpu.module @all_gather_gemm {
  // The device library's portable GEMM tile (gemm.mlir) and the push of
  // this rank's row blocks (tiles.mlir).
  func.func private @symm_gemm_tile_bf16(memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index, !sa, !sb)
      -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc)
  func.func private @symm_gemm_store_tile_rows_bf16(!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, memref<?xbf16>, index, index, index, index, index, !sc)
  func.func private @symm_push_row_blocks(!heap, !heap, !flags, index, index, i32, index, index, index)
  func.func private @symm_row_blocks(index) -> (index, index, index)
  func.func private @symm_row_block_rows(index, index) -> (index, index)

  // Tile v of this rank's order: (row block, column block) of the padded A
  // (%mp rows, see @symm_row_blocks). The order starts at this rank's first
  // row block and wraps around.
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

  // Where row block %rb's A rows are read from (%mp: the padded A's rows):
  // the memref, the row of the block's first row in it, whether a flag must
  // be awaited first and which.
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

  // C = gather(A) · B on this rank. `source` (0 gathered, 1 pull, 2 pushed)
  // says where A's rows come from (see the top of the file). Workgroups
  // 0 .. producers-1 copy this rank's shard into the peers' a_full instead
  // (their flags count on `consumers` workgroups per rank for drained); the
  // other G = grid - producers compute tiles. Computing workgroups wait
  // only for the peers' producers, which have the lowest ids and so start
  // first; producers wait only for the peers' previous launch.
  // The workgroup buffers are 32-byte aligned, as the library tile needs.
  gpu.func @all_gather_gemm(%a_shard: !heap, %a_full: !heap,
                            %b: memref<?xbf16>, %c: memref<?xbf16>,
                            %flags: !flags, %m: index, %n: index, %k: index,
                            %epoch: i32, %lanes: index, %source: index,
                            %producers: index, %consumers: index)
      workgroup(%sa: !sa {llvm.align = 32 : i64}, %sb: !sb {llvm.align = 32 : i64},
                %sc: !sc {llvm.align = 32 : i64})
      kernel attributes {rocdl.flat_work_group_size = "1,512"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %w = arith.index_cast %w32 : i32 to index
    %s, %p, %mp = func.call @symm_row_blocks(%m) : (index) -> (index, index, index)
    %tm = arith.divui %mp, %c128 : index
    %tn = arith.divui %n, %c128 : index
    %tiles = arith.muli %tm, %tn : index
    %produce = arith.cmpi ult, %bid, %producers : index
    scf.if %produce {
      func.call @symm_push_row_blocks(%a_shard, %a_full, %flags, %mp, %k, %epoch, %consumers, %bid, %producers)
          : (!heap, !heap, !flags, index, index, i32, index, index, index) -> ()
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

      scf.for %v = %cb0 to %tiles step %g {
        %rb, %cbk = func.call @tile_of(%v, %mp, %n) : (index, index, index) -> (index, index)
        %crow0, %crows = func.call @symm_row_block_rows(%rb, %m) : (index, index) -> (index, index)
        %col0 = arith.muli %cbk, %c128 : index
        %a, %arow0, %wait, %flag = func.call @a_source(%source, %rb, %a_shard, %a_full, %mp)
            : (index, index, !heap, !heap, index) -> (!heap, index, i1, index)
        %wait1 = arith.andi %wait, %first : i1
        scf.if %wait1 {
          %seen = symm.wait %flags[%flag] ge %epoch scope(system) : !flags -> i32
        }
        gpu.barrier
        // The tile's A rows (%a from row %arow0) and B columns in, this
        // subgroup's f32 fragments out; a target-specific main loop (Hopper:
        // TMA + warpgroup MMA) replaces this kernel. The library tile reads
        // A as plain global memory: a heap memref, translated or not, is one.
        %ag = memref.memory_space_cast %a : !heap to memref<?xbf16>
        %r:8 = func.call @symm_gemm_tile_bf16(%ag, %k, %arow0, %b, %n, %col0, %k, %lanes, %sa, %sb)
            : (memref<?xbf16>, index, index, memref<?xbf16>, index, index, index, index, !sa, !sb)
            -> (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc)
        func.call @symm_gemm_store_tile_rows_bf16(%r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %c, %n, %crow0, %col0, %crows, %lanes, %sc)
            : (!acc, !acc, !acc, !acc, !acc, !acc, !acc, !acc, memref<?xbf16>, index, index, index, index, index, !sc) -> ()
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
