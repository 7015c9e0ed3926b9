// Bulk-synchronous: compute in one kernel, wait, communicate in another
// kernel, wait. The baseline the fused patterns improve on: two launches and
// two global barriers per step.
//
//   symm-run -n 4 examples/bulk_synchronous.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // The device library's self-check (check.mlir).
    func.func private @symm_check_ramp_f32(memref<?xf32, #symm.heap>, f32) -> i32
    // tile[i] = rank * 100 + i
    gpu.func @compute(%tile: memref<64xf32, #symm.heap>) kernel {
      %i = gpu.thread_id x
      %me = symm.rank : i32
      %c100 = arith.constant 100 : i32
      %base = arith.muli %me, %c100 : i32
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %base, %ii : i32
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %tile[%i] : memref<64xf32, #symm.heap>
      gpu.return
    }
    // Copy the tile to the next rank's inbox.
    gpu.func @communicate(%tile: memref<64xf32, #symm.heap>, %inbox: memref<64xf32, #symm.heap>) kernel {
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %one = arith.constant 1 : i32
      %up = arith.addi %me, %one : i32
      %next = arith.remsi %up, %n : i32
      symm.put %tile to %inbox on %next : memref<64xf32, #symm.heap> -> memref<64xf32, #symm.heap>
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
    %tile = symm.alloc() : memref<64xf32, #symm.heap>
    %inbox = symm.alloc() : memref<64xf32, #symm.heap>
    gpu.launch_func @kernels::@compute blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%tile : memref<64xf32, #symm.heap>)
    symm.barrier
    gpu.launch_func @kernels::@communicate blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%tile : memref<64xf32, #symm.heap>, %inbox : memref<64xf32, #symm.heap>)
    symm.barrier
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
