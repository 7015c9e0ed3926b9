// Unfused producer-consumer: a producer kernel and a consumer kernel run at
// the same time on two streams of every rank, with flags between them. The
// producer computes 4 tiles and puts each into the next rank's inbox with a
// signal; the consumer waits on each incoming tile's flag and accumulates it.
//
//   symm-run -n 4 examples/producer_consumer.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // The device library's self-check (check.mlir).
    func.func private @symm_check_ramp_f32(memref<?xf32, #symm.heap>, f32) -> i32
    gpu.func @producer(%stage: memref<4x64xf32, #symm.heap>, %inbox: memref<4x64xf32, #symm.heap>, %flags: memref<4xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
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
      scf.for %t = %c0 to %c4 step %c1 {
        // Tile t holds (rank * 100 + i) * (t + 1).
        %ti = arith.index_cast %t : index to i32
        %t1 = arith.addi %ti, %one : i32
        %scale = arith.sitofp %t1 : i32 to f32
        %x = arith.mulf %f, %scale : f32
        memref.store %x, %stage[%t, %i] : memref<4x64xf32, #symm.heap>
        gpu.barrier
        %src = memref.subview %stage[%t, 0] [1, 64] [1, 1] : memref<4x64xf32, #symm.heap> to memref<64xf32, strided<[1], offset: ?>, #symm.heap>
        %dst = memref.subview %inbox[%t, 0] [1, 64] [1, 1] : memref<4x64xf32, #symm.heap> to memref<64xf32, strided<[1], offset: ?>, #symm.heap>
        symm.put %src to %dst on %next signal(set %one, %flags[%t] : memref<4xi32, #symm.heap>) scope(system) : memref<64xf32, strided<[1], offset: ?>, #symm.heap> -> memref<64xf32, strided<[1], offset: ?>, #symm.heap>
      }
      gpu.return
    }
    // out[i] = sum over tiles of tile[i] / (t + 1) / 4, i.e. prev * 100 + i.
    gpu.func @consumer(%inbox: memref<4x64xf32, #symm.heap>, %flags: memref<4xi32, #symm.heap>, %out: memref<64xf32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %i = gpu.thread_id x
      %one = arith.constant 1 : i32
      %zero = arith.constant 0.0 : f32
      %sum = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
        %s = symm.wait %flags[%t] eq %one scope(system) : memref<4xi32, #symm.heap> -> i32
        %x = memref.load %inbox[%t, %i] : memref<4x64xf32, #symm.heap>
        %ti = arith.index_cast %t : index to i32
        %t1 = arith.addi %ti, %one : i32
        %scale = arith.sitofp %t1 : i32 to f32
        %y = arith.divf %x, %scale : f32
        %acc2 = arith.addf %acc, %y : f32
        scf.yield %acc2 : f32
      }
      %four = arith.constant 4.0 : f32
      %mean = arith.divf %sum, %four : f32
      memref.store %mean, %out[%i] : memref<64xf32, #symm.heap>
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
    %stage = symm.alloc() : memref<4x64xf32, #symm.heap>
    %inbox = symm.alloc() : memref<4x64xf32, #symm.heap>
    %flags = symm.alloc() : memref<4xi32, #symm.heap>
    %out = symm.alloc() : memref<64xf32, #symm.heap>
    %z = gpu.alloc host_shared () : memref<4xi32>
    linalg.fill ins(%zero : i32) outs(%z : memref<4xi32>)
    gpu.memcpy %flags, %z : memref<4xi32, #symm.heap>, memref<4xi32>
    symm.barrier
    // Two streams: the kernels run concurrently on each rank.
    %s0 = gpu.wait async
    %s1 = gpu.wait async
    %e1 = gpu.launch_func async [%s1] @kernels::@consumer blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%inbox : memref<4x64xf32, #symm.heap>, %flags : memref<4xi32, #symm.heap>, %out : memref<64xf32, #symm.heap>)
    %e0 = gpu.launch_func async [%s0] @kernels::@producer blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%stage : memref<4x64xf32, #symm.heap>, %inbox : memref<4x64xf32, #symm.heap>, %flags : memref<4xi32, #symm.heap>)
    gpu.wait [%e0, %e1]
    %errors = symm.alloc() : memref<1xi32, #symm.heap>
    gpu.launch_func @kernels::@check blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%out : memref<64xf32, #symm.heap>, %errors : memref<1xi32, #symm.heap>)
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
