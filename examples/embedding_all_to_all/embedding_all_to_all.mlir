// Kernels of DLRM's model-parallel embedding bags followed by the all-to-all
// that hands every rank its part of the batch, compiled by symm-compile for
// the host target and for sm_90; embedding_all_to_all.cpp launches them.
//
// Rank r owns T tables (rows x D f32, row-major, table t at t * rows * D);
// ids holds, for each of its tables and each bag of the global batch B, L row
// ids (at (t * B + b) * L). The bags of rank q are [q * B/W, (q+1) * B/W).
// Rank q ends with out[b][g][:] for its bags b (local index) and every global
// table g = r * T + t: one row of W * T * D per bag, sum-pooled.
//
// A workgroup is 256 threads, 8 subgroups of 32 lanes; a subgroup pools one
// bag at a time, lane l owning the 16-byte vectors at d = 4 l, 4 l + 128, ...
// Work items are (destination q, table t, chunk of 32 bags); workgroups are
// persistent (workgroup b takes items b, b + grid, ...).
//
//   @pool + symm_all_to_all + @unpack   the bulk-synchronous variant
//   @embedding_all_to_all               the fused variant (see the kernel)
gpu.module @embedding_all_to_all {
  // The device library's flags (docs/Library.md).
  func.func private @symm_coll_flag(index, index, index) -> index
  func.func private @symm_coll_signal_counted(memref<?xi32, #symm.heap>, index, i32, i32, memref<?xi32, #symm.heap>, index, i32)
  func.func private @symm_coll_wait_all(memref<?xi32, #symm.heap>, index, index, i32)

  // Row id l of the bag's list (at ids0), as the index of its d-th column.
  func.func @row_at(%ids: memref<?xi32>, %ids0: index, %l: index, %trows: index, %dim: index, %d: index) -> index {
    %il = arith.addi %ids0, %l : index
    %id32 = memref.load %ids[%il] : memref<?xi32>
    %id = arith.index_cast %id32 : i32 to index
    %row = arith.addi %trows, %id : index
    %row_d = arith.muli %row, %dim : index
    %i = arith.addi %row_d, %d : index
    return %i : index
  }

  // The sum over the bag's L rows of table t at columns d .. d+3. Eight rows
  // at a time: their loads are independent, so eight are in flight per lane
  // (a gather is bound by latency, not by bytes).
  func.func @pool(%tables: memref<?xf32>, %ids: memref<?xi32>, %t: index, %b: index, %d: index, %batch: index, %bag: index, %rows: index, %dim: index) -> vector<4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %tb = arith.muli %t, %batch : index
    %tbb = arith.addi %tb, %b : index
    %ids0 = arith.muli %tbb, %bag : index
    %trows = arith.muli %t, %rows : index
    %bag8 = arith.divui %bag, %c8 : index
    %main = arith.muli %bag8, %c8 : index
    %partial = scf.for %l = %c0 to %main step %c8 iter_args(%acc = %zero) -> (vector<4xf32>) {
      %l1 = arith.addi %l, %c1 : index
      %l2 = arith.addi %l, %c2 : index
      %l3 = arith.addi %l, %c3 : index
      %l4 = arith.addi %l, %c4 : index
      %l5 = arith.addi %l, %c5 : index
      %l6 = arith.addi %l, %c6 : index
      %l7 = arith.addi %l, %c7 : index
      %i0 = func.call @row_at(%ids, %ids0, %l, %trows, %dim, %d) : (memref<?xi32>, index, index, index, index, index) -> index
      %i1 = func.call @row_at(%ids, %ids0, %l1, %trows, %dim, %d) : (memref<?xi32>, index, index, index, index, index) -> index
      %i2 = func.call @row_at(%ids, %ids0, %l2, %trows, %dim, %d) : (memref<?xi32>, index, index, index, index, index) -> index
      %i3 = func.call @row_at(%ids, %ids0, %l3, %trows, %dim, %d) : (memref<?xi32>, index, index, index, index, index) -> index
      %i4 = func.call @row_at(%ids, %ids0, %l4, %trows, %dim, %d) : (memref<?xi32>, index, index, index, index, index) -> index
      %i5 = func.call @row_at(%ids, %ids0, %l5, %trows, %dim, %d) : (memref<?xi32>, index, index, index, index, index) -> index
      %i6 = func.call @row_at(%ids, %ids0, %l6, %trows, %dim, %d) : (memref<?xi32>, index, index, index, index, index) -> index
      %i7 = func.call @row_at(%ids, %ids0, %l7, %trows, %dim, %d) : (memref<?xi32>, index, index, index, index, index) -> index
      %v0 = vector.load %tables[%i0] {alignment = 16} : memref<?xf32>, vector<4xf32>
      %v1 = vector.load %tables[%i1] {alignment = 16} : memref<?xf32>, vector<4xf32>
      %v2 = vector.load %tables[%i2] {alignment = 16} : memref<?xf32>, vector<4xf32>
      %v3 = vector.load %tables[%i3] {alignment = 16} : memref<?xf32>, vector<4xf32>
      %v4 = vector.load %tables[%i4] {alignment = 16} : memref<?xf32>, vector<4xf32>
      %v5 = vector.load %tables[%i5] {alignment = 16} : memref<?xf32>, vector<4xf32>
      %v6 = vector.load %tables[%i6] {alignment = 16} : memref<?xf32>, vector<4xf32>
      %v7 = vector.load %tables[%i7] {alignment = 16} : memref<?xf32>, vector<4xf32>
      // Added in list order, as the reference does.
      %a0 = arith.addf %acc, %v0 : vector<4xf32>
      %a1 = arith.addf %a0, %v1 : vector<4xf32>
      %a2 = arith.addf %a1, %v2 : vector<4xf32>
      %a3 = arith.addf %a2, %v3 : vector<4xf32>
      %a4 = arith.addf %a3, %v4 : vector<4xf32>
      %a5 = arith.addf %a4, %v5 : vector<4xf32>
      %a6 = arith.addf %a5, %v6 : vector<4xf32>
      %a7 = arith.addf %a6, %v7 : vector<4xf32>
      scf.yield %a7 : vector<4xf32>
    }
    %sum = scf.for %l = %main to %bag step %c1 iter_args(%acc = %partial) -> (vector<4xf32>) {
      %i = func.call @row_at(%ids, %ids0, %l, %trows, %dim, %d) : (memref<?xi32>, index, index, index, index, index) -> index
      %v = vector.load %tables[%i] {alignment = 16} : memref<?xf32>, vector<4xf32>
      %next = arith.addf %acc, %v : vector<4xf32>
      scf.yield %next : vector<4xf32>
    }
    return %sum : vector<4xf32>
  }

  // send[q][b][t][:] = the pooled bag q * B/W + b of table t: the blocks that
  // symm_all_to_all sends to each rank q.
  gpu.func @pool_all(%tables: memref<?xf32>, %ids: memref<?xi32>, %send: memref<?xf32, #symm.heap>, %tl: index, %batch: index, %bag: index, %rows: index, %dim: index) kernel {
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %lane = gpu.lane_id
    %sub = arith.divui %tid, %c32 : index
    %n32 = symm.world_size : i32
    %n = arith.index_cast %n32 : i32 to index
    %bq = arith.divui %batch, %n : index
    %d0 = arith.muli %lane, %c4 : index
    // Pairs (table, bag), 8 per workgroup at a time; the global bag index
    // b = q * B/W + b_local makes send[q][b_local][t] = send[b][t].
    %pairs = arith.muli %tl, %batch : index
    %wg0 = arith.muli %bid, %c8 : index
    %first = arith.addi %wg0, %sub : index
    %step = arith.muli %grid, %c8 : index
    scf.for %p = %first to %pairs step %step {
      %t = arith.remui %p, %tl : index
      %b = arith.divui %p, %tl : index
      %bt = arith.muli %b, %tl : index
      %bt2 = arith.addi %bt, %t : index
      %base = arith.muli %bt2, %dim : index
      scf.for %d = %d0 to %dim step %c128 {
        %v = func.call @pool(%tables, %ids, %t, %b, %d, %batch, %bag, %rows, %dim) : (memref<?xf32>, memref<?xi32>, index, index, index, index, index, index, index) -> vector<4xf32>
        %i = arith.addi %base, %d : index
        vector.store %v, %send[%i] {alignment = 16} : memref<?xf32, #symm.heap>, vector<4xf32>
      }
    }
    gpu.return
  }

  // out[b][r][:] = recv[r][b][:] (T * D floats each): symm_all_to_all leaves
  // the blocks by source rank, a bag's row has them side by side.
  gpu.func @unpack(%recv: memref<?xf32, #symm.heap>, %out: memref<?xf32, #symm.heap>, %bq: index, %row: index) kernel {
    %c4 = arith.constant 4 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %block = gpu.block_dim x
    %n32 = symm.world_size : i32
    %n = arith.index_cast %n32 : i32 to index
    %vrow = arith.divui %row, %c4 : index
    %per_src = arith.muli %bq, %vrow : index
    %total = arith.muli %per_src, %n : index
    %g0 = arith.muli %bid, %block : index
    %first = arith.addi %g0, %tid : index
    %step = arith.muli %grid, %block : index
    scf.for %v = %first to %total step %step {
      %r = arith.divui %v, %per_src : index
      %rest = arith.remui %v, %per_src : index
      %b = arith.divui %rest, %vrow : index
      %j = arith.remui %rest, %vrow : index
      %src = arith.muli %v, %c4 : index
      %bn = arith.muli %b, %n : index
      %bnr = arith.addi %bn, %r : index
      %o0 = arith.muli %bnr, %row : index
      %j4 = arith.muli %j, %c4 : index
      %o = arith.addi %o0, %j4 : index
      %x = vector.load %recv[%src] {alignment = 16} : memref<?xf32, #symm.heap>, vector<4xf32>
      vector.store %x, %out[%o] {alignment = 16} : memref<?xf32, #symm.heap>, vector<4xf32>
    }
    gpu.return
  }

  // The fused variant. Work item i covers (destination q, table t, chunk c
  // of 32 bags); rank r walks the items starting with destination r + 1, so
  // slices for peers come first and its own last. A subgroup pools a bag
  // and stores it from registers straight into q's out (16-byte remote
  // stores; local stores for q = r). A slice is (q, t): after its part of a
  // slice for a peer, a workgroup counts itself in counters[q][t] here, and
  // the last of the slice's workgroups raises r's ready flag of slot t on q
  // (symm_coll_signal_counted). At the end, workgroup b of rank r waits for
  // every peer's ready flags of slots t = b, b + grid, ... here, its threads
  // polling the peers together (symm_coll_wait_all): then every slice of out
  // has landed. A workgroup waits only after all its pushes, so the
  // persistent grid cannot deadlock.
  //
  // sync: T flag slots of the library's layout (symm_coll_flag: slot t,
  // kind 0 ready, rank p), then the counters at q * T + t; zero before the
  // first launch. Launch e passes epoch e (1, 2, ...): a slice's counter
  // reaches e * chunks in launch e, and flags only grow. symm.co_resident:
  // a slice's flag is raised by the last of its workgroups, which a waiting
  // workgroup keeps from starting unless all are resident.
  gpu.func @embedding_all_to_all(%tables: memref<?xf32>, %ids: memref<?xi32>, %out: memref<?xf32, #symm.heap>, %sync: memref<?xi32, #symm.heap>, %tl: index, %batch: index, %bag: index, %rows: index, %dim: index, %epoch: i32) kernel attributes {symm.co_resident} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %lane = gpu.lane_id
    %sub = arith.divui %tid, %c32 : index
    %me32 = symm.rank : i32
    %n32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %n = arith.index_cast %n32 : i32 to index
    %bq = arith.divui %batch, %n : index
    %bq31 = arith.addi %bq, %c32 : index
    %bq_up = arith.subi %bq31, %c1 : index
    %chunks = arith.divui %bq_up, %c32 : index
    %per_dest = arith.muli %tl, %chunks : index
    %items = arith.muli %per_dest, %n : index
    %gtl = arith.muli %n, %tl : index
    %out_row = arith.muli %gtl, %dim : index
    %my_table0 = arith.muli %me, %tl : index
    %counts0 = func.call @symm_coll_flag(%tl, %c0, %c0) : (index, index, index) -> index
    %d0 = arith.muli %lane, %c4 : index
    %chunks32 = arith.index_cast %chunks : index to i32
    %last = arith.muli %epoch, %chunks32 : i32
    scf.for %i = %bid to %items step %grid {
      %qi = arith.divui %i, %per_dest : index
      %rest = arith.remui %i, %per_dest : index
      %t = arith.divui %rest, %chunks : index
      %c = arith.remui %rest, %chunks : index
      %me1 = arith.addi %me, %c1 : index
      %q0 = arith.addi %me1, %qi : index
      %q = arith.remui %q0, %n : index
      %q32 = arith.index_cast %q : index to i32
      %remote = arith.cmpi ne, %q, %me : index
      %c32x = arith.muli %c, %c32 : index
      %lo = arith.addi %c32x, %sub : index
      %hi0 = arith.addi %c32x, %c32 : index
      %hi = arith.minui %hi0, %bq : index
      %qb = arith.muli %q, %bq : index
      %g = arith.addi %my_table0, %t : index
      %gd = arith.muli %g, %dim : index
      scf.for %bl = %lo to %hi step %c8 {
        %b = arith.addi %qb, %bl : index
        %orow = arith.muli %bl, %out_row : index
        %obase = arith.addi %orow, %gd : index
        scf.for %d = %d0 to %dim step %c128 {
          %v = func.call @pool(%tables, %ids, %t, %b, %d, %batch, %bag, %rows, %dim) : (memref<?xf32>, memref<?xi32>, index, index, index, index, index, index, index) -> vector<4xf32>
          %o = arith.addi %obase, %d : index
          scf.if %remote {
            symm.store %v, %out[%o] to %q32 : vector<4xf32> -> memref<?xf32, #symm.heap>
          } else {
            vector.store %v, %out[%o] {alignment = 16} : memref<?xf32, #symm.heap>, vector<4xf32>
          }
        }
      }
      scf.if %remote {
        %qt = arith.muli %q, %tl : index
        %qtt = arith.addi %qt, %t : index
        %ci = arith.addi %counts0, %qtt : index
        %f = func.call @symm_coll_flag(%t, %c0, %me) : (index, index, index) -> index
        func.call @symm_coll_signal_counted(%sync, %f, %q32, %epoch, %sync, %ci, %last) : (memref<?xi32, #symm.heap>, index, i32, i32, memref<?xi32, #symm.heap>, index, i32) -> ()
      }
    }
    // Every peer's slices of this rank's out.
    scf.for %t = %bid to %tl step %grid {
      func.call @symm_coll_wait_all(%sync, %t, %c0, %epoch) : (memref<?xi32, #symm.heap>, index, index, i32) -> ()
    }
    gpu.return
  }
}
