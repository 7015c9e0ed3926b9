// Fused all-gather by push: every rank computes its 64-element tile in a
// kernel and, from the same kernel, puts it straight into slot `rank` of every
// peer's gather buffer with a signalled put; each rank then waits on one flag
// per peer and checks the whole gathered buffer. No host round trip, no
// separate collective kernel.
//
//   symm-run -n 4 examples/allgather.mlir
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @produce_and_push(%tile: memref<64xf32, #symm.heap>, %gather: memref<64x64xf32, #symm.heap>, %flags: memref<64xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %one = arith.constant 1 : i32
      %t = gpu.thread_id x
      %bs = gpu.block_dim x
      %me = symm.rank : i32
      %n = symm.world_size : i32
      // Compute: tile[i] = rank * 64 + i squared, kept in this rank's heap.
      %mei = arith.index_cast %me : i32 to index
      scf.for %i = %t to %c64 step %bs {
        %base = arith.muli %mei, %c64 : index
        %x = arith.addi %base, %i : index
        %xi = arith.index_cast %x : index to i32
        %xf = arith.sitofp %xi : i32 to f32
        %sq = arith.mulf %xf, %xf : f32
        memref.store %sq, %tile[%i] : memref<64xf32, #symm.heap>
      }
      gpu.barrier
      // Communicate: push the tile to every rank, flag slot `rank` on each.
      %slot = memref.subview %gather[%mei, 0] [1, 64] [1, 1] : memref<64x64xf32, #symm.heap> to memref<64xf32, strided<[1], offset: ?>, #symm.heap>
      %nn = arith.index_cast %n : i32 to index
      %c1 = arith.constant 1 : index
      scf.for %p = %c0 to %nn step %c1 {
        %peer = arith.index_cast %p : index to i32
        symm.put %tile to %slot on %peer signal(add %one, %flags[%mei] : memref<64xi32, #symm.heap>) scope(system) : memref<64xf32, #symm.heap> -> memref<64xf32, strided<[1], offset: ?>, #symm.heap>
      }
      // Consume: wait until every rank's tile has landed here.
      scf.for %p = %t to %nn step %bs {
        %s = symm.wait %flags[%p] ge %one scope(system) : memref<64xi32, #symm.heap> -> i32
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %tile = symm.alloc() : memref<64xf32, #symm.heap>
    %gather = symm.alloc() : memref<64x64xf32, #symm.heap>
    %flags = symm.alloc() : memref<64xi32, #symm.heap>
    %zeros = gpu.alloc host_shared () : memref<64xi32>
    linalg.fill ins(%zero : i32) outs(%zeros : memref<64xi32>)
    gpu.memcpy %flags, %zeros : memref<64xi32, #symm.heap>, memref<64xi32>
    symm.barrier
    gpu.launch_func @kernels::@produce_and_push blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%tile : memref<64xf32, #symm.heap>, %gather : memref<64x64xf32, #symm.heap>, %flags : memref<64xi32, #symm.heap>)
    %host = gpu.alloc host_shared () : memref<64x64xf32>
    gpu.memcpy %host, %gather : memref<64x64xf32>, memref<64x64xf32, #symm.heap>
    %n = symm.world_size : i32
    %nn = arith.index_cast %n : i32 to index
    %errors = scf.for %r = %c0 to %nn step %c1 iter_args(%e0 = %zero) -> (i32) {
      %e3 = scf.for %i = %c0 to %c64 step %c1 iter_args(%e1 = %e0) -> (i32) {
        %base = arith.muli %r, %c64 : index
        %x = arith.addi %base, %i : index
        %xi = arith.index_cast %x : index to i32
        %xf = arith.sitofp %xi : i32 to f32
        %want = arith.mulf %xf, %xf : f32
        %got = memref.load %host[%r, %i] : memref<64x64xf32>
        %bad = arith.cmpf une, %got, %want : f32
        %inc = arith.extui %bad : i1 to i32
        %e2 = arith.addi %e1, %inc : i32
        scf.yield %e2 : i32
      }
      scf.yield %e3 : i32
    }
    %me = symm.rank : i32
    %ok = arith.cmpi eq, %errors, %zero : i32
    scf.if %ok {
      vector.print str "all-gather ok: tiles from "
      vector.print %n : i32
    } else {
      vector.print str "all-gather FAILED, wrong elements: "
      vector.print %errors : i32
    }
    symm.barrier
    symm.dealloc %flags : memref<64xi32, #symm.heap>
    symm.dealloc %gather : memref<64x64xf32, #symm.heap>
    symm.dealloc %tile : memref<64xf32, #symm.heap>
    return %errors : i32
  }
}
