// Thread, block, lane and subgroup ids and the size of dynamic shared memory,
// as each thread of 7 blocks of 40 threads sees them: a block's lanes restart
// at every 32 threads (thread 33 is lane 1), and every thread sees the launch's
// 100 bytes of dynamic shared memory.
// RUN: %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] ids ok
// CHECK-DAG: [rank 1] ids ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @ids(%out: memref<280x4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %g = gpu.global_id x
      %lane = gpu.lane_id
      %size = gpu.subgroup_size : index
      %shared = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %bytes = memref.dim %shared, %c0 : memref<?xi8, #gpu.address_space<workgroup>>
      %b = gpu.block_id x
      %li = arith.index_cast %lane : index to i32
      %si = arith.index_cast %size : index to i32
      %bi = arith.index_cast %bytes : index to i32
      %bb = arith.index_cast %b : index to i32
      memref.store %li, %out[%g, %c0] : memref<280x4xi32>
      memref.store %si, %out[%g, %c1] : memref<280x4xi32>
      memref.store %bi, %out[%g, %c2] : memref<280x4xi32>
      memref.store %bb, %out[%g, %c3] : memref<280x4xi32>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c32 = arith.constant 32 : index
    %c40 = arith.constant 40 : index
    %c280 = arith.constant 280 : index
    %c100 = arith.constant 100 : i32
    %zero = arith.constant 0 : i32
    %dev = gpu.alloc host_shared () : memref<280x4xi32>
    gpu.launch_func @kernels::@ids blocks in (%c7, %c1, %c1) threads in (%c40, %c1, %c1) dynamic_shared_memory_size %c100 args(%dev : memref<280x4xi32>)
    %host = gpu.alloc host_shared () : memref<280x4xi32>
    gpu.memcpy %host, %dev : memref<280x4xi32>, memref<280x4xi32>
    %bad = scf.for %g = %c0 to %c280 step %c1 iter_args(%e0 = %zero) -> (i32) {
      %t = arith.remui %g, %c40 : index
      %lane = arith.remui %t, %c32 : index
      %block = arith.divui %g, %c40 : index
      %wl = arith.index_cast %lane : index to i32
      %wb = arith.index_cast %block : index to i32
      %gl = memref.load %host[%g, %c0] : memref<280x4xi32>
      %gs = memref.load %host[%g, %c1] : memref<280x4xi32>
      %gd = memref.load %host[%g, %c2] : memref<280x4xi32>
      %gb = memref.load %host[%g, %c3] : memref<280x4xi32>
      %c32i = arith.constant 32 : i32
      %x0 = arith.cmpi ne, %gl, %wl : i32
      %x1 = arith.cmpi ne, %gs, %c32i : i32
      %x2 = arith.cmpi ne, %gd, %c100 : i32
      %x3 = arith.cmpi ne, %gb, %wb : i32
      %y0 = arith.ori %x0, %x1 : i1
      %y1 = arith.ori %x2, %x3 : i1
      %y = arith.ori %y0, %y1 : i1
      %inc = arith.extui %y : i1 to i32
      %e1 = arith.addi %e0, %inc : i32
      scf.yield %e1 : i32
    }
    %ok = arith.cmpi eq, %bad, %zero : i32
    scf.if %ok {
      vector.print str "ids ok\n"
    } else {
      vector.print str "ids FAILED, wrong threads: "
      vector.print %bad : i32
    }
    return %bad : i32
  }
}
