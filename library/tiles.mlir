//===- tiles.mlir - Announcing, awaiting and pushing tiles ---------------===//
//
// Signalling helpers of Symm's device library (docs/Library.md) for kernels
// that scatter output tiles to every peer: count arrivals on the peers,
// wait until every peer's arrivals reach a count, push finished tiles; and
// for kernels that gather input rows from every peer: push this rank's row
// blocks once the peers are done with the previous ones.
// Workgroup-cooperative: every thread of the workgroup calls them with the
// same arguments. The counts and flags are heap arrays of i32, zero before
// first use, compared against an epoch or a multiple of it.
//
//===----------------------------------------------------------------------===//

gpu.module @symm_library_tiles {
  // Adds %count to arrivals[this rank] on every peer once every thread's
  // stores are visible there (symm.release_barrier, then thread 0's release
  // signals, which release every thread's stores): the receivers count what
  // landed, e.g. tiles.
  func.func @symm_announce(%arrivals: memref<?xi32, #symm.heap>, %count: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    symm.release_barrier scope(system)
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %me = symm.rank : i32
      %n32 = symm.world_size : i32
      %mei = arith.index_cast %me : i32 to index
      %n = arith.index_cast %n32 : i32 to index
      scf.for %p = %c0 to %n step %c1 {
        %peer = arith.cmpi ne, %p, %mei : index
        scf.if %peer {
          %p32 = arith.index_cast %p : index to i32
          symm.signal add %count, %arrivals[%mei] on %p32 scope(system) : i32 -> memref<?xi32, #symm.heap>
        }
      }
    }
    return
  }

  // Not cooperative: block 0's first thread waits until every peer's
  // arrivals count reaches %expected (e.g. all its tiles of this launch have
  // landed here); other threads return at once.
  func.func @symm_await_arrivals(%arrivals: memref<?xi32, #symm.heap>, %expected: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %bid, %c0 : index
    %first = arith.andi %t0, %b0 : i1
    scf.if %first {
      %me = symm.rank : i32
      %n32 = symm.world_size : i32
      %mei = arith.index_cast %me : i32 to index
      %n = arith.index_cast %n32 : i32 to index
      scf.for %p = %c0 to %n step %c1 {
        %peer = arith.cmpi ne, %p, %mei : index
        scf.if %peer {
          %seen = symm.wait %arrivals[%p] ge %expected scope(system) : memref<?xi32, #symm.heap> -> i32
        }
      }
    }
    return
  }

  // The push of a workgroup-specialised all-scatter: 128x128 tiles of bf16
  // bits (row-major tile order over an m x nb block at columns coloff .. of
  // the m x ldc matrix C; any m, the last tile row holding the rows left)
  // first, first + step, ...: waits until each tile's flag reaches the
  // epoch, then copies the tile's rows of C (16-byte vectors) from this
  // rank's C to every peer's C and announces it (one arrival per tile).
  func.func @symm_push_tiles(%c: memref<?xi16, #symm.heap>, %flags: memref<?xi32, #symm.heap>,
                        %arrivals: memref<?xi32, #symm.heap>, %m: index, %nb: index,
                        %ldc: index, %coloff: index, %epoch: i32, %first: index, %step: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %c2048 = arith.constant 2048 : index
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %threads = gpu.block_dim x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %me = symm.rank : i32
    %n32 = symm.world_size : i32
    %mei = arith.index_cast %me : i32 to index
    %n = arith.index_cast %n32 : i32 to index
    %c127 = arith.constant 127 : index
    %m_up = arith.addi %m, %c127 : index
    %tiles_m = arith.divui %m_up, %c128 : index
    %tiles_n = arith.divui %nb, %c128 : index
    %tiles = arith.muli %tiles_m, %tiles_n : index
    scf.for %t = %first to %tiles step %step {
      scf.if %t0 {
        %seen = symm.wait %flags[%t] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
      }
      gpu.barrier
      %tm = arith.divui %t, %tiles_n : index
      %tn = arith.remui %t, %tiles_n : index
      %row0 = arith.muli %tm, %c128 : index
      %col0 = arith.muli %tn, %c128 : index
      %ccol = arith.addi %coloff, %col0 : index
      scf.for %v = %tid to %c2048 step %threads {
        %r = arith.divui %v, %c16 : index
        %cv = arith.remui %v, %c16 : index
        %cc = arith.muli %cv, %c8 : index
        %row = arith.addi %row0, %r : index
        %in_c = arith.cmpi ult, %row, %m : index
        scf.if %in_c {
          %base = arith.muli %row, %ldc : index
          %col = arith.addi %ccol, %cc : index
          %i = arith.addi %base, %col : index
          %bits = vector.load %c[%i] {alignment = 16} : memref<?xi16, #symm.heap>, vector<8xi16>
          scf.for %p = %c0 to %n step %c1 {
            %peer = arith.cmpi ne, %p, %mei : index
            scf.if %peer {
              %p32 = arith.index_cast %p : index to i32
              symm.store %bits, %c[%i] to %p32 : vector<8xi16> -> memref<?xi16, #symm.heap>
            }
          }
        }
      }
      func.call @symm_announce(%arrivals, %one) : (memref<?xi32, #symm.heap>, i32) -> ()
    }
    return
  }

  // The row blocks of an M-row matrix sharded by rows over the W ranks
  // (any M >= 1): rank q holds rows q S .. min((q + 1) S, M) - 1, S =
  // ceil(M / W) (the last ranks fewer, or none), as P = ceil(S / 128) blocks
  // of 128 rows, the last one partial. Returns S, P and the rows of the
  // matrix padded to W P 128 rows, whose row block rb = q P + b is block b
  // of rank q's rows: a shard holds P 128 rows, the gathered matrix W P 128
  // (what @symm_push_row_blocks moves, given these rows as its %m). Not
  // cooperative.
  func.func @symm_row_blocks(%m: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %w32 = symm.world_size : i32
    %w = arith.index_cast %w32 : i32 to index
    %wm1 = arith.subi %w, %c1 : index
    %mUp = arith.addi %m, %wm1 : index
    %s = arith.divui %mUp, %w : index
    %sUp = arith.addi %s, %c127 : index
    %p = arith.divui %sUp, %c128 : index
    %wp = arith.muli %w, %p : index
    %mp = arith.muli %wp, %c128 : index
    return %s, %p, %mp : index, index, index
  }

  // Row block %rb (of @symm_row_blocks' padding of %m rows): its first row
  // in the unpadded matrix, and how many of its 128 rows are rows of it (0
  // .. 128). Not cooperative.
  func.func @symm_row_block_rows(%rb: index, %m: index) -> (index, index) {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %s, %p, %mp = func.call @symm_row_blocks(%m) : (index) -> (index, index, index)
    %owner = arith.divui %rb, %p : index
    %ownerRb0 = arith.muli %owner, %p : index
    %blk = arith.subi %rb, %ownerRb0 : index
    %ownerRow0 = arith.muli %owner, %s : index
    %blkRow0 = arith.muli %blk, %c128 : index
    %row0 = arith.addi %ownerRow0, %blkRow0 : index
    %end0 = arith.addi %ownerRow0, %s : index
    %end = arith.minui %end0, %m : index
    %has = arith.cmpi ult, %row0, %end : index
    %left = arith.subi %end, %row0 : index
    %left0 = arith.select %has, %left, %c0 : index
    %rows = arith.minui %left0, %c128 : index
    return %row0, %rows : index, index
  }

  // The push of an all-gather of 128-row blocks of a matrix of bf16 with k
  // columns (what all_gather_gemm's push and fused variants gather A with):
  // this rank's m/W rows (%shard, row-major) go into every peer's gathered
  // copy (%full, m x k, this rank's rows at rows me m/W ..), one row block
  // at a time. Work item u (%first, %first + %step, ... of m/128W x (W - 1))
  // is this rank's row block u / (W - 1) for peer me + 1 + u mod (W - 1).
  // Flags on every rank: ready[rb] at rb (rb < m/128), drained[q] at
  // m/128 + q. Before it overwrites a peer's rows for epoch %epoch, the
  // item waits until drained[peer] here reaches (epoch - 1) x %consumers
  // (the peer's consumers count themselves there when done reading %full);
  // the copy then sets ready[rb] to the epoch on the peer once the rows
  // have landed.
  func.func @symm_push_row_blocks(%shard: memref<?xbf16, #symm.heap>, %full: memref<?xbf16, #symm.heap>,
                                  %flags: memref<?xi32, #symm.heap>, %m: index, %k: index,
                                  %epoch: i32, %consumers: index, %first: index, %step: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %me32 = symm.rank : i32
    %w32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %w = arith.index_cast %w32 : i32 to index
    %tm = arith.divui %m, %c128 : index
    %per_rank = arith.divui %tm, %w : index
    %peers = arith.subi %w, %c1 : index
    %items = arith.muli %per_rank, %peers : index
    %rb0 = arith.muli %me, %per_rank : index
    %e1 = arith.subi %epoch, %one : i32
    %cons32 = arith.index_cast %consumers : index to i32
    %want = arith.muli %e1, %cons32 : i32
    %rows = arith.muli %c128, %k : index
    scf.for %u = %first to %items step %step {
      %lb = arith.divui %u, %peers : index
      %po = arith.remui %u, %peers : index
      %po1 = arith.addi %po, %c1 : index
      %pm = arith.addi %me, %po1 : index
      %p = arith.remui %pm, %w : index
      %p32 = arith.index_cast %p : index to i32
      %rb = arith.addi %rb0, %lb : index
      %drained = arith.addi %tm, %p : index
      %src_off = arith.muli %lb, %rows : index
      %dst_off = arith.muli %rb, %rows : index
      %src = memref.subview %shard[%src_off] [%rows] [1] : memref<?xbf16, #symm.heap> to memref<?xbf16, strided<[1], offset: ?>, #symm.heap>
      %dst = memref.subview %full[%dst_off] [%rows] [1] : memref<?xbf16, #symm.heap> to memref<?xbf16, strided<[1], offset: ?>, #symm.heap>
      scf.if %t0 {
        %seen = symm.wait %flags[%drained] ge %want scope(system) : memref<?xi32, #symm.heap> -> i32
      }
      gpu.barrier
      symm.put %src to %dst on %p32 signal(set %epoch, %flags[%rb] : memref<?xi32, #symm.heap>) scope(system)
          : memref<?xbf16, strided<[1], offset: ?>, #symm.heap> -> memref<?xbf16, strided<[1], offset: ?>, #symm.heap>
    }
    return
  }
}
