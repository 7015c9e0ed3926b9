// Kernels of the GPU benchmarks (bench/bench.cpp).
//
// push: every block puts its slice of `src` into the peer's `dst` with
//       symm.put (16-byte accesses when aligned) - SM-driven peer stores.
// pingpong: one thread on each of two ranks bounces a flag `iters` times with
//       release signals and acquire waits - one-way flag latency.
// allgather: one block puts this rank's `count` elements into slot `rank` of
//       every rank's `gather` with a signal carrying `epoch`, then waits until
//       every slot of its own buffer carries `epoch` - a fused all-gather.
gpu.module @bench {
  gpu.func @push(%src: memref<?xf32, #symm.heap>, %dst: memref<?xf32, #symm.heap>, %peer: i32, %chunk: index) kernel {
    %b = gpu.block_id x
    %off = arith.muli %b, %chunk : index
    %s = memref.subview %src[%off] [%chunk] [1] : memref<?xf32, #symm.heap> to memref<?xf32, strided<[1], offset: ?>, #symm.heap>
    %d = memref.subview %dst[%off] [%chunk] [1] : memref<?xf32, #symm.heap> to memref<?xf32, strided<[1], offset: ?>, #symm.heap>
    symm.put %s to %d on %peer : memref<?xf32, strided<[1], offset: ?>, #symm.heap> -> memref<?xf32, strided<[1], offset: ?>, #symm.heap>
    gpu.return
  }
  gpu.func @pingpong(%flags: memref<2xi32, #symm.heap>, %iters: i32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %me = symm.rank : i32
    %other = arith.xori %me, %one : i32
    %first = arith.cmpi eq, %me, %zero : i32
    %end = arith.addi %iters, %one : i32
    scf.for %k = %one to %end step %one : i32 {
      scf.if %first {
        symm.signal set %k, %flags[%c0] on %other scope(system) : i32 -> memref<2xi32, #symm.heap>
        %a = symm.wait %flags[%c1] ge %k scope(system) : memref<2xi32, #symm.heap> -> i32
      } else {
        %b = symm.wait %flags[%c0] ge %k scope(system) : memref<2xi32, #symm.heap> -> i32
        symm.signal set %k, %flags[%c1] on %other scope(system) : i32 -> memref<2xi32, #symm.heap>
      }
    }
    gpu.return
  }
  gpu.func @allgather(%tile: memref<?xf32, #symm.heap>, %gather: memref<?xf32, #symm.heap>, %flags: memref<64xi32, #symm.heap>, %epoch: i32, %count: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = gpu.thread_id x
    %bs = gpu.block_dim x
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %mei = arith.index_cast %me : i32 to index
    %nn = arith.index_cast %n : i32 to index
    %off = arith.muli %mei, %count : index
    %slot = memref.subview %gather[%off] [%count] [1] : memref<?xf32, #symm.heap> to memref<?xf32, strided<[1], offset: ?>, #symm.heap>
    scf.for %p = %c0 to %nn step %c1 {
      %peer = arith.index_cast %p : index to i32
      symm.put %tile to %slot on %peer signal(set %epoch, %flags[%mei] : memref<64xi32, #symm.heap>) scope(system) : memref<?xf32, #symm.heap> -> memref<?xf32, strided<[1], offset: ?>, #symm.heap>
    }
    scf.for %p = %t to %nn step %bs {
      %s = symm.wait %flags[%p] ge %epoch scope(system) : memref<64xi32, #symm.heap> -> i32
    }
    gpu.return
  }
}
