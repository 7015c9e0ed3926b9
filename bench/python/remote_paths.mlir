// The flag kernel of remote_paths.py, compiled direct and with
// --remote=nvshmem: one thread raises a flag in a peer's heap (a release
// signal) and polls it there (an acquire wait on the peer's flag) until it
// reads the value back, `iters` times: the round trip of a flag through the
// path a remote access takes, with no second kernel to answer (ranks that
// share a GPU take turns, so a ping-pong between them measures the turns).
gpu.module @remote_paths {
  gpu.func @flag_round(%flags: memref<1xi32, #symm.heap>, %peer: i32,
                       %iters: i32) kernel {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %end = arith.addi %iters, %one : i32
    scf.for %k = %one to %end step %one : i32 {
      symm.signal set %k, %flags[%c0] on %peer scope(system) : i32 -> memref<1xi32, #symm.heap>
      %seen = symm.wait %flags[%c0] from %peer ge %k scope(system) : memref<1xi32, #symm.heap> -> i32
    }
    gpu.return
  }
}
