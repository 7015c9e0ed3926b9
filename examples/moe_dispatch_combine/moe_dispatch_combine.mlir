// MoE dispatch / expert / combine kernels (see README.md).
//
// Layouts, with t tokens of H fp16 values and k choices per token on a rank:
//   x[t*H], experts[t*k] (global expert ids), weights[t*k] (fp32),
//   pos[t*k]: the pair's position among this rank's pairs for its expert,
//   cnt[E]: this rank's pair count per expert (symmetric, pulled by peers),
//   meta[row*4]: global expert, source rank, source token, choice.
// A received row's place in the grouped layout of its owner is
//   (rows of the owner's lower experts) + (rows of lower source ranks for
//   the same expert) + pos,
// so every rank computes every destination row from the count table alone.
// Vectors are 8 x fp16 (16 bytes): H must be a multiple of 8.
module attributes {gpu.container_module} {
  gpu.module @moe {
    // The device library's flag (library/signal.mlir): a barrier, then
    // thread 0's release store on the peer.
    func.func private @symm_coll_signal(memref<?xi32, #symm.heap>, index, i32, i32)

    // One block: zeroes cnt, gives every (token, choice) its position among
    // this rank's pairs for its expert, then publishes cnt by setting
    // ready = epoch (peers pull cnt once they see it).
    gpu.func @route(%experts: memref<?xi32>, %pos: memref<?xi32>,
                    %cnt: memref<?xi32, #symm.heap>,
                    %ready: memref<?xi32, #symm.heap>, %items: index,
                    %num_experts: index, %epoch: i32) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %tid = gpu.thread_id x
      %bd = gpu.block_dim x
      scf.for %e = %tid to %num_experts step %bd {
        memref.store %zero, %cnt[%e] : memref<?xi32, #symm.heap>
      }
      gpu.barrier
      scf.for %i = %tid to %items step %bd {
        %e = memref.load %experts[%i] : memref<?xi32>
        %ei = arith.index_cast %e : i32 to index
        %p = symm.atomic_rmw add %one, %cnt[%ei] ordering(relaxed) scope(device) : i32 -> memref<?xi32, #symm.heap>
        memref.store %p, %pos[%i] : memref<?xi32>
      }
      symm.release_barrier scope(system)
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        symm.store %epoch, %ready[%c0] ordering(release) scope(system) : i32 -> memref<?xi32, #symm.heap>
      }
      gpu.return
    }

