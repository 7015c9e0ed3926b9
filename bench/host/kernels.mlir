// Kernels of the CPU target's benchmark (bench/host/bench.cpp).
//
// empty: returns at once - the cost of a launch and of starting its threads.
// barriers: every thread passes `n` gpu.barriers - a barrier round trip.
// shuffles: every thread does `n` xor shuffles within its subgroup and stores
//   what it ends with in out[thread].
gpu.module @bench {
  gpu.func @empty() kernel {
    gpu.return
  }
  gpu.func @barriers(%n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      gpu.barrier
    }
    gpu.return
  }
  gpu.func @shuffles(%n: index, %out: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %width = arith.constant 32 : i32
    %mask = arith.constant 1 : i32
    %t = gpu.thread_id x
    %v0 = arith.index_cast %t : index to i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%v = %v0) -> i32 {
      %s, %ok = gpu.shuffle xor %v, %mask, %width : i32
      scf.yield %s : i32
    }
    memref.store %r, %out[%t] : memref<?xi32>
    gpu.return
  }
}
