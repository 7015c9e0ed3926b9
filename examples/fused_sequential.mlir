// Fused sequential: each thread computes its element and stores it from
// registers straight into the next rank's inbox, then the workgroup
// synchronises (symm.release_barrier) and one thread raises one flag, whose
// release covers every thread's stores; the next rank's kernel waits on it. One
// launch, no staging buffer, no global barrier between compute and
// communication.
//
//   symm-run -n 4 examples/fused_sequential.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // The device library's self-check (check.mlir).
    func.func private @symm_check_ramp_f32(memref<?xf32, #symm.heap>, f32) -> i32
    gpu.func @compute_and_scatter(%inbox: memref<64xf32, #symm.heap>, %flag: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %i = gpu.thread_id x
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %one = arith.constant 1 : i32
      %up = arith.addi %me, %one : i32
      %next = arith.remsi %up, %n : i32
      %c100 = arith.constant 100 : i32
      %base = arith.muli %me, %c100 : i32
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %base, %ii : i32
      %f = arith.sitofp %v : i32 to f32
      symm.store %f, %inbox[%i] to %next : f32 -> memref<64xf32, #symm.heap>
      symm.release_barrier scope(system)
      %first = arith.cmpi eq, %i, %c0 : index
      scf.if %first {
        symm.signal set %one, %flag[%c0] on %next scope(system) : i32 -> memref<1xi32, #symm.heap>
      }
      // Consume what the previous rank sent before leaving.
      %s = symm.wait %flag[%c0] eq %one scope(system) : memref<1xi32, #symm.heap> -> i32
      gpu.return
    }
    // The check, on the device where the data is: every example leaves the
    // previous rank's tile, prev * 100 + i, in %got; errors[0] is the count
    // of wrong elements.
    gpu.func @check(%got: memref<64xf32, #symm.heap>, %errors: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %c100 = arith.constant 100 : i32
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %d0 = arith.addi %me, %n : i32
      %d1 = arith.subi %d0, %one : i32
      %prev = arith.remsi %d1, %n : i32
      %base = arith.muli %prev, %c100 : i32
      %first = arith.sitofp %base : i32 to f32
      %g = memref.cast %got : memref<64xf32, #symm.heap> to memref<?xf32, #symm.heap>
      %e = func.call @symm_check_ramp_f32(%g, %first) : (memref<?xf32, #symm.heap>, f32) -> i32
      memref.store %e, %errors[%c0] : memref<1xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %inbox = symm.alloc() : memref<64xf32, #symm.heap>
    %flag = symm.alloc() : memref<1xi32, #symm.heap>
    %z = gpu.alloc host_shared () : memref<1xi32>
    memref.store %zero, %z[%c0] : memref<1xi32>
    gpu.memcpy %flag, %z : memref<1xi32, #symm.heap>, memref<1xi32>
    symm.barrier
    gpu.launch_func @kernels::@compute_and_scatter blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%inbox : memref<64xf32, #symm.heap>, %flag : memref<1xi32, #symm.heap>)
    %errors = symm.alloc() : memref<1xi32, #symm.heap>
    gpu.launch_func @kernels::@check blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%inbox : memref<64xf32, #symm.heap>, %errors : memref<1xi32, #symm.heap>)
    %count = gpu.alloc host_shared () : memref<1xi32>
    gpu.memcpy %count, %errors : memref<1xi32>, memref<1xi32, #symm.heap>
    %wrong = memref.load %count[%c0] : memref<1xi32>
    %zero_errors = arith.constant 0 : i32
    %ok = arith.cmpi eq, %wrong, %zero_errors : i32
    scf.if %ok {
      vector.print str "pattern ok\n"
    } else {
      vector.print str "pattern FAILED, wrong elements: "
      vector.print %wrong : i32
    }
    symm.barrier
    return %wrong : i32
  }
}
