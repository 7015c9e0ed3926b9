// Launch shapes of real GPU kernels: 64 blocks x 256 threads, 132 blocks x 128
// threads and a 3-D grid of 2-D blocks, each thread marking its own element
// once; then 200 launches of a small kernel adding to every element. With
// few resident blocks the blocks run in waves and the result is the same.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// RUN: env SYMM_HOST_RESIDENT_BLOCKS=3 %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] many blocks ok
// CHECK-DAG: [rank 1] many blocks ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // out[global linear id] += 1
    gpu.func @mark(%out: memref<?xi32>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %tz = gpu.thread_id z
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %bz = gpu.block_id z
      %dx = gpu.block_dim x
      %dy = gpu.block_dim y
      %dz = gpu.block_dim z
      %gx = gpu.grid_dim x
      %gy = gpu.grid_dim y
      %t0 = arith.muli %tz, %dy : index
      %t1 = arith.addi %t0, %ty : index
      %t2 = arith.muli %t1, %dx : index
      %t = arith.addi %t2, %tx : index
      %b0 = arith.muli %bz, %gy : index
      %b1 = arith.addi %b0, %by : index
      %b2 = arith.muli %b1, %gx : index
      %b = arith.addi %b2, %bx : index
      %dxy = arith.muli %dx, %dy : index
      %size = arith.muli %dxy, %dz : index
      %base = arith.muli %b, %size : index
      %i = arith.addi %base, %t : index
      %v = memref.load %out[%i] : memref<?xi32>
      %one = arith.constant 1 : i32
      %v1 = arith.addi %v, %one : i32
      memref.store %v1, %out[%i] : memref<?xi32>
      gpu.return
    }
  }
  // The number of elements of buf[0, n) that differ from `want`.
  func.func @mismatches(%buf: memref<?xi32>, %n: index, %want: i32) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%e = %zero) -> i32 {
      %v = memref.load %buf[%i] : memref<?xi32>
      %bad = arith.cmpi ne, %v, %want : i32
      %inc = arith.extui %bad : i1 to i32
      %e1 = arith.addi %e, %inc : i32
      scf.yield %e1 : i32
    }
    return %r : i32
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c132 = arith.constant 132 : index
    %c200 = arith.constant 200 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %n = arith.constant 16896 : index
    %buf = gpu.alloc host_shared (%n) : memref<?xi32>

    // 64 x 256
    linalg.fill ins(%zero : i32) outs(%buf : memref<?xi32>)
    gpu.launch_func @kernels::@mark blocks in (%c64, %c1, %c1) threads in (%c256, %c1, %c1) args(%buf : memref<?xi32>)
    %n1 = arith.constant 16384 : index
    %e1 = func.call @mismatches(%buf, %n1, %one) : (memref<?xi32>, index, i32) -> i32

    // 132 x 128
    linalg.fill ins(%zero : i32) outs(%buf : memref<?xi32>)
    gpu.launch_func @kernels::@mark blocks in (%c132, %c1, %c1) threads in (%c128, %c1, %c1) args(%buf : memref<?xi32>)
    %e2 = func.call @mismatches(%buf, %n, %one) : (memref<?xi32>, index, i32) -> i32

    // (4, 3, 2) blocks of (16, 4, 2) threads: 24 x 128
    linalg.fill ins(%zero : i32) outs(%buf : memref<?xi32>)
    gpu.launch_func @kernels::@mark blocks in (%c4, %c3, %c2) threads in (%c16, %c4, %c2) args(%buf : memref<?xi32>)
    %n3 = arith.constant 3072 : index
    %e3 = func.call @mismatches(%buf, %n3, %one) : (memref<?xi32>, index, i32) -> i32

    // 200 launches of 8 x 32
    linalg.fill ins(%zero : i32) outs(%buf : memref<?xi32>)
    scf.for %k = %c0 to %c200 step %c1 {
      gpu.launch_func @kernels::@mark blocks in (%c8, %c1, %c1) threads in (%c32, %c1, %c1) args(%buf : memref<?xi32>)
    }
    %want4 = arith.constant 200 : i32
    %e4 = func.call @mismatches(%buf, %c256, %want4) : (memref<?xi32>, index, i32) -> i32

    %s1 = arith.addi %e1, %e2 : i32
    %s2 = arith.addi %e3, %e4 : i32
    %errors = arith.addi %s1, %s2 : i32
    %ok = arith.cmpi eq, %errors, %zero : i32
    %result = scf.if %ok -> (i32) {
      vector.print str "many blocks ok\n"
      scf.yield %zero : i32
    } else {
      vector.print str "many blocks FAILED, wrong elements (64x256, 132x128, 3-D, 200 launches): "
      vector.print %e1 : i32
      vector.print %e2 : i32
      vector.print %e3 : i32
      vector.print %e4 : i32
      scf.yield %one : i32
    }
    return %result : i32
  }
}
