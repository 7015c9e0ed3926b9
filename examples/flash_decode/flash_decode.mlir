// Flash decode kernels (see README.md).
//
// Layouts: q[heads*D] fp16; this rank's KV shard k, v[len*kv_heads*D] fp16
// (position-major); a partial tile (head h, split s of this rank's shard) is
// P = D + 4 fp32 values: the tile's softmax-normalised output (D values),
// then its log-sum-exp (and three unused). The gathered partials of every
// rank are at ((rank*heads + h)*splits + s)*P: in fp32 (bulk_sync), or in
// the device library's low-latency words (fused, fine_grained: one 8-byte
// word per value, the value with the epoch, so a tile is ready when its
// words carry the reader's epoch: no flag per tile across ranks, and in
// fused no fence).
// A group of D/8 lanes reads one key or value row as 16-byte vectors of 8
// fp16, so D/8 must divide 32 and the block size must be a multiple of it.
module attributes {gpu.container_module} {
  gpu.module @flash {
    // The device library's low-latency words (signal.mlir).
    func.func private @symm_coll_ll_put(memref<?xi64, #symm.heap>, index, vector<4xi32>, i32, i32)
    func.func private @symm_coll_ll_put_word(memref<?xi64, #symm.heap>, index, index, i32, i32, i32)
    func.func private @symm_coll_ll_get(memref<?xi64, #symm.heap>, index, i32) -> vector<4xi32>
    // The first value of rank r's tile of head h, split s, in the gathered
    // layout: ((r * heads + h) * splits + s) * P.
    func.func private @tile_base(%r: index, %h: index, %s: index, %heads: index, %splits: index, %p: index) -> index {
      %t0 = arith.muli %r, %heads : index
      %t1 = arith.addi %t0, %h : index
      %t2 = arith.muli %t1, %splits : index
      %t = arith.addi %t2, %s : index
      %b = arith.muli %t, %p : index
      return %b : index
    }
    // Fills buf[i] with value(key, first + i), the inputs' generator shared
    // with the host reference: the top 24 bits of a splitmix64 hash, scaled
    // to [-1, 1) (exact in f32), rounded to fp16. n is a multiple of 8.
    gpu.func @fill(%buf: memref<?xf16>, %n: index, %first: i64, %key: i64)
        kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %golden = arith.constant -7046029254386353131 : i64
      %m1 = arith.constant -4658895280553007687 : i64
      %m2 = arith.constant -7723592293110705685 : i64
      %s30 = arith.constant 30 : i64
      %s27 = arith.constant 27 : i64
      %s31 = arith.constant 31 : i64
      %s40 = arith.constant 40 : i64
      %ulp = arith.constant 1.1920928955078125e-07 : f32
      %one = arith.constant 1.0 : f32
      %zeros = arith.constant dense<0.0> : vector<8xf16>
      %gid = gpu.global_id x
      %threads0 = gpu.grid_dim x
      %bd = gpu.block_dim x
      %threads = arith.muli %threads0, %bd : index
      %start = arith.muli %gid, %c8 : index
      %stride = arith.muli %threads, %c8 : index
      scf.for %i = %start to %n step %stride {
        %filled = scf.for %l = %c0 to %c8 step %c1 iter_args(%acc = %zeros) -> (vector<8xf16>) {
          %li = arith.addi %i, %l : index
          %l64 = arith.index_cast %li : index to i64
          %idx = arith.addi %l64, %first : i64
          %z0 = arith.muli %idx, %golden : i64
          %z1 = arith.addi %z0, %key : i64
          %a = arith.shrui %z1, %s30 : i64
          %b = arith.xori %z1, %a : i64
          %z2 = arith.muli %b, %m1 : i64
          %c = arith.shrui %z2, %s27 : i64
          %d = arith.xori %z2, %c : i64
          %z3 = arith.muli %d, %m2 : i64
          %e = arith.shrui %z3, %s31 : i64
          %z4 = arith.xori %z3, %e : i64
          %u = arith.shrui %z4, %s40 : i64
          %uf = arith.uitofp %u : i64 to f32
          %scaled = arith.mulf %uf, %ulp : f32
          %val = arith.subf %scaled, %one : f32
          %h = arith.truncf %val : f32 to f16
          %acc1 = vector.insert %h, %acc [%l] : f16 into vector<8xf16>
          scf.yield %acc1 : vector<8xf16>
        }
        vector.store %filled, %buf[%i] {alignment = 16} : memref<?xf16>, vector<8xf16>
      }
      gpu.return
    }

    // Attention of every query head over this rank's shard, split into
    // `splits` tiles per head; blocks loop over the tiles (persistent with a
    // grid smaller than heads * splits). Within a tile, each group of D/8
    // lanes takes one position at a time (online softmax in fp32 registers:
    // running max, sum and output); the groups are merged in workgroup
    // memory. mode 0: the tile goes to part (this rank's slot 0 layout, for
    // an all-gather); 1 (fused): the tile is put from registers into slot
    // `rank` of every rank's ll, a word per value; 2 (fine_grained): stored
    // locally like 0, then ready[tile] = epoch for the push kernel.
    // The attributes (at most 256 threads, five workgroups an SM) let the
    // NVIDIA compiler schedule for that: without them (40 registers) the
    // kernel took 3% longer (2 H200s, README.md).
    gpu.func @attend(%q: memref<?xf16>, %k: memref<?xf16>, %v: memref<?xf16>,
                     %part: memref<?xf32, #symm.heap>,
                     %ll: memref<?xi64, #symm.heap>,
                     %ready: memref<?xi32, #symm.heap>,
                     %len: index, %heads: index, %group: index,
                     %kv_heads: index, %d: index, %splits: index,
                     %scale: f32, %mode: i32, %epoch: i32)
        workgroup(%wm: memref<64xf32, #gpu.address_space<workgroup>>,
                  %wl: memref<64xf32, #gpu.address_space<workgroup>>,
                  %wacc: memref<8192xf32, #gpu.address_space<workgroup>>)
        kernel attributes {nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 5 : i32} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c8 = arith.constant 8 : index
      %c0i = arith.constant 0 : i32
      %c1i = arith.constant 1 : i32
      %c2i = arith.constant 2 : i32
      %width = arith.constant 32 : i32
      %fzero = arith.constant 0.0 : f32
      %lowest = arith.constant -1.0e30 : f32
      %zeros = arith.constant dense<0.0> : vector<8xf32>
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %mei = arith.index_cast %me : i32 to index
      %first = arith.cmpi eq, %tid, %c0 : index
      %lpk = arith.divui %d, %c8 : index
      %lpk32 = arith.index_cast %lpk : index to i32
      %groups = arith.divui %bd, %lpk : index
      %grp = arith.divui %tid, %lpk : index
      %lane = arith.remui %tid, %lpk : index
      %lane8 = arith.muli %lane, %c8 : index
      %p = arith.addi %d, %c4 : index
      %tiles = arith.muli %heads, %splits : index
      %chunk0 = arith.addi %len, %splits : index
      %chunk1 = arith.subi %chunk0, %c1 : index
      %chunk = arith.divui %chunk1, %splits : index
      %push = arith.cmpi eq, %mode, %c1i : i32
      %signal_ready = arith.cmpi eq, %mode, %c2i : i32
      %slot_rank = arith.select %push, %mei, %c0 : index
      scf.for %tile = %bid to %tiles step %gd {
        %h = arith.divui %tile, %splits : index
        %sp = arith.remui %tile, %splits : index
        %g = arith.divui %h, %group : index
        %p0a = arith.muli %sp, %chunk : index
        %p0 = arith.minui %p0a, %len : index
        %p1a = arith.addi %p0, %chunk : index
        %p1 = arith.minui %p1a, %len : index
        %qi0 = arith.muli %h, %d : index
        %qi = arith.addi %qi0, %lane8 : index
        %qh = vector.load %q[%qi] {alignment = 16} : memref<?xf16>, vector<8xf16>
        %qf = arith.extf %qh : vector<8xf16> to vector<8xf32>
        %gd_off = arith.muli %g, %d : index
        %row_stride = arith.muli %kv_heads, %d : index
        // Every group runs the same trip count (shuffles need the whole
        // subgroup); a group past the end keeps its state.
        %state:3 = scf.for %pb = %p0 to %p1 step %groups iter_args(%m = %lowest, %l = %fzero, %acc = %zeros) -> (f32, f32, vector<8xf32>) {
          %pos = arith.addi %pb, %grp : index
          %valid = arith.cmpi ult, %pos, %p1 : index
          %safe = arith.select %valid, %pos, %p0 : index
          %r0 = arith.muli %safe, %row_stride : index
          %r1 = arith.addi %r0, %gd_off : index
          %ri = arith.addi %r1, %lane8 : index
          %kh = vector.load %k[%ri] {alignment = 16} : memref<?xf16>, vector<8xf16>
          %kf = arith.extf %kh : vector<8xf16> to vector<8xf32>
          %prod = arith.mulf %kf, %qf : vector<8xf32>
          %part_dot = vector.reduction <add>, %prod : vector<8xf32> into f32
          // Butterfly over the group's lanes (offsets below D/8 only; the
          // shuffle itself is uniform over the subgroup).
          %dot = scf.for %bit = %c0 to %c5 step %c1 iter_args(%x = %part_dot) -> (f32) {
            %bit32 = arith.index_cast %bit : index to i32
            %off = arith.shli %c1i, %bit32 : i32
            %y, %ok = gpu.shuffle xor %x, %off, %width : f32
            %x1 = arith.addf %x, %y : f32
            %inside = arith.cmpi ult, %off, %lpk32 : i32
            %x2 = arith.select %inside, %x1, %x : f32
            scf.yield %x2 : f32
          }
          %s = arith.mulf %dot, %scale : f32
          %mn = arith.maximumf %m, %s : f32
          %da = arith.subf %m, %mn : f32
          %a = math.exp %da : f32
          %db = arith.subf %s, %mn : f32
          %b = math.exp %db : f32
          %vh = vector.load %v[%ri] {alignment = 16} : memref<?xf16>, vector<8xf16>
          %vf = arith.extf %vh : vector<8xf16> to vector<8xf32>
          %av = vector.broadcast %a : f32 to vector<8xf32>
          %bv = vector.broadcast %b : f32 to vector<8xf32>
          %scaled = arith.mulf %acc, %av : vector<8xf32>
          %acc1 = math.fma %vf, %bv, %scaled : vector<8xf32>
          %la = arith.mulf %l, %a : f32
          %l1 = arith.addf %la, %b : f32
          %m2 = arith.select %valid, %mn, %m : f32
          %l2 = arith.select %valid, %l1, %l : f32
          %acc2 = arith.select %valid, %acc1, %acc : vector<8xf32>
          scf.yield %m2, %l2, %acc2 : f32, f32, vector<8xf32>
        }
        %wi0 = arith.muli %grp, %d : index
        %wi = arith.addi %wi0, %lane8 : index
        vector.store %state#2, %wacc[%wi] : memref<8192xf32, #gpu.address_space<workgroup>>, vector<8xf32>
        %lead = arith.cmpi eq, %lane, %c0 : index
        scf.if %lead {
          memref.store %state#0, %wm[%grp] : memref<64xf32, #gpu.address_space<workgroup>>
          memref.store %state#1, %wl[%grp] : memref<64xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
        // Merge the groups: max, rescaled sums, normalised output.
        %mx = scf.for %i = %c0 to %groups step %c1 iter_args(%a = %lowest) -> (f32) {
          %x = memref.load %wm[%i] : memref<64xf32, #gpu.address_space<workgroup>>
          %a1 = arith.maximumf %a, %x : f32
          scf.yield %a1 : f32
        }
        %sum = scf.for %i = %c0 to %groups step %c1 iter_args(%a = %fzero) -> (f32) {
          %x = memref.load %wm[%i] : memref<64xf32, #gpu.address_space<workgroup>>
          %y = memref.load %wl[%i] : memref<64xf32, #gpu.address_space<workgroup>>
          %dx = arith.subf %x, %mx : f32
          %e = math.exp %dx : f32
          %a1 = math.fma %y, %e, %a : f32
          scf.yield %a1 : f32
        }
        %empty = arith.cmpf oeq, %sum, %fzero : f32
        %one = arith.constant 1.0 : f32
        %sum1 = arith.select %empty, %one, %sum : f32
        %inv = arith.divf %one, %sum1 : f32
        %logsum = math.log %sum1 : f32
        %lse0 = arith.addf %mx, %logsum : f32
        %lse = arith.select %empty, %lowest, %lse0 : f32
        %base = func.call @tile_base(%slot_rank, %h, %sp, %heads, %splits, %p) : (index, index, index, index, index, index) -> index
        scf.for %j = %tid to %d step %bd {
          %o = scf.for %i = %c0 to %groups step %c1 iter_args(%a = %fzero) -> (f32) {
            %x = memref.load %wm[%i] : memref<64xf32, #gpu.address_space<workgroup>>
            %dx = arith.subf %x, %mx : f32
            %e = math.exp %dx : f32
            %ai0 = arith.muli %i, %d : index
            %ai = arith.addi %ai0, %j : index
            %y = memref.load %wacc[%ai] : memref<8192xf32, #gpu.address_space<workgroup>>
            %a1 = math.fma %y, %e, %a : f32
            scf.yield %a1 : f32
          }
          %on = arith.mulf %o, %inv : f32
          %oi = arith.addi %base, %j : index
          scf.if %push {
            %bits = arith.bitcast %on : f32 to i32
            %jw = arith.remui %j, %c4 : index
            %ni = arith.index_cast %n : i32 to index
            scf.for %r = %c0 to %ni step %c1 {
              %ri = arith.index_cast %r : index to i32
              func.call @symm_coll_ll_put_word(%ll, %oi, %jw, %bits, %ri, %epoch) : (memref<?xi64, #symm.heap>, index, index, i32, i32, i32) -> ()
            }
          } else {
            memref.store %on, %part[%oi] : memref<?xf32, #symm.heap>
          }
        }
        scf.if %first {
          %li = arith.addi %base, %d : index
          scf.if %push {
            // The log-sum-exp's vector (three unused words beside it).
            %bits = arith.bitcast %lse : f32 to i32
            %zero4 = arith.constant dense<0> : vector<4xi32>
            %x = vector.insert %bits, %zero4 [0] : i32 into vector<4xi32>
            %ni = arith.index_cast %n : i32 to index
            scf.for %r = %c0 to %ni step %c1 {
              %ri = arith.index_cast %r : index to i32
              func.call @symm_coll_ll_put(%ll, %li, %x, %ri, %epoch) : (memref<?xi64, #symm.heap>, index, vector<4xi32>, i32, i32) -> ()
            }
          } else {
            memref.store %lse, %part[%li] : memref<?xf32, #symm.heap>
          }
        }
        // Every thread is done with the workgroup memory before the next
        // tile.
        scf.if %signal_ready {
          // The tile's stores are complete before its ready flag.
          symm.release_barrier scope(system)
          scf.if %first {
            symm.store %epoch, %ready[%tile] ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
          }
        } else {
          gpu.barrier
        }
      }
      gpu.return
    }

    // fine_grained: runs beside attend (another stream) and forwards each
    // local tile as soon as attend flags it: into slot `rank` of every
    // rank's ll. At the end each workgroup raises pushed[block] (this rank's):
    // combine acquires it, so that push's loads of the local tiles happen
    // before the next attend writes them again.
    gpu.func @push(%local: memref<?xf32, #symm.heap>,
                   %ready: memref<?xi32, #symm.heap>,
                   %ll: memref<?xi64, #symm.heap>,
                   %pushed: memref<?xi32, #symm.heap>, %tiles: index,
                   %p: index, %epoch: i32) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %mei = arith.index_cast %me : i32 to index
      %ni = arith.index_cast %n : i32 to index
      %first = arith.cmpi eq, %tid, %c0 : index
      %vecs = arith.divui %p, %c4 : index
      %mine = arith.muli %mei, %tiles : index
      scf.for %tile = %bid to %tiles step %gd {
        scf.if %first {
          %seen = symm.wait %ready[%tile] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
        }
        gpu.barrier
        %src = arith.muli %tile, %p : index
        %slot = arith.addi %mine, %tile : index
        %dst = arith.muli %slot, %p : index
        scf.for %i = %tid to %vecs step %bd {
          %o = arith.muli %i, %c4 : index
          %si = arith.addi %src, %o : index
          %x = vector.load %local[%si] {alignment = 16} : memref<?xf32, #symm.heap>, vector<4xf32>
          %xi = vector.bitcast %x : vector<4xf32> to vector<4xi32>
          %di = arith.addi %dst, %o : index
          scf.for %r = %c0 to %ni step %c1 {
            %ri = arith.index_cast %r : index to i32
            func.call @symm_coll_ll_put(%ll, %di, %xi, %ri, %epoch) : (memref<?xi64, #symm.heap>, index, vector<4xi32>, i32, i32) -> ()
          }
        }
        // Every thread is done with this tile before the next wait.
        gpu.barrier
      }
      symm.release_barrier scope(system)
      scf.if %first {
        symm.store %epoch, %pushed[%bid] ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
      }
      gpu.return
    }

    // Combines every rank's tiles of each head: out = sum_i e_i O_i / sum_i
    // e_i with e_i = exp(lse_i - max lse), in fp32, stored as fp16. With
    // `wait`, the workgroup first takes the head's tiles of every rank out of
    // `ll` as their words arrive, all threads at once, into `part`. With
    // `pushers` (fine_grained), it first acquires the push kernel's
    // pushed[0 .. pushers) of this epoch, so that push's loads of attend's
    // local tiles happen before the next attend.
    gpu.func @combine(%part: memref<?xf32>, %ll: memref<?xi64, #symm.heap>,
                      %pushed: memref<?xi32, #symm.heap>,
                      %out: memref<?xf16>, %heads: index, %splits: index,
                      %d: index, %pushers: index, %wait: i32, %epoch: i32) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c0i = arith.constant 0 : i32
      %fzero = arith.constant 0.0 : f32
      %lowest = arith.constant -1.0e30 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      %n = symm.world_size : i32
      %ni = arith.index_cast %n : i32 to index
      %p = arith.addi %d, %c4 : index
      %count = arith.muli %ni, %splits : index
      %waits = arith.cmpi ne, %wait, %c0i : i32
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        scf.for %b = %c0 to %pushers step %c1 {
          %seen = symm.wait %pushed[%b] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
        }
      }
      scf.for %h = %bid to %heads step %gd {
        scf.if %waits {
          // Vector i of the head's tiles: tile i / (P/4) of them (rank r,
          // split s), its vector i mod (P/4).
          %pv = arith.divui %p, %c4 : index
          %vecs = arith.muli %count, %pv : index
          scf.for %i = %tid to %vecs step %bd {
            %ti = arith.divui %i, %pv : index
            %vi = arith.remui %i, %pv : index
            %r = arith.divui %ti, %splits : index
            %s = arith.remui %ti, %splits : index
            %b = func.call @tile_base(%r, %h, %s, %heads, %splits, %p) : (index, index, index, index, index, index) -> index
            %o4 = arith.muli %vi, %c4 : index
            %at = arith.addi %b, %o4 : index
            %xi = func.call @symm_coll_ll_get(%ll, %at, %epoch) : (memref<?xi64, #symm.heap>, index, i32) -> vector<4xi32>
            %x = vector.bitcast %xi : vector<4xi32> to vector<4xf32>
            vector.store %x, %part[%at] {alignment = 16} : memref<?xf32>, vector<4xf32>
          }
        }
        // The head's tiles in part are visible to the whole workgroup.
        gpu.barrier
        %mx = scf.for %i = %c0 to %count step %c1 iter_args(%a = %lowest) -> (f32) {
          %r = arith.divui %i, %splits : index
          %s = arith.remui %i, %splits : index
          %b = func.call @tile_base(%r, %h, %s, %heads, %splits, %p) : (index, index, index, index, index, index) -> index
          %li = arith.addi %b, %d : index
          %x = memref.load %part[%li] : memref<?xf32>
          %a1 = arith.maximumf %a, %x : f32
          scf.yield %a1 : f32
        }
        scf.for %j = %tid to %d step %bd {
          %r2:2 = scf.for %i = %c0 to %count step %c1 iter_args(%num = %fzero, %den = %fzero) -> (f32, f32) {
            %r = arith.divui %i, %splits : index
            %s = arith.remui %i, %splits : index
            %b = func.call @tile_base(%r, %h, %s, %heads, %splits, %p) : (index, index, index, index, index, index) -> index
            %li = arith.addi %b, %d : index
            %x = memref.load %part[%li] : memref<?xf32>
            %dx = arith.subf %x, %mx : f32
            %e = math.exp %dx : f32
            %oi = arith.addi %b, %j : index
            %o = memref.load %part[%oi] : memref<?xf32>
            %num1 = math.fma %o, %e, %num : f32
            %den1 = arith.addf %den, %e : f32
            scf.yield %num1, %den1 : f32, f32
          }
          %res = arith.divf %r2#0, %r2#1 : f32
          %rh = arith.truncf %res : f32 to f16
          %hd = arith.muli %h, %d : index
          %oi = arith.addi %hd, %j : index
          memref.store %rh, %out[%oi] : memref<?xf16>
        }
        gpu.barrier
      }
      gpu.return
    }
  }
}
