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
//   @gemv_all_reduce  the fused variant: the GEMV with a two-phase direct
//                     all-reduce in its epilogue (see the kernel).
gpu.module @gemv_all_reduce {
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

  // y[0 .. m) = w x, w is m x kr; m a multiple of 32.
  gpu.func @gemv(%w: memref<?xbf16>, %x: memref<?xbf16>, %y: memref<?xbf16>, %m: index, %kr: index) kernel {
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

  // y = sum over ranks of w x, on every rank, in one kernel. Tile t belongs
  // to rank t / ceil(tiles / W) (contiguous ranges). Phase one: a workgroup
  // that computes a peer's tile stores its f32 partial from registers
  // straight into the owner's scratch (slot `rank`) and raises
  // ready[t][rank] there. Phase two: the owner of a tile waits for every
  // peer's ready flag, adds the partials in rank order (the same bits on
  // every rank), stores the bf16 result into its y and every peer's y, and
  // raises done[t] on every peer; finally each rank waits for done of the
  // peer tiles it computed. Communication-aware order: rank r walks the
  // tiles from the end of its own range, so peers' tiles come first and
  // its own (which wait) last; a workgroup waits only after all its pushes,
  // so the persistent grid cannot deadlock.
  //
  // flags: ready at t * W + p, done at tiles * W + t; scratch: W * m f32.
  // Flags only grow: launch e passes epoch e (1, 2, ...), and a launch ends
  // only after every owner has read its scratch, so the next launch may
  // write it again.
  gpu.func @gemv_all_reduce(%w: memref<?xbf16>, %x: memref<?xbf16>, %y: memref<?xi16, #symm.heap>, %scratch: memref<?xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %m: index, %kr: index, %epoch: i32)
      workgroup(%part: memref<32xf32, #gpu.address_space<workgroup>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %lane = gpu.lane_id
    %me32 = symm.rank : i32
    %n32 = symm.world_size : i32
    %me = arith.index_cast %me32 : i32 to index
    %n = arith.index_cast %n32 : i32 to index
    %sub = arith.divui %tid, %c32 : index
    %sub_row = arith.muli %sub, %c4 : index
    %lane0 = arith.cmpi eq, %lane, %c0 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    %row_thread = arith.cmpi ult, %tid, %c32 : index
    %tiles = arith.divui %m, %c32 : index
    %tiles_n = arith.addi %tiles, %n : index
    %tiles_n1 = arith.subi %tiles_n, %c1 : index
    %per_rank = arith.divui %tiles_n1, %n : index
    %me1 = arith.addi %me, %c1 : index
    %my_end0 = arith.muli %me1, %per_rank : index
    %my_end = arith.minui %my_end0, %tiles : index
    %done_base = arith.muli %tiles, %n : index
    %my_slot = arith.muli %me, %m : index
    scf.for %v = %bid to %tiles step %grid {
      %vt = arith.addi %v, %my_end : index
      %t = arith.remui %vt, %tiles : index
      %owner = arith.divui %t, %per_rank : index
      %owner32 = arith.index_cast %owner : index to i32
      %tile_row = arith.muli %t, %c32 : index
      %row0 = arith.addi %tile_row, %sub_row : index
      %s0, %s1, %s2, %s3 = func.call @dot4(%w, %x, %row0, %kr) : (memref<?xbf16>, memref<?xbf16>, index, index) -> (f32, f32, f32, f32)
      scf.if %lane0 {
        %p1 = arith.addi %sub_row, %c1 : index
        %p2 = arith.addi %p1, %c1 : index
        %p3 = arith.addi %p2, %c1 : index
        memref.store %s0, %part[%sub_row] : memref<32xf32, #gpu.address_space<workgroup>>
        memref.store %s1, %part[%p1] : memref<32xf32, #gpu.address_space<workgroup>>
        memref.store %s2, %part[%p2] : memref<32xf32, #gpu.address_space<workgroup>>
        memref.store %s3, %part[%p3] : memref<32xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %row = arith.addi %tile_row, %tid : index
      %ready_base = arith.muli %t, %n : index
      %mine = arith.cmpi eq, %owner, %me : index
      scf.if %mine {
        // Phase two: this rank owns the tile.
        scf.if %first {
          scf.for %p = %c0 to %n step %c1 {
            %peer = arith.cmpi ne, %p, %me : index
            scf.if %peer {
              %f = arith.addi %ready_base, %p : index
              %seen = symm.wait %flags[%f] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
            }
          }
        }
        gpu.barrier
        scf.if %row_thread {
          %own = memref.load %part[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
          %zero = arith.constant 0.0 : f32
          %sum = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
            %peer = arith.cmpi ne, %p, %me : index
            %val = scf.if %peer -> (f32) {
              %slot = arith.muli %p, %m : index
              %i = arith.addi %slot, %row : index
              %theirs = memref.load %scratch[%i] : memref<?xf32, #symm.heap>
              scf.yield %theirs : f32
            } else {
              scf.yield %own : f32
            }
            %next = arith.addf %acc, %val : f32
            scf.yield %next : f32
          }
          // y is stored as bf16 bits: x86 would otherwise carry the bf16
          // value into the peer loop through __truncsfbf2, which libgcc
          // before GCC 13 lacks, and the CPU target's module fail to load.
          %bf = arith.truncf %sum : f32 to bf16
          %b = arith.bitcast %bf : bf16 to i16
          memref.store %b, %y[%row] : memref<?xi16, #symm.heap>
          scf.for %p = %c0 to %n step %c1 {
            %peer = arith.cmpi ne, %p, %me : index
            scf.if %peer {
              %p32 = arith.index_cast %p : index to i32
              symm.store %b, %y[%row] to %p32 : i16 -> memref<?xi16, #symm.heap>
            }
          }
        }
        symm.release_barrier scope(system)
        scf.if %first {
          %f = arith.addi %done_base, %t : index
          scf.for %p = %c0 to %n step %c1 {
            %peer = arith.cmpi ne, %p, %me : index
            scf.if %peer {
              %p32 = arith.index_cast %p : index to i32
              symm.store %epoch, %flags[%f] to %p32 ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
            }
          }
        }
      } else {
        // Phase one: push the partial tile to its owner.
        scf.if %row_thread {
          %val = memref.load %part[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
          %i = arith.addi %my_slot, %row : index
          symm.store %val, %scratch[%i] to %owner32 : f32 -> memref<?xf32, #symm.heap>
        }
        symm.release_barrier scope(system)
        scf.if %first {
          %f = arith.addi %ready_base, %me : index
          symm.store %epoch, %flags[%f] to %owner32 ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
        }
      }
      // %part is written again by the next tile.
      gpu.barrier
    }
    // The owners' results of the peer tiles this workgroup computed.
    scf.if %first {
      scf.for %v = %bid to %tiles step %grid {
        %vt = arith.addi %v, %my_end : index
        %t = arith.remui %vt, %tiles : index
        %owner = arith.divui %t, %per_rank : index
        %theirs = arith.cmpi ne, %owner, %me : index
        scf.if %theirs {
          %f = arith.addi %done_base, %t : index
          %seen = symm.wait %flags[%f] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
        }
      }
    }
    gpu.return
  }
}
