// gpu.all_reduce as MLIR's own GPU tests write it: every reduction kind in
// the op form and a custom one in the region form, in a gpu.launch of 35
// threads (a partial second subgroup), on registered host memory, printed
// with MLIR's printMemref functions.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: symm-compile --target=sm_90 --emit=mlir %s -o %t.nvvm.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.nvvm.mlir
// RUN: symm-compile --target=gfx942 --emit=mlir %s -o %t.rocdl.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.rocdl.mlir
// add, mul, minui, minsi, maxui, maxsi, and, or, xor, region (sum of squares):
// CHECK-DAG: [rank 0] [630, 4096, 0, -17, -1, 17, 240, 63, 35, 14910]
// CHECK-DAG: [rank 1] [630, 4096, 0, -17, -1, 17, 240, 63, 35, 14910]
// add, mul, minnumf, maxnumf, minimumf, maximumf, region (max of |x - 10|):
// CHECK-DAG: [rank 0] [612.5, 512, 0.5, 34.5, 0.5, 34.5, 24.5]
// CHECK-DAG: [rank 1] [612.5, 512, 0.5, 34.5, 0.5, 34.5, 24.5]
// CHECK-DAG: [rank 0] uniform
// CHECK-DAG: [rank 1] uniform
// GPU-DAG: gpu.binary @main_kernel
// GPU-DAG: llvm.call @printMemrefI32
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c35 = arith.constant 35 : index
  %ints = memref.alloc() : memref<10x35xi32>
  %floats = memref.alloc() : memref<7x35xf32>
  %ui = memref.cast %ints : memref<10x35xi32> to memref<*xi32>
  %uf = memref.cast %floats : memref<7x35xf32> to memref<*xf32>
  gpu.host_register %ui : memref<*xi32>
  gpu.host_register %uf : memref<*xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c35, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %three = arith.constant 3 : i32
    %c17 = arith.constant 17 : i32
    %c15 = arith.constant 15 : i32
    %c240 = arith.constant 240 : i32
    %zero = arith.constant 0 : i32
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i2 = arith.constant 2 : index
    %i3 = arith.constant 3 : index
    %i4 = arith.constant 4 : index
    %i5 = arith.constant 5 : index
    %i6 = arith.constant 6 : index
    %i7 = arith.constant 7 : index
    %i8 = arith.constant 8 : index
    %i9 = arith.constant 9 : index

    // t + 1; 2 where t % 3 == 0, else 1; t - 17; 0xF0 | (t & 15); t.
    %v = arith.addi %t, %one : i32
    %m3 = arith.remui %t, %three : i32
    %isM3 = arith.cmpi eq, %m3, %zero : i32
    %f2 = arith.select %isM3, %two, %one : i32
    %s = arith.subi %t, %c17 : i32
    %low = arith.andi %t, %c15 : i32
    %bits = arith.ori %low, %c240 : i32

    %r0 = gpu.all_reduce add %v uniform {} : (i32) -> (i32)
    %r1 = gpu.all_reduce mul %f2 uniform {} : (i32) -> (i32)
    %r2 = gpu.all_reduce minui %s uniform {} : (i32) -> (i32)
    %r3 = gpu.all_reduce minsi %s uniform {} : (i32) -> (i32)
    %r4 = gpu.all_reduce maxui %s uniform {} : (i32) -> (i32)
    %r5 = gpu.all_reduce maxsi %s uniform {} : (i32) -> (i32)
    %r6 = gpu.all_reduce and %bits uniform {} : (i32) -> (i32)
    %r7 = gpu.all_reduce or %t uniform {} : (i32) -> (i32)
    %r8 = gpu.all_reduce xor %t uniform {} : (i32) -> (i32)
    %sq = arith.muli %v, %v : i32
    %r9 = gpu.all_reduce %sq uniform {
    ^bb(%lhs : i32, %rhs : i32):
      %sum = arith.addi %lhs, %rhs : i32
      gpu.yield %sum : i32
    } : (i32) -> (i32)
    memref.store %r0, %ints[%i0, %tx] : memref<10x35xi32>
    memref.store %r1, %ints[%i1, %tx] : memref<10x35xi32>
    memref.store %r2, %ints[%i2, %tx] : memref<10x35xi32>
    memref.store %r3, %ints[%i3, %tx] : memref<10x35xi32>
    memref.store %r4, %ints[%i4, %tx] : memref<10x35xi32>
    memref.store %r5, %ints[%i5, %tx] : memref<10x35xi32>
    memref.store %r6, %ints[%i6, %tx] : memref<10x35xi32>
    memref.store %r7, %ints[%i7, %tx] : memref<10x35xi32>
    memref.store %r8, %ints[%i8, %tx] : memref<10x35xi32>
    memref.store %r9, %ints[%i9, %tx] : memref<10x35xi32>

    // t + 0.5; 2 where t % 4 == 0, else 1.
    %half = arith.constant 0.5 : f32
    %ft = arith.sitofp %t : i32 to f32
    %x = arith.addf %ft, %half : f32
    %four = arith.constant 4 : i32
    %mod4 = arith.remui %t, %four : i32
    %isM4 = arith.cmpi eq, %mod4, %zero : i32
    %fone = arith.constant 1.0 : f32
    %ftwo = arith.constant 2.0 : f32
    %g = arith.select %isM4, %ftwo, %fone : f32
    %q0 = gpu.all_reduce add %x uniform {} : (f32) -> (f32)
    %q1 = gpu.all_reduce mul %g uniform {} : (f32) -> (f32)
    %q2 = gpu.all_reduce minnumf %x uniform {} : (f32) -> (f32)
    %q3 = gpu.all_reduce maxnumf %x uniform {} : (f32) -> (f32)
    %q4 = gpu.all_reduce minimumf %x uniform {} : (f32) -> (f32)
    %q5 = gpu.all_reduce maximumf %x uniform {} : (f32) -> (f32)
    %ten = arith.constant 10.0 : f32
    %d = arith.subf %x, %ten : f32
    %ad = math.absf %d : f32
    %q6 = gpu.all_reduce %ad uniform {
    ^bb(%lhs : f32, %rhs : f32):
      %m = arith.maxnumf %lhs, %rhs : f32
      gpu.yield %m : f32
    } : (f32) -> (f32)
    memref.store %q0, %floats[%i0, %tx] : memref<7x35xf32>
    memref.store %q1, %floats[%i1, %tx] : memref<7x35xf32>
    memref.store %q2, %floats[%i2, %tx] : memref<7x35xf32>
    memref.store %q3, %floats[%i3, %tx] : memref<7x35xf32>
    memref.store %q4, %floats[%i4, %tx] : memref<7x35xf32>
    memref.store %q5, %floats[%i5, %tx] : memref<7x35xf32>
    memref.store %q6, %floats[%i6, %tx] : memref<7x35xf32>
    gpu.terminator
  }

  // Thread 0's results, and whether every thread got the same.
  %first_i = memref.subview %ints[0, 0] [10, 1] [1, 1] : memref<10x35xi32> to memref<10xi32, strided<[35]>>
  %first_f = memref.subview %floats[0, 0] [7, 1] [1, 1] : memref<7x35xf32> to memref<7xf32, strided<[35]>>
  %pi = memref.cast %first_i : memref<10xi32, strided<[35]>> to memref<*xi32>
  %pf = memref.cast %first_f : memref<7xf32, strided<[35]>> to memref<*xf32>
  call @printMemrefI32(%pi) : (memref<*xi32>) -> ()
  call @printMemrefF32(%pf) : (memref<*xf32>) -> ()
  %c10 = arith.constant 10 : index
  %c7 = arith.constant 7 : index
  %true = arith.constant true
  %ui_ok = scf.for %k = %c0 to %c10 step %c1 iter_args(%ok0 = %true) -> (i1) {
    %want = memref.load %ints[%k, %c0] : memref<10x35xi32>
    %row = scf.for %j = %c0 to %c35 step %c1 iter_args(%ok1 = %ok0) -> (i1) {
      %got = memref.load %ints[%k, %j] : memref<10x35xi32>
      %same = arith.cmpi eq, %got, %want : i32
      %ok2 = arith.andi %ok1, %same : i1
      scf.yield %ok2 : i1
    }
    scf.yield %row : i1
  }
  %all_ok = scf.for %k = %c0 to %c7 step %c1 iter_args(%ok0 = %ui_ok) -> (i1) {
    %want = memref.load %floats[%k, %c0] : memref<7x35xf32>
    %row = scf.for %j = %c0 to %c35 step %c1 iter_args(%ok1 = %ok0) -> (i1) {
      %got = memref.load %floats[%k, %j] : memref<7x35xf32>
      %same = arith.cmpf oeq, %got, %want : f32
      %ok2 = arith.andi %ok1, %same : i1
      scf.yield %ok2 : i1
    }
    scf.yield %row : i1
  }
  scf.if %all_ok {
    vector.print str "uniform\n"
  } else {
    vector.print str "NOT uniform\n"
  }
  return
}

func.func private @printMemrefI32(memref<*xi32>)
func.func private @printMemrefF32(memref<*xf32>)
