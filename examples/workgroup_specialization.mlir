// Workgroup specialisation: blocks 0-1 compute tiles into a local staging
// buffer and raise per-tile flags; blocks 2-3 wait on those flags and push the
// tiles to the next rank with a signalled put. The consumer rank checks them.
//
//   symm-run -n 4 examples/workgroup_specialization.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fused(%stage: memref<2x64xf32, #symm.heap>, %ready: memref<2xi32, #symm.heap>, %recv: memref<2x64xf32, #symm.heap>, %arrived: memref<2xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %one = arith.constant 1 : i32
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %bs = gpu.block_dim x
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %up = arith.addi %me, %one : i32
      %next = arith.remsi %up, %n : i32
      %producer = arith.cmpi ult, %b, %c2 : index
      scf.if %producer {
        // Tile b: element i = rank * 1000 + b * 100 + i, two per thread.
        %bi = arith.index_cast %b : index to i32
        %c100 = arith.constant 100 : i32
        %c1000 = arith.constant 1000 : i32
        %r0 = arith.muli %me, %c1000 : i32
        %r1 = arith.muli %bi, %c100 : i32
        %base = arith.addi %r0, %r1 : i32
        %c64 = arith.constant 64 : index
        scf.for %i = %t to %c64 step %bs {
          %ii = arith.index_cast %i : index to i32
          %v = arith.addi %base, %ii : i32
          %vf = arith.sitofp %v : i32 to f32
          memref.store %vf, %stage[%b, %i] : memref<2x64xf32, #symm.heap>
        }
        symm.release_barrier scope(device)
        %first = arith.cmpi eq, %t, %c0 : index
        scf.if %first {
          symm.signal set %one, %ready[%b] scope(device) : i32 -> memref<2xi32, #symm.heap>
        }
      } else {
        %tile = arith.subi %b, %c2 : index
        %s = symm.wait %ready[%tile] ge %one scope(device) : memref<2xi32, #symm.heap> -> i32
        %src = memref.subview %stage[%tile, 0] [1, 64] [1, 1] : memref<2x64xf32, #symm.heap> to memref<64xf32, strided<[1], offset: ?>, #symm.heap>
        %dst = memref.subview %recv[%tile, 0] [1, 64] [1, 1] : memref<2x64xf32, #symm.heap> to memref<64xf32, strided<[1], offset: ?>, #symm.heap>
        symm.put %src to %dst on %next signal(add %one, %arrived[%tile] : memref<2xi32, #symm.heap>) scope(system) : memref<64xf32, strided<[1], offset: ?>, #symm.heap> -> memref<64xf32, strided<[1], offset: ?>, #symm.heap>
      }
      gpu.return
    }
    gpu.func @drain(%arrived: memref<2xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %a = symm.wait %arrived[%c0] ge %one scope(system) : memref<2xi32, #symm.heap> -> i32
      %b = symm.wait %arrived[%c1] ge %one scope(system) : memref<2xi32, #symm.heap> -> i32
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %stage = symm.alloc() : memref<2x64xf32, #symm.heap>
    %recv = symm.alloc() : memref<2x64xf32, #symm.heap>
    %ready = symm.alloc() : memref<2xi32, #symm.heap>
    %arrived = symm.alloc() : memref<2xi32, #symm.heap>
    %zeros = gpu.alloc host_shared () : memref<2xi32>
    %zero = arith.constant 0 : i32
    memref.store %zero, %zeros[%c0] : memref<2xi32>
    memref.store %zero, %zeros[%c1] : memref<2xi32>
    gpu.memcpy %ready, %zeros : memref<2xi32, #symm.heap>, memref<2xi32>
    gpu.memcpy %arrived, %zeros : memref<2xi32, #symm.heap>, memref<2xi32>
    symm.barrier
    gpu.launch_func @kernels::@fused blocks in (%c4, %c1, %c1) threads in (%c16, %c1, %c1) args(%stage : memref<2x64xf32, #symm.heap>, %ready : memref<2xi32, #symm.heap>, %recv : memref<2x64xf32, #symm.heap>, %arrived : memref<2xi32, #symm.heap>)
    gpu.launch_func @kernels::@drain blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%arrived : memref<2xi32, #symm.heap>)
    %host = gpu.alloc host_shared () : memref<2x64xf32>
    gpu.memcpy %host, %recv : memref<2x64xf32>, memref<2x64xf32, #symm.heap>
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %one = arith.constant 1 : i32
    %d0 = arith.addi %me, %n : i32
    %d1 = arith.subi %d0, %one : i32
    %prev = arith.remsi %d1, %n : i32
    %c1000 = arith.constant 1000 : i32
    %c100 = arith.constant 100 : i32
    %pbase = arith.muli %prev, %c1000 : i32
    %errors = scf.for %tile = %c0 to %c2 step %c1 iter_args(%e0 = %zero) -> (i32) {
      %ti = arith.index_cast %tile : index to i32
      %tb = arith.muli %ti, %c100 : i32
      %base = arith.addi %pbase, %tb : i32
      %e3 = scf.for %i = %c0 to %c64 step %c1 iter_args(%e1 = %e0) -> (i32) {
        %ii = arith.index_cast %i : index to i32
        %w = arith.addi %base, %ii : i32
        %wf = arith.sitofp %w : i32 to f32
        %g = memref.load %host[%tile, %i] : memref<2x64xf32>
        %bad = arith.cmpf une, %g, %wf : f32
        %inc = arith.extui %bad : i1 to i32
        %e2 = arith.addi %e1, %inc : i32
        scf.yield %e2 : i32
      }
      scf.yield %e3 : i32
    }
    %ok = arith.cmpi eq, %errors, %zero : i32
    scf.if %ok {
      vector.print str "specialized ok\n"
    } else {
      vector.print str "specialized FAILED, wrong elements: "
      vector.print %errors : i32
    }
    symm.barrier
    return %errors : i32
  }
}