    // Fused dispatch, persistent blocks. Each block waits until every rank
    // has published its counts (epoch), pulls the count table into
    // workgroup memory and derives each expert's first row on its owner;
    // then every (token, choice) is pushed from registers straight into its
    // row of the owner's receive buffer, with its metadata, and flagged
    // (flag[row] = epoch). Block 0 also writes this rank's group counts
    // (groups[el], groups[E/W] = rows this rank receives).
    gpu.func @dispatch(%x: memref<?xf16>, %experts: memref<?xi32>,
                       %pos: memref<?xi32>, %cnt: memref<?xi32, #symm.heap>,
                       %ready: memref<?xi32, #symm.heap>,
                       %recv_x: memref<?xf16, #symm.heap>,
                       %recv_meta: memref<?xi32, #symm.heap>,
                       %recv_flag: memref<?xi32, #symm.heap>,
                       %groups: memref<?xi32>, %items: index, %k: index,
                       %h: index, %num_experts: index, %epoch: i32)
        workgroup(%tot: memref<1024xi32, #gpu.address_space<workgroup>>,
                  %off: memref<1024xi32, #gpu.address_space<workgroup>>)
        kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %zero = arith.constant 0 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %mei = arith.index_cast %me : i32 to index
      %ni = arith.index_cast %n : i32 to index
      %el = arith.divui %num_experts, %ni : index
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        scf.for %s = %c0 to %ni step %c1 {
          %si = arith.index_cast %s : index to i32
          %seen = symm.wait %ready[%c0] from %si ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
        }
      }
      gpu.barrier
      // tot[e]: pairs for e over all ranks; off[e]: those of lower ranks.
      scf.for %e = %tid to %num_experts step %bd {
        %sums:2 = scf.for %s = %c0 to %ni step %c1 iter_args(%a = %zero, %b = %zero) -> (i32, i32) {
          %si = arith.index_cast %s : index to i32
          %v = symm.load %cnt[%e] from %si : memref<?xi32, #symm.heap> -> i32
          %a1 = arith.addi %a, %v : i32
          %lower = arith.cmpi ult, %s, %mei : index
          %bv = arith.addi %b, %v : i32
          %b1 = arith.select %lower, %bv, %b : i32
          scf.yield %a1, %b1 : i32, i32
        }
        memref.store %sums#0, %tot[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
        memref.store %sums#1, %off[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      // off[e] += rows of the owner's experts below e.
      scf.for %e = %tid to %num_experts step %bd {
        %owner = arith.divui %e, %el : index
        %start = arith.muli %owner, %el : index
        %base = scf.for %e2 = %start to %e step %c1 iter_args(%a = %zero) -> (i32) {
          %v = memref.load %tot[%e2] : memref<1024xi32, #gpu.address_space<workgroup>>
          %a1 = arith.addi %a, %v : i32
          scf.yield %a1 : i32
        }
        %o = memref.load %off[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
        %o1 = arith.addi %o, %base : i32
        memref.store %o1, %off[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %block0 = arith.cmpi eq, %bid, %c0 : index
      scf.if %block0 {
        %mine = arith.muli %mei, %el : index
        scf.for %l = %tid to %el step %bd {
          %e = arith.addi %mine, %l : index
          %v = memref.load %tot[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
          memref.store %v, %groups[%l] : memref<?xi32>
        }
        scf.if %first {
          %end = arith.addi %mine, %el : index
          %all = scf.for %e = %mine to %end step %c1 iter_args(%a = %zero) -> (i32) {
            %v = memref.load %tot[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
            %a1 = arith.addi %a, %v : i32
            scf.yield %a1 : i32
          }
          memref.store %all, %groups[%el] : memref<?xi32>
        }
      }
      %lane0 = arith.muli %tid, %c8 : index
      %stride = arith.muli %bd, %c8 : index
      scf.for %it = %bid to %items step %gd {
        %e32 = memref.load %experts[%it] : memref<?xi32>
        %e = arith.index_cast %e32 : i32 to index
        %p32 = memref.load %pos[%it] : memref<?xi32>
        %o32 = memref.load %off[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
        %row32 = arith.addi %o32, %p32 : i32
        %row = arith.index_cast %row32 : i32 to index
        %dest = arith.divui %e, %el : index
        %d = arith.index_cast %dest : index to i32
        %t = arith.divui %it, %k : index
        %src = arith.muli %t, %h : index
        %dst = arith.muli %row, %h : index
        scf.for %j = %lane0 to %h step %stride {
          %si = arith.addi %src, %j : index
          %v = vector.load %x[%si] {alignment = 16} : memref<?xf16>, vector<8xf16>
          %di = arith.addi %dst, %j : index
          symm.store %v, %recv_x[%di] to %d : vector<8xf16> -> memref<?xf16, #symm.heap>
        }
        scf.if %first {
          %c = arith.remui %it, %k : index
          %t32 = arith.index_cast %t : index to i32
          %ch32 = arith.index_cast %c : index to i32
          %m0 = arith.muli %row, %c4 : index
          %m1 = arith.addi %m0, %c1 : index
          %m2 = arith.addi %m0, %c2 : index
          %m3 = arith.addi %m0, %c3 : index
          symm.store %e32, %recv_meta[%m0] to %d : i32 -> memref<?xi32, #symm.heap>
          symm.store %me, %recv_meta[%m1] to %d : i32 -> memref<?xi32, #symm.heap>
          symm.store %t32, %recv_meta[%m2] to %d : i32 -> memref<?xi32, #symm.heap>
          symm.store %ch32, %recv_meta[%m3] to %d : i32 -> memref<?xi32, #symm.heap>
        }
        // Every thread's stores are complete before the row's flag.
        func.call @symm_coll_signal(%recv_flag, %row, %d, %epoch) : (memref<?xi32, #symm.heap>, index, i32, i32) -> ()
      }
      gpu.return
    }

    // Fused expert + combine, persistent blocks (the grid must be
    // co-resident: a block reducing its tokens waits for rows other blocks
    // return). First every row that landed here: wait for its flag, scale
    // it by its expert's s_e in fp32, round to fp16 and push it from
    // registers back into its source's (token, choice) slot, flagged. Then
    // this rank's tokens: wait for their k returned rows and sum them,
    // weighted, in fp32.
    // symm.co_resident: the runtime refuses a grid the device cannot hold.
    gpu.func @combine(%recv_x: memref<?xf16, #symm.heap>,
                      %recv_meta: memref<?xi32, #symm.heap>,
                      %recv_flag: memref<?xi32, #symm.heap>,
                      %groups: memref<?xi32>, %scale: memref<?xf32>,
                      %back_y: memref<?xf16, #symm.heap>,
                      %back_flag: memref<?xi32, #symm.heap>,
                      %weights: memref<?xf32>, %out: memref<?xf16>,
                      %tokens: index, %k: index, %h: index, %el: index,
                      %epoch: i32) kernel attributes {symm.co_resident} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %zeros = arith.constant dense<0.0> : vector<8xf32>
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      %first = arith.cmpi eq, %tid, %c0 : index
      %lane0 = arith.muli %tid, %c8 : index
      %stride = arith.muli %bd, %c8 : index
      %rows32 = memref.load %groups[%el] : memref<?xi32>
      %rows = arith.index_cast %rows32 : i32 to index
      scf.for %row = %bid to %rows step %gd {
        scf.if %first {
          %seen = symm.wait %recv_flag[%row] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
        }
        gpu.barrier
        %m0 = arith.muli %row, %c4 : index
        %m1 = arith.addi %m0, %c1 : index
        %m2 = arith.addi %m0, %c2 : index
        %m3 = arith.addi %m0, %c3 : index
        %e32 = memref.load %recv_meta[%m0] : memref<?xi32, #symm.heap>
        %src = memref.load %recv_meta[%m1] : memref<?xi32, #symm.heap>
        %t32 = memref.load %recv_meta[%m2] : memref<?xi32, #symm.heap>
        %c32 = memref.load %recv_meta[%m3] : memref<?xi32, #symm.heap>
        %e = arith.index_cast %e32 : i32 to index
        %t = arith.index_cast %t32 : i32 to index
        %c = arith.index_cast %c32 : i32 to index
        %s = memref.load %scale[%e] : memref<?xf32>
        %sv = vector.broadcast %s : f32 to vector<8xf32>
        %tk = arith.muli %t, %k : index
        %slot = arith.addi %tk, %c : index
        %dst = arith.muli %slot, %h : index
        %from = arith.muli %row, %h : index
        scf.for %j = %lane0 to %h step %stride {
          %fi = arith.addi %from, %j : index
          %v = vector.load %recv_x[%fi] {alignment = 16} : memref<?xf16, #symm.heap>, vector<8xf16>
          %vf = arith.extf %v : vector<8xf16> to vector<8xf32>
          %yf = arith.mulf %vf, %sv : vector<8xf32>
          %y = arith.truncf %yf : vector<8xf32> to vector<8xf16>
          %di = arith.addi %dst, %j : index
          symm.store %y, %back_y[%di] to %src : vector<8xf16> -> memref<?xf16, #symm.heap>
        }
        func.call @symm_coll_signal(%back_flag, %slot, %src, %epoch) : (memref<?xi32, #symm.heap>, index, i32, i32) -> ()
      }
      scf.for %t = %bid to %tokens step %gd {
        %tk = arith.muli %t, %k : index
        scf.if %first {
          scf.for %c = %c0 to %k step %c1 {
            %slot = arith.addi %tk, %c : index
            %seen = symm.wait %back_flag[%slot] ge %epoch scope(system) : memref<?xi32, #symm.heap> -> i32
          }
        }
        gpu.barrier
        %o = arith.muli %t, %h : index
        scf.for %j = %lane0 to %h step %stride {
          %acc = scf.for %c = %c0 to %k step %c1 iter_args(%a = %zeros) -> (vector<8xf32>) {
            %slot = arith.addi %tk, %c : index
            %w = memref.load %weights[%slot] : memref<?xf32>
            %wv = vector.broadcast %w : f32 to vector<8xf32>
            %yi0 = arith.muli %slot, %h : index
            %yi = arith.addi %yi0, %j : index
            %y = vector.load %back_y[%yi] {alignment = 16} : memref<?xf16, #symm.heap>, vector<8xf16>
            %yf = arith.extf %y : vector<8xf16> to vector<8xf32>
            %a1 = math.fma %yf, %wv, %a : vector<8xf32>
            scf.yield %a1 : vector<8xf32>
          }
          %r = arith.truncf %acc : vector<8xf32> to vector<8xf16>
          %oi = arith.addi %o, %j : index
          vector.store %r, %out[%oi] {alignment = 16} : memref<?xf16>, vector<8xf16>
        }
      }
      gpu.return
    }

    // Bulk-synchronous pieces. pack: every (token, choice) row into a send
    // buffer sorted by expert (hence by destination rank), with metadata.
    gpu.func @pack(%x: memref<?xf16>, %experts: memref<?xi32>,
                   %pos: memref<?xi32>, %cnt: memref<?xi32, #symm.heap>,
                   %send_x: memref<?xf16>, %send_meta: memref<?xi32>,
                   %items: index, %k: index, %h: index, %num_experts: index)
        workgroup(%off: memref<1024xi32, #gpu.address_space<workgroup>>)
        kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %zero = arith.constant 0 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      %me = symm.rank : i32
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.for %e = %tid to %num_experts step %bd {
        %base = scf.for %e2 = %c0 to %e step %c1 iter_args(%a = %zero) -> (i32) {
          %v = memref.load %cnt[%e2] : memref<?xi32, #symm.heap>
          %a1 = arith.addi %a, %v : i32
          scf.yield %a1 : i32
        }
        memref.store %base, %off[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %lane0 = arith.muli %tid, %c8 : index
      %stride = arith.muli %bd, %c8 : index
      scf.for %it = %bid to %items step %gd {
        %e32 = memref.load %experts[%it] : memref<?xi32>
        %e = arith.index_cast %e32 : i32 to index
        %p32 = memref.load %pos[%it] : memref<?xi32>
        %o32 = memref.load %off[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
        %row32 = arith.addi %o32, %p32 : i32
        %row = arith.index_cast %row32 : i32 to index
        %t = arith.divui %it, %k : index
        %src = arith.muli %t, %h : index
        %dst = arith.muli %row, %h : index
        scf.for %j = %lane0 to %h step %stride {
          %si = arith.addi %src, %j : index
          %v = vector.load %x[%si] {alignment = 16} : memref<?xf16>, vector<8xf16>
          %di = arith.addi %dst, %j : index
          vector.store %v, %send_x[%di] {alignment = 16} : memref<?xf16>, vector<8xf16>
        }
        scf.if %first {
          %c = arith.remui %it, %k : index
          %t32 = arith.index_cast %t : index to i32
          %ch32 = arith.index_cast %c : index to i32
          %m0 = arith.muli %row, %c4 : index
          %m1 = arith.addi %m0, %c1 : index
          %m2 = arith.addi %m0, %c2 : index
          %m3 = arith.addi %m0, %c3 : index
          memref.store %e32, %send_meta[%m0] : memref<?xi32>
          memref.store %me, %send_meta[%m1] : memref<?xi32>
          memref.store %t32, %send_meta[%m2] : memref<?xi32>
          memref.store %ch32, %send_meta[%m3] : memref<?xi32>
        }
      }
      gpu.return
    }

    // Moves rows between the all-to-all layout (by source rank, then
    // expert) and the grouped layout (by local expert, then source rank):
    // to_grouped = 1 copies rows and metadata into the grouped buffers,
    // 0 copies grouped rows back. rcnt[s*EL + l]: rows from rank s for
    // local expert l; a_meta is the metadata in all-to-all order.
    gpu.func @regroup(%a_x: memref<?xf16>, %a_meta: memref<?xi32>,
                      %g_x: memref<?xf16>, %g_meta: memref<?xi32>,
                      %rcnt: memref<?xi32>, %rows: index, %h: index,
                      %el: index, %to_grouped: i32)
        workgroup(%astart: memref<1024xi32, #gpu.address_space<workgroup>>,
                  %gstart: memref<1024xi32, #gpu.address_space<workgroup>>)
        kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %zero = arith.constant 0 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      %n = symm.world_size : i32
      %ni = arith.index_cast %n : i32 to index
      %cells = arith.muli %ni, %el : index
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.for %q = %tid to %cells step %bd {
        %s = arith.divui %q, %el : index
        %l = arith.remui %q, %el : index
        %a = scf.for %q2 = %c0 to %q step %c1 iter_args(%acc = %zero) -> (i32) {
          %v = memref.load %rcnt[%q2] : memref<?xi32>
          %a1 = arith.addi %acc, %v : i32
          scf.yield %a1 : i32
        }
        // Grouped: every rank's rows of lower experts, then lower ranks'.
        %g = scf.for %q2 = %c0 to %cells step %c1 iter_args(%acc = %zero) -> (i32) {
          %s2 = arith.divui %q2, %el : index
          %l2 = arith.remui %q2, %el : index
          %lowl = arith.cmpi ult, %l2, %l : index
          %samel = arith.cmpi eq, %l2, %l : index
          %lows = arith.cmpi ult, %s2, %s : index
          %both = arith.andi %samel, %lows : i1
          %take = arith.ori %lowl, %both : i1
          %v = memref.load %rcnt[%q2] : memref<?xi32>
          %av = arith.addi %acc, %v : i32
          %a1 = arith.select %take, %av, %acc : i32
          scf.yield %a1 : i32
        }
        memref.store %a, %astart[%q] : memref<1024xi32, #gpu.address_space<workgroup>>
        memref.store %g, %gstart[%q] : memref<1024xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %forward = arith.cmpi ne, %to_grouped, %zero : i32
      %lane0 = arith.muli %tid, %c8 : index
      %stride = arith.muli %bd, %c8 : index
      scf.for %row = %bid to %rows step %gd {
        %m0 = arith.muli %row, %c4 : index
        %m1 = arith.addi %m0, %c1 : index
        %e32 = memref.load %a_meta[%m0] : memref<?xi32>
        %s32 = memref.load %a_meta[%m1] : memref<?xi32>
        %e = arith.index_cast %e32 : i32 to index
        %s = arith.index_cast %s32 : i32 to index
        %l = arith.remui %e, %el : index
        %sq = arith.muli %s, %el : index
        %q = arith.addi %sq, %l : index
        %as = memref.load %astart[%q] : memref<1024xi32, #gpu.address_space<workgroup>>
        %gs = memref.load %gstart[%q] : memref<1024xi32, #gpu.address_space<workgroup>>
        %as_i = arith.index_cast %as : i32 to index
        %gs_i = arith.index_cast %gs : i32 to index
        %inner = arith.subi %row, %as_i : index
        %grow = arith.addi %gs_i, %inner : index
        %ab = arith.muli %row, %h : index
        %gb = arith.muli %grow, %h : index
        scf.if %forward {
          scf.for %j = %lane0 to %h step %stride {
            %ai = arith.addi %ab, %j : index
            %gi = arith.addi %gb, %j : index
            %v = vector.load %a_x[%ai] {alignment = 16} : memref<?xf16>, vector<8xf16>
            vector.store %v, %g_x[%gi] {alignment = 16} : memref<?xf16>, vector<8xf16>
          }
          scf.if %first {
            %gm = arith.muli %grow, %c4 : index
            scf.for %f = %c0 to %c4 step %c1 {
              %ai = arith.addi %m0, %f : index
              %gi = arith.addi %gm, %f : index
              %v = memref.load %a_meta[%ai] : memref<?xi32>
              memref.store %v, %g_meta[%gi] : memref<?xi32>
            }
          }
        } else {
          scf.for %j = %lane0 to %h step %stride {
            %ai = arith.addi %ab, %j : index
            %gi = arith.addi %gb, %j : index
            %v = vector.load %g_x[%gi] {alignment = 16} : memref<?xf16>, vector<8xf16>
            vector.store %v, %a_x[%ai] {alignment = 16} : memref<?xf16>, vector<8xf16>
          }
        }
      }
      gpu.return
    }

    // The expert computation on grouped rows: y = fp16(x * s_e).
    gpu.func @expert(%g_x: memref<?xf16>, %g_meta: memref<?xi32>,
                     %scale: memref<?xf32>, %g_y: memref<?xf16>,
                     %rows: index, %h: index) kernel {
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      %lane0 = arith.muli %tid, %c8 : index
      %stride = arith.muli %bd, %c8 : index
      scf.for %row = %bid to %rows step %gd {
        %m0 = arith.muli %row, %c4 : index
        %e32 = memref.load %g_meta[%m0] : memref<?xi32>
        %e = arith.index_cast %e32 : i32 to index
        %s = memref.load %scale[%e] : memref<?xf32>
        %sv = vector.broadcast %s : f32 to vector<8xf32>
        %b = arith.muli %row, %h : index
        scf.for %j = %lane0 to %h step %stride {
          %i = arith.addi %b, %j : index
          %v = vector.load %g_x[%i] {alignment = 16} : memref<?xf16>, vector<8xf16>
          %vf = arith.extf %v : vector<8xf16> to vector<8xf32>
          %yf = arith.mulf %vf, %sv : vector<8xf32>
          %y = arith.truncf %yf : vector<8xf32> to vector<8xf16>
          vector.store %y, %g_y[%i] {alignment = 16} : memref<?xf16>, vector<8xf16>
        }
      }
      gpu.return
    }

    // Bulk combine: the returned rows are in pack's order; each token sums
    // its k rows, weighted, in fp32.
    gpu.func @combine_bulk(%y: memref<?xf16>, %experts: memref<?xi32>,
                           %pos: memref<?xi32>, %cnt: memref<?xi32, #symm.heap>,
                           %weights: memref<?xf32>, %out: memref<?xf16>,
                           %tokens: index, %k: index, %h: index,
                           %num_experts: index)
        workgroup(%off: memref<1024xi32, #gpu.address_space<workgroup>>)
        kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %zero = arith.constant 0 : i32
      %zeros = arith.constant dense<0.0> : vector<8xf32>
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim x
      scf.for %e = %tid to %num_experts step %bd {
        %base = scf.for %e2 = %c0 to %e step %c1 iter_args(%a = %zero) -> (i32) {
          %v = memref.load %cnt[%e2] : memref<?xi32, #symm.heap>
          %a1 = arith.addi %a, %v : i32
          scf.yield %a1 : i32
        }
        memref.store %base, %off[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %lane0 = arith.muli %tid, %c8 : index
      %stride = arith.muli %bd, %c8 : index
      scf.for %t = %bid to %tokens step %gd {
        %tk = arith.muli %t, %k : index
        %o = arith.muli %t, %h : index
        scf.for %j = %lane0 to %h step %stride {
          %acc = scf.for %c = %c0 to %k step %c1 iter_args(%a = %zeros) -> (vector<8xf32>) {
            %slot = arith.addi %tk, %c : index
            %e32 = memref.load %experts[%slot] : memref<?xi32>
            %e = arith.index_cast %e32 : i32 to index
            %p32 = memref.load %pos[%slot] : memref<?xi32>
            %o32 = memref.load %off[%e] : memref<1024xi32, #gpu.address_space<workgroup>>
            %row32 = arith.addi %o32, %p32 : i32
            %row = arith.index_cast %row32 : i32 to index
            %w = memref.load %weights[%slot] : memref<?xf32>
            %wv = vector.broadcast %w : f32 to vector<8xf32>
            %yi0 = arith.muli %row, %h : index
            %yi = arith.addi %yi0, %j : index
            %yv = vector.load %y[%yi] {alignment = 16} : memref<?xf16>, vector<8xf16>
            %yf = arith.extf %yv : vector<8xf16> to vector<8xf32>
            %a1 = math.fma %yf, %wv, %a : vector<8xf32>
            scf.yield %a1 : vector<8xf32>
          }
          %r = arith.truncf %acc : vector<8xf32> to vector<8xf16>
          %oi = arith.addi %o, %j : index
          vector.store %r, %out[%oi] {alignment = 16} : memref<?xf16>, vector<8xf16>
        }
      }
      gpu.return
    }
  }
}
