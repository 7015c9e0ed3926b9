// A user kernel that computes a tile per workgroup and does its tile's part
// of an all-reduce with the building block symm_tile_all_reduce_f32, twice
// (sum, then max: epochs 1 and 2 on the same flags), without writing the flag
// protocol itself; then a kernel that all-reduces the same data with the ring
// block symm_tile_ring_all_reduce_f32 in 3 pieces (sum, epochs 3 to 5 on the
// same flags), and one that reduce-scatters it with
// symm_tile_ring_reduce_scatter_f32 in 2 pieces (blocks of 128 / world_size
// elements, which start between vectors on 3 and 5 ranks; sum, epochs 6 and
// 7). The kernels declare the blocks; the compiler links them from the
// device library.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 3 %s | FileCheck %s
// More ranks than the 4 the scratch once had room for (it overflowed at 5).
// RUN: %symm_run -n 5 %s | FileCheck %s
// CHECK: [rank 0] tile all-reduce ok
// CHECK-NOT: FAILED
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // The device library's blocks (collectives-f32.mlir).
    func.func private @symm_tile_all_reduce_f32(memref<?xf32>, index, memref<?xf32>, index, index, memref<?xf32, #symm.heap>, index, index, memref<?xi32, #symm.heap>, index, index, i32, i32)
    func.func private @symm_tile_ring_all_reduce_f32(memref<?xf32>, index, memref<?xf32>, index, index, index, index, index, index, memref<?xf32, #symm.heap>, memref<?xi32, #symm.heap>, index, index, i32, i32) -> i32
    func.func private @symm_tile_ring_reduce_scatter_f32(memref<?xf32>, index, index, memref<?xf32>, index, index, index, index, index, index, memref<?xf32, #symm.heap>, memref<?xi32, #symm.heap>, index, index, i32, i32) -> i32

    // Workgroup b computes tile b: x[i] = (rank + 1) * (64 b + i + 1), then
    // reduces it over the ranks into out (op 0 sum, 3 max).
    gpu.func @compute_and_reduce(%x: memref<?xf32>, %out: memref<?xf32>, %scratch: memref<?xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %op: i32, %epoch: i32) kernel {
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %b = gpu.block_id x
      %nb = gpu.grid_dim x
      %t = gpu.thread_id x
      %nt = gpu.block_dim x
      %c1_i32 = arith.constant 1 : i32
      %me = symm.rank : i32
      %me1 = arith.addi %me, %c1_i32 : i32
      %scale = arith.sitofp %me1 : i32 to f32
      %base = arith.muli %b, %c64 : index
      scf.for %i = %t to %c64 step %nt {
        %g = arith.addi %base, %i : index
        %g1 = arith.addi %g, %c1 : index
        %gi = arith.index_cast %g1 : index to i32
        %gf = arith.sitofp %gi : i32 to f32
        %v = arith.mulf %scale, %gf : f32
        memref.store %v, %x[%g] : memref<?xf32>
      }
      gpu.barrier
      // Scratch: one slot of 128 elements (both tiles) per rank; this tile
      // is [64 b, 64 b + 64) of each slot and uses flag slot b of nb.
      func.call @symm_tile_all_reduce_f32(%x, %base, %out, %base, %c64, %scratch, %c128, %base, %flags, %b, %nb, %op, %epoch) : (memref<?xf32>, index, memref<?xf32>, index, index, memref<?xf32, #symm.heap>, index, index, memref<?xi32, #symm.heap>, index, index, i32, i32) -> ()
      gpu.return
    }

    // `n` rounded up to whole 4-element vectors.
    func.func @vectors(%n: index) -> index {
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %n3 = arith.addi %n, %c3 : index
      %v = arith.divui %n3, %c4 : index
      %r = arith.muli %v, %c4 : index
      return %r : index
    }

    // Workgroup b's part [lo, hi) of the first `len` elements of a segment
    // of seg, when each workgroup of the grid takes ceil(seg / grid) of
    // them in whole vectors.
    func.func @part(%seg: index, %len: index) -> (index, index) {
      %c1 = arith.constant 1 : index
      %b = gpu.block_id x
      %nb = gpu.grid_dim x
      %nb1 = arith.subi %nb, %c1 : index
      %p0 = arith.addi %seg, %nb1 : index
      %p1 = arith.divui %p0, %nb : index
      %per = func.call @vectors(%p1) : (index) -> index
      %start = arith.muli %b, %per : index
      %lo = arith.minui %start, %len : index
      %end = arith.addi %lo, %per : index
      %hi = arith.minui %end, %len : index
      return %lo, %hi : index, index
    }

    // The 128 elements of x all-reduced by the ring: cut into world_size
    // segments of seg elements (ceil(128 / world_size) rounded up to whole
    // 4-element vectors); workgroup b takes part b of every segment, in 3
    // pieces (their flags at epoch .. epoch + 2). The scratch holds
    // 2 (world_size - 1) slots of seg elements.
    gpu.func @ring_reduce(%x: memref<?xf32>, %out: memref<?xf32>, %scratch: memref<?xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %op: i32, %epoch: i32) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %b = gpu.block_id x
      %nb = gpu.grid_dim x
      %n = symm.world_size : i32
      %nn = arith.index_cast %n : i32 to index
      %n1 = arith.subi %nn, %c1 : index
      %t1 = arith.addi %c128, %n1 : index
      %s0 = arith.divui %t1, %nn : index
      %seg = func.call @vectors(%s0) : (index) -> index
      %lo, %hi = func.call @part(%seg, %seg) : (index, index) -> (index, index)
      %c3 = arith.constant 3 : index
      %last = func.call @symm_tile_ring_all_reduce_f32(%x, %c0, %out, %c0, %c128, %seg, %lo, %hi, %c3, %scratch, %flags, %b, %nb, %op, %epoch) : (memref<?xf32>, index, memref<?xf32>, index, index, index, index, index, index, memref<?xf32, #symm.heap>, memref<?xi32, #symm.heap>, index, index, i32, i32) -> i32
      gpu.return
    }

    // The 128 elements of x reduce-scattered by the ring: rank r gets block
    // r of 128 / world_size elements (x[r * block ..]) into out[0, block);
    // the scratch holds world_size - 1 slots of seg elements (block rounded
    // up to whole vectors); workgroup b takes part b of the block, in 2
    // pieces (flags at epoch and epoch + 1).
    gpu.func @ring_reduce_scatter(%x: memref<?xf32>, %out: memref<?xf32>, %scratch: memref<?xf32, #symm.heap>, %flags: memref<?xi32, #symm.heap>, %op: i32, %epoch: i32) kernel {
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %b = gpu.block_id x
      %nb = gpu.grid_dim x
      %n = symm.world_size : i32
      %nn = arith.index_cast %n : i32 to index
      %block = arith.divui %c128, %nn : index
      %seg = func.call @vectors(%block) : (index) -> index
      %lo, %hi = func.call @part(%seg, %block) : (index, index) -> (index, index)
      %c2 = arith.constant 2 : index
      %last = func.call @symm_tile_ring_reduce_scatter_f32(%x, %c0, %block, %out, %c0, %block, %seg, %lo, %hi, %c2, %scratch, %flags, %b, %nb, %op, %epoch) : (memref<?xf32>, index, index, memref<?xf32>, index, index, index, index, index, index, memref<?xf32, #symm.heap>, memref<?xi32, #symm.heap>, index, index, i32, i32) -> i32
      gpu.return
    }
  }
  func.func @check(%out: memref<128xf32>, %sum: i1) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %n = symm.world_size : i32
    // sum: (i + 1) * n (n + 1) / 2; max: (i + 1) * n.
    %n1 = arith.addi %n, %one : i32
    %nn1 = arith.muli %n, %n1 : i32
    %tri = arith.divsi %nn1, %two : i32
    %factor = arith.select %sum, %tri, %n : i32
    %ff = arith.sitofp %factor : i32 to f32
    %errors = scf.for %i = %c0 to %c128 step %c1 iter_args(%e = %zero) -> (i32) {
      %i1 = arith.addi %i, %c1 : index
      %ii = arith.index_cast %i1 : index to i32
      %if = arith.sitofp %ii : i32 to f32
      %want = arith.mulf %if, %ff : f32
      %got = memref.load %out[%i] : memref<128xf32>
      %bad = arith.cmpf une, %got, %want : f32
      %inc = arith.extui %bad : i1 to i32
      %e1 = arith.addi %e, %inc : i32
      scf.yield %e1 : i32
    }
    return %errors : i32
  }
  // Wrong elements of this rank's block of the reduce-scatter's sums: out[i]
  // = (r * block + i + 1) * n (n + 1) / 2 for i < block = 128 / n.
  func.func @check_block(%out: memref<128xf32>) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %n = symm.world_size : i32
    %me = symm.rank : i32
    %nn = arith.index_cast %n : i32 to index
    %mei = arith.index_cast %me : i32 to index
    %block = arith.divui %c128, %nn : index
    %first = arith.muli %mei, %block : index
    %n1 = arith.addi %n, %one : i32
    %nn1 = arith.muli %n, %n1 : i32
    %tri = arith.divsi %nn1, %two : i32
    %ff = arith.sitofp %tri : i32 to f32
    %errors = scf.for %i = %c0 to %block step %c1 iter_args(%e = %zero) -> (i32) {
      %g = arith.addi %first, %i : index
      %g1 = arith.addi %g, %c1 : index
      %gi = arith.index_cast %g1 : index to i32
      %gf = arith.sitofp %gi : i32 to f32
      %want = arith.mulf %gf, %ff : f32
      %got = memref.load %out[%i] : memref<128xf32>
      %bad = arith.cmpf une, %got, %want : f32
      %inc = arith.extui %bad : i1 to i32
      %e1 = arith.addi %e, %inc : i32
      scf.yield %e1 : i32
    }
    return %errors : i32
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %sum_op = arith.constant 0 : i32
    %max_op = arith.constant 3 : i32
    %e1 = arith.constant 1 : i32
    %e2 = arith.constant 2 : i32
    %e3 = arith.constant 3 : i32
    // Scratch: a slot of 128 elements per rank (the ring takes less);
    // flags: 2 slots of SYMM_COLL_FLAGS_PER_SLOT (4 * 64).
    %world = symm.world_size : i32
    %worldi = arith.index_cast %world : i32 to index
    %c128 = arith.constant 128 : index
    %scratch_len = arith.muli %worldi, %c128 : index
    %scratch = symm.alloc(%scratch_len) : memref<?xf32, #symm.heap>
    %flags = symm.alloc() : memref<512xi32, #symm.heap>
    %zeros = gpu.alloc host_shared () : memref<512xi32>
    linalg.fill ins(%zero : i32) outs(%zeros : memref<512xi32>)
    gpu.memcpy %flags, %zeros : memref<512xi32, #symm.heap>, memref<512xi32>
    symm.barrier
    %x = gpu.alloc host_shared () : memref<128xf32>
    %out = gpu.alloc host_shared () : memref<128xf32>
    %xd = memref.cast %x : memref<128xf32> to memref<?xf32>
    %outd = memref.cast %out : memref<128xf32> to memref<?xf32>
    %f = memref.cast %flags : memref<512xi32, #symm.heap> to memref<?xi32, #symm.heap>
    gpu.launch_func @kernels::@compute_and_reduce blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%xd : memref<?xf32>, %outd : memref<?xf32>, %scratch : memref<?xf32, #symm.heap>, %f : memref<?xi32, #symm.heap>, %sum_op : i32, %e1 : i32)
    %true = arith.constant true
    %false = arith.constant false
    // gpu.wait: the launch is asynchronous on the GPU backends.
    gpu.wait
    %bad_sum = func.call @check(%out, %true) : (memref<128xf32>, i1) -> i32
    gpu.launch_func @kernels::@compute_and_reduce blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%xd : memref<?xf32>, %outd : memref<?xf32>, %scratch : memref<?xf32, #symm.heap>, %f : memref<?xi32, #symm.heap>, %max_op : i32, %e2 : i32)
    gpu.wait
    %bad_max = func.call @check(%out, %false) : (memref<128xf32>, i1) -> i32
    // out holds the maxima now: the ring's sums must replace every one. The
    // rings run one thread a workgroup, so that their pieces (whole rounds of
    // the workgroup's vectors: 16 elements here) are several and not empty:
    // on 2 ranks a workgroup's 32 elements of a segment go in pieces of 16,
    // 16 and 0 (the empty one still raises its flags), on 3 its 24 in 16, 8
    // and 0.
    gpu.launch_func @kernels::@ring_reduce blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1) args(%xd : memref<?xf32>, %outd : memref<?xf32>, %scratch : memref<?xf32, #symm.heap>, %f : memref<?xi32, #symm.heap>, %sum_op : i32, %e3 : i32)
    gpu.wait
    %bad_ring = func.call @check(%out, %true) : (memref<128xf32>, i1) -> i32
    // The reduce-scatter into a buffer of -1s, so that a missing store shows;
    // its first epoch follows the ring's last (3 + 3 - 1).
    %e4 = arith.constant 6 : i32
    %minus = arith.constant -1.0 : f32
    %blocks = gpu.alloc host_shared () : memref<128xf32>
    linalg.fill ins(%minus : f32) outs(%blocks : memref<128xf32>)
    %blocksd = memref.cast %blocks : memref<128xf32> to memref<?xf32>
    gpu.launch_func @kernels::@ring_reduce_scatter blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1) args(%xd : memref<?xf32>, %blocksd : memref<?xf32>, %scratch : memref<?xf32, #symm.heap>, %f : memref<?xi32, #symm.heap>, %sum_op : i32, %e4 : i32)
    gpu.wait
    %bad_rs = func.call @check_block(%blocks) : (memref<128xf32>) -> i32
    %bad_two = arith.addi %bad_sum, %bad_max : i32
    %bad_three = arith.addi %bad_two, %bad_ring : i32
    %bad = arith.addi %bad_three, %bad_rs : i32
    %ok = arith.cmpi eq, %bad, %zero : i32
    scf.if %ok {
      vector.print str "tile all-reduce ok\n"
    } else {
      vector.print str "tile all-reduce FAILED, wrong elements: "
      vector.print %bad : i32
    }
    symm.barrier
    symm.dealloc %flags : memref<512xi32, #symm.heap>
    symm.dealloc %scratch : memref<?xf32, #symm.heap>
    return %bad : i32
  }
}
