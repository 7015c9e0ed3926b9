// The other forms MLIR's own GPU integration tests use, in one program: two
// gpu.modules, gpu.printf, a gpu.shuffle with an explicit width printed with
// printMemrefF32, a 0-d host_shared allocation, and two kernels on two
// streams that wait for each other (they run concurrently or hang).
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: symm-compile --target=sm_90 --emit=mlir %s -o %t.nvvm.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.nvvm.mlir
// (gpu.printf has no gfx942 lowering yet, so this one is compiled for sm_90.)
// Each of 6 lanes takes lane ^ 1's value:
// CHECK-DAG: [rank 0] [1, 0, 3, 2, 5, 4]
// CHECK-DAG: [rank 1] [1, 0, 3, 2, 5, 4]
// CHECK-DAG: [rank 0] printf from block 1 thread 2: 5.5
// CHECK-DAG: [rank 1] printf from block 0 thread 0: 0.5
// CHECK-DAG: [rank 0] two modules: 42
// CHECK-DAG: [rank 1] concurrent kernels: 2
// GPU-DAG: gpu.binary @first
// GPU-DAG: gpu.binary @second
module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @set(%m: memref<i32>, %v: i32) kernel {
      memref.store %v, %m[] : memref<i32>
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @twice(%m: memref<i32>) kernel {
      %v = memref.load %m[] : memref<i32>
      %w = arith.addi %v, %v : i32
      memref.store %w, %m[] : memref<i32>
      gpu.return
    }
    // Counts itself in, then waits until both kernels have.
    gpu.func @meet(%m: memref<i32>) kernel {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %in = memref.atomic_rmw addi %c1, %m[] : (i32, memref<i32>) -> i32
      scf.while : () -> () {
        %seen = memref.atomic_rmw addi %c0, %m[] : (i32, memref<i32>) -> i32
        %wait = arith.cmpi slt, %seen, %c2 : i32
        scf.condition(%wait)
      } do {
        scf.yield
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index

    // gpu.shuffle with a width.
    %sh = memref.alloc() : memref<6xf32>
    %ush = memref.cast %sh : memref<6xf32> to memref<*xf32>
    gpu.host_register %ush : memref<*xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c6, %sy = %c1, %sz = %c1) {
      %t = arith.index_cast %tx : index to i32
      %f = arith.sitofp %t : i32 to f32
      %one = arith.constant 1 : i32
      %width = arith.constant 6 : i32
      %s, %valid = gpu.shuffle xor %f, %one, %width : f32
      %r = arith.select %valid, %s, %f : f32
      memref.store %r, %sh[%tx] : memref<6xf32>
      gpu.terminator
    }
    call @printMemrefF32(%ush) : (memref<*xf32>) -> ()

    // gpu.printf: 2 blocks of 3 threads.
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c3, %sy = %c1, %sz = %c1) {
      %b = arith.index_cast %bx : index to i32
      %t = arith.index_cast %tx : index to i32
      %three = arith.constant 3 : i32
      %g0 = arith.muli %b, %three : i32
      %g = arith.addi %g0, %t : i32
      %gf = arith.sitofp %g : i32 to f32
      %half = arith.constant 0.5 : f32
      %v = arith.addf %gf, %half : f32
      gpu.printf "printf from block %d thread %d: %.1f\n", %b, %t, %v : i32, i32, f32
      gpu.terminator
    }
    gpu.wait

    // Two modules, one after the other on a 0-d host_shared memref.
    %m = gpu.alloc host_shared () : memref<i32>
    %v21 = arith.constant 21 : i32
    gpu.launch_func @first::@set blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<i32>, %v21 : i32)
    gpu.launch_func @second::@twice blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<i32>)
    %two_modules = memref.load %m[] : memref<i32>
    vector.print str "two modules: "
    vector.print %two_modules : i32

    // Two kernels on two streams that wait for each other.
    %zero = arith.constant 0 : i32
    memref.store %zero, %m[] : memref<i32>
    %s0 = gpu.wait async
    %s1 = gpu.wait async
    %k0 = gpu.launch_func async [%s0] @second::@meet blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<i32>)
    %k1 = gpu.launch_func async [%s1] @second::@meet blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<i32>)
    gpu.wait [%k0, %k1]
    %met = memref.load %m[] : memref<i32>
    vector.print str "concurrent kernels: "
    vector.print %met : i32
    gpu.dealloc %m : memref<i32>
    return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
