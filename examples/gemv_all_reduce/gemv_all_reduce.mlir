// Kernels of the row-parallel linear layer y = sum_r W_r x_r (bf16 in, f32
// accumulation, bf16 out), compiled by symm-compile for the host target and
// for sm_90; gemv_all_reduce.cpp launches them.
//
// Tiles are 32 rows. A workgroup is 256 threads (8 subgroups of 32 lanes);
// subgroup s computes rows 4s .. 4s+3 of a tile at once, each lane reading
// 16-byte vectors of the four rows, so every load is a full vector and four
// are in flight per lane. Workgroups are persistent: workgroup b takes tiles
// b, b + grid, ...
//
//   @gemv             y_r = W_r x_r (bf16): the bulk-synchronous variant's
//                     compute kernel (symm_all_reduce follows) and the GEMV
//                     alone.
//   @gemv_all_reduce  the fused variant: the GEMV putting its partials into
//                     the owners' low-latency words, then a direct
//                     all-reduce of them (see the kernel).
gpu.module @gemv_all_reduce {
  // The device library's low-latency words (docs/Library.md).
  func.func private @symm_coll_ll_put(memref<?xi64, #symm.heap>, index, vector<4xi32>, i32, i32)
  func.func private @symm_coll_ll_get(memref<?xi64, #symm.heap>, index, i32) -> vector<4xi32>
  func.func private @symm_coll_fold_slots_f32(vector<4xf32>, memref<?xi64, #symm.heap>, index, index, i1, i64, i32) -> vector<4xf32>

  // The sum of `v` over the 32 lanes of the subgroup, in every lane.
  func.func @subgroup_sum(%v: f32) -> f32 {
    %width = arith.constant 32 : i32
    %c16 = arith.constant 16 : i32
    %c8 = arith.constant 8 : i32
    %c4 = arith.constant 4 : i32
    %c2 = arith.constant 2 : i32
    %c1 = arith.constant 1 : i32
    %o16, %p16 = gpu.shuffle xor %v, %c16, %width : f32
    %v16 = arith.addf %v, %o16 : f32
    %o8, %p8 = gpu.shuffle xor %v16, %c8, %width : f32
    %v8 = arith.addf %v16, %o8 : f32
    %o4, %p4 = gpu.shuffle xor %v8, %c4, %width : f32
    %v4 = arith.addf %v8, %o4 : f32
    %o2, %p2 = gpu.shuffle xor %v4, %c2, %width : f32
    %v2 = arith.addf %v4, %o2 : f32
    %o1, %p1 = gpu.shuffle xor %v2, %c1, %width : f32
    %v1 = arith.addf %v2, %o1 : f32
    return %v1 : f32
  }

  // Rows row0 .. row0+3 of w (kr bf16 per row, row-major) times x, by one
  // subgroup; the four sums in every lane. kr is a multiple of 8.
  func.func @dot4(%w: memref<?xbf16>, %x: memref<?xbf16>, %row0: index, %kr: index) -> (f32, f32, f32, f32) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant dense<0.0> : vector<8xf32>
    %lane = gpu.lane_id
    %k0 = arith.muli %lane, %c8 : index
    %b0 = arith.muli %row0, %kr : index
    %b1 = arith.addi %b0, %kr : index
    %b2 = arith.addi %b1, %kr : index
    %b3 = arith.addi %b2, %kr : index
    %a0, %a1, %a2, %a3 = scf.for %k = %k0 to %kr step %c256
        iter_args(%s0 = %zero, %s1 = %zero, %s2 = %zero, %s3 = %zero)
        -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
      %xv = vector.load %x[%k] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
      %xf = arith.extf %xv : vector<8xbf16> to vector<8xf32>
      %i0 = arith.addi %b0, %k : index
      %i1 = arith.addi %b1, %k : index
      %i2 = arith.addi %b2, %k : index
      %i3 = arith.addi %b3, %k : index
      %w0 = vector.load %w[%i0] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
      %w1 = vector.load %w[%i1] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
      %w2 = vector.load %w[%i2] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
      %w3 = vector.load %w[%i3] {alignment = 16} : memref<?xbf16>, vector<8xbf16>
      %f0 = arith.extf %w0 : vector<8xbf16> to vector<8xf32>
      %f1 = arith.extf %w1 : vector<8xbf16> to vector<8xf32>
      %f2 = arith.extf %w2 : vector<8xbf16> to vector<8xf32>
      %f3 = arith.extf %w3 : vector<8xbf16> to vector<8xf32>
      %n0 = vector.fma %f0, %xf, %s0 : vector<8xf32>
      %n1 = vector.fma %f1, %xf, %s1 : vector<8xf32>
      %n2 = vector.fma %f2, %xf, %s2 : vector<8xf32>
      %n3 = vector.fma %f3, %xf, %s3 : vector<8xf32>
      scf.yield %n0, %n1, %n2, %n3 : vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
    }
    %r0 = vector.reduction <add>, %a0 : vector<8xf32> into f32
    %r1 = vector.reduction <add>, %a1 : vector<8xf32> into f32
    %r2 = vector.reduction <add>, %a2 : vector<8xf32> into f32
    %r3 = vector.reduction <add>, %a3 : vector<8xf32> into f32
    %t0 = func.call @subgroup_sum(%r0) : (f32) -> f32
    %t1 = func.call @subgroup_sum(%r1) : (f32) -> f32
    %t2 = func.call @subgroup_sum(%r2) : (f32) -> f32
    %t3 = func.call @subgroup_sum(%r3) : (f32) -> f32
    return %t0, %t1, %t2, %t3 : f32, f32, f32, f32
  }

  // y[0 .. m) = w x, w is m x kr; m a multiple of 32. The attributes tell
  // the NVIDIA compiler that a workgroup is 256 threads and three share an
  // SM: with them it schedules the same instructions otherwise, and the GEMV
  // took 131.5 us against 139.2 on an H200 at M = 65536, K = 4096 (README.md).
  gpu.func @gemv(%w: memref<?xbf16>, %x: memref<?xbf16>, %y: memref<?xbf16>, %m: index, %kr: index) kernel attributes {nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 3 : i32} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %lane = gpu.lane_id
    %sub = arith.divui %tid, %c32 : index
    %sub_row = arith.muli %sub, %c4 : index
    %tiles = arith.divui %m, %c32 : index
    %lane0 = arith.cmpi eq, %lane, %c0 : index
    scf.for %t = %bid to %tiles step %grid {
      %tile_row = arith.muli %t, %c32 : index
      %row0 = arith.addi %tile_row, %sub_row : index
      %s0, %s1, %s2, %s3 = func.call @dot4(%w, %x, %row0, %kr) : (memref<?xbf16>, memref<?xbf16>, index, index) -> (f32, f32, f32, f32)
      scf.if %lane0 {
        %v = vector.from_elements %s0, %s1, %s2, %s3 : vector<4xf32>
        %b = arith.truncf %v : vector<4xf32> to vector<4xbf16>
        vector.store %b, %y[%row0] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
      }
    }
    gpu.return
  }

  // The tile of the fused kernel's step v (rank r walks the tiles from the
  // end of its own range, my_end): its owner and the first of the subgroup's
  // rows in it.
  func.func private @tile_of(%v: index, %my_end: index, %tiles: index, %per_rank: index, %sub_row: index) -> (index, index) {
    %c32 = arith.constant 32 : index
    %vt = arith.addi %v, %my_end : index
    %t = arith.remui %vt, %tiles : index
    %owner = arith.divui %t, %per_rank : index
    %tile_row = arith.muli %t, %c32 : index
    %row0 = arith.addi %tile_row, %sub_row : index
    return %owner, %row0 : index, index
  }

  // y = sum over ranks of w x, on every rank, in one kernel. Tile t belongs
  // to rank t / ceil(tiles / W) (contiguous ranges); subgroup s of a
  // workgroup handles rows 4s .. 4s+3 of its tiles, in low-latency words of
  // the device library (symm_coll_ll_put: each 4-byte value travels with
  // the epoch in one 8-byte store, so no fence, no flag and no workgroup
  // barrier is on the way):
  //   1. lane 0 of the subgroup puts its four f32 partials of every tile
  //      into the owner's slot `rank` of `ll` (its own tiles' into its own
  //      slot) and goes on to the next tile: the GEMV never waits;
  //   2. then, lane l taking the workgroup's tiles l, l + 32, ... so that
  //      their loads are in flight together, the owner folds every rank's
  //      partials of its own tiles in rank order (symm_coll_fold_slots: the
  //      same bits on every rank), stores the bf16 rows into its y and puts
  //      the f32 sums into every peer's sum slot;
  //   3. and each rank takes the sums of the peer tiles it computed from its
  //      sum slot and stores them as bf16.
  // Folding in the tile loop instead, each subgroup waited once per own
  // tile for the partials' loads behind the GEMV's stream (put there long
  // before, so out of L2): 148.0 against 136.2 us on 2 H200s at M = 65536
  // (README.md). Rank r walks the tiles from the end of its own range, so
  // peers' tiles come first. A workgroup waits only after all its puts, but
  // for peers' workgroups, so all workgroups must be resident at once (the
  // driver's default grid is): the attributes keep three workgroups of 256
  // threads on an SM (at most 80 registers a thread; with 94, two fitted and
  // the kernel took 1.7 times the GEMV's time).
  //
  // ll: (W + 1) * m words, zero before the first launch: rank q's partials
  // at q * m, the owners' sums at W * m. Launch e passes epoch e (1, 2, ...);
  // a launch ends only after every owner has read the partials this rank put
  // (the owner's sums come after) and every peer has taken this rank's sums
  // (its next partials come after its launch), so the next launch may put
  // into both again. symm.co_resident: a workgroup waits for peers'
  // workgroups, so the runtime refuses a grid the GPU cannot hold at once.
  gpu.func @gemv_all_reduce(%w: memref<?xbf16>, %x: memref<?xbf16>, %y: memref<?xbf16>, %ll: memref<?xi64, #symm.heap>, %m: index, %kr: index, %epoch: i32) kernel attributes {nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 3 : i32, symm.co_resident} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %sum_op = arith.constant 0 : i32
    %words = arith.constant false
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %lane = gpu.lane_id
    %me32 = symm.rank : i32
    %n32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %n = arith.index_cast %n32 : i32 to index
    %tag = arith.extui %epoch : i32 to i64
    %sub = arith.divui %tid, %c32 : index
    %sub_row = arith.muli %sub, %c4 : index
    %lane0 = arith.cmpi eq, %lane, %c0 : index
    %tiles = arith.divui %m, %c32 : index
    %tiles_n = arith.addi %tiles, %n : index
    %tiles_n1 = arith.subi %tiles_n, %c1 : index
    %per_rank = arith.divui %tiles_n1, %n : index
    %me1 = arith.addi %me, %c1 : index
    %my_end0 = arith.muli %me1, %per_rank : index
    %my_end = arith.minui %my_end0, %tiles : index
    %my_slot = arith.muli %me, %m : index
    %sums = arith.muli %n, %m : index
    // 1. The GEMV, every partial put where its owner folds it.
    scf.for %v = %bid to %tiles step %grid {
      %owner, %row0 = func.call @tile_of(%v, %my_end, %tiles, %per_rank, %sub_row) : (index, index, index, index, index) -> (index, index)
      %owner32 = arith.index_cast %owner : index to i32
      %s0, %s1, %s2, %s3 = func.call @dot4(%w, %x, %row0, %kr) : (memref<?xbf16>, memref<?xbf16>, index, index) -> (f32, f32, f32, f32)
      scf.if %lane0 {
        %part = vector.from_elements %s0, %s1, %s2, %s3 : vector<4xf32>
        %bits = vector.bitcast %part : vector<4xf32> to vector<4xi32>
        %at = arith.addi %my_slot, %row0 : index
        func.call @symm_coll_ll_put(%ll, %at, %bits, %owner32, %epoch) : (memref<?xi64, #symm.heap>, index, vector<4xi32>, i32, i32) -> ()
      }
    }
    // The workgroup's tiles again, lane l taking tiles l, l + 32, ...
    %c32_grid = arith.muli %grid, %c32 : index
    %lane_grid = arith.muli %lane, %grid : index
    %v_lane = arith.addi %bid, %lane_grid : index
    // 2. This rank's tiles: fold, store, put the sums.
    scf.for %v = %v_lane to %tiles step %c32_grid {
      %owner, %row0 = func.call @tile_of(%v, %my_end, %tiles, %per_rank, %sub_row) : (index, index, index, index, index) -> (index, index)
      %mine = arith.cmpi eq, %owner, %me : index
      scf.if %mine {
        %own_at = arith.addi %my_slot, %row0 : index
        %own_bits = func.call @symm_coll_ll_get(%ll, %own_at, %epoch) : (memref<?xi64, #symm.heap>, index, i32) -> vector<4xi32>
        %own = vector.bitcast %own_bits : vector<4xi32> to vector<4xf32>
        %sum = func.call @symm_coll_fold_slots_f32(%own, %ll, %m, %row0, %words, %tag, %sum_op) : (vector<4xf32>, memref<?xi64, #symm.heap>, index, index, i1, i64, i32) -> vector<4xf32>
        %b = arith.truncf %sum : vector<4xf32> to vector<4xbf16>
        vector.store %b, %y[%row0] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
        %bits = vector.bitcast %sum : vector<4xf32> to vector<4xi32>
        %at = arith.addi %sums, %row0 : index
        scf.for %p = %c0 to %n step %c1 {
          %peer = arith.cmpi ne, %p, %me : index
          scf.if %peer {
            %p32 = arith.index_cast %p : index to i32
            func.call @symm_coll_ll_put(%ll, %at, %bits, %p32, %epoch) : (memref<?xi64, #symm.heap>, index, vector<4xi32>, i32, i32) -> ()
          }
        }
      }
    }
    // 3. The peers' tiles: their owners' sums.
    scf.for %v = %v_lane to %tiles step %c32_grid {
      %owner, %row0 = func.call @tile_of(%v, %my_end, %tiles, %per_rank, %sub_row) : (index, index, index, index, index) -> (index, index)
      %theirs = arith.cmpi ne, %owner, %me : index
      scf.if %theirs {
        %at = arith.addi %sums, %row0 : index
        %bits = func.call @symm_coll_ll_get(%ll, %at, %epoch) : (memref<?xi64, #symm.heap>, index, i32) -> vector<4xi32>
        %sum = vector.bitcast %bits : vector<4xi32> to vector<4xf32>
        %b = arith.truncf %sum : vector<4xf32> to vector<4xbf16>
        vector.store %b, %y[%row0] {alignment = 8} : memref<?xbf16>, vector<4xbf16>
      }
    }
    gpu.return
  }
}
