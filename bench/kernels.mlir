// Kernels of the GPU benchmarks (bench/bench.cpp).
//
// push: every block puts its slice of `src` into the peer's `dst` with
//       symm.put (16-byte accesses when aligned) - SM-driven peer stores.
// pingpong: one thread on each of two ranks bounces a flag `iters` times with
//       release signals and acquire waits - one-way flag latency.
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
}
