// Strided 2-D tiles: each rank puts the 8x8 centre of its 16x16 source into
// the top-right corner of the next rank's destination, with a signal on one
// tile and without on the other; then gets the previous rank's centre back
// with symm.get.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// CHECK-DAG: [rank 0] tiles ok
// CHECK-DAG: [rank 1] tiles ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @exchange(%src: memref<16x16xf32, #symm.heap>, %dst: memref<16x16xf32, #symm.heap>, %flags: memref<2xi32, #symm.heap>, %back: memref<8x8xf32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %up = arith.addi %me, %one : i32
      %next = arith.remsi %up, %n : i32
      %down = arith.addi %me, %n : i32
      %down1 = arith.subi %down, %one : i32
      %prev = arith.remsi %down1, %n : i32
      %centre = memref.subview %src[4, 4] [8, 8] [1, 1] : memref<16x16xf32, #symm.heap> to memref<8x8xf32, strided<[16, 1], offset: 68>, #symm.heap>
      %corner = memref.subview %dst[0, 8] [8, 8] [1, 1] : memref<16x16xf32, #symm.heap> to memref<8x8xf32, strided<[16, 1], offset: 8>, #symm.heap>
      %low = memref.subview %dst[8, 0] [8, 8] [1, 1] : memref<16x16xf32, #symm.heap> to memref<8x8xf32, strided<[16, 1], offset: 128>, #symm.heap>
      // With a signal: the consumer waits for it.
      symm.put %centre to %corner on %next signal(add %one, %flags[%c0] : memref<2xi32, #symm.heap>) scope(system) : memref<8x8xf32, strided<[16, 1], offset: 68>, #symm.heap> -> memref<8x8xf32, strided<[16, 1], offset: 8>, #symm.heap>
      // Without: ordered by a fence, a barrier and a separate signal.
      symm.put %centre to %low on %next : memref<8x8xf32, strided<[16, 1], offset: 68>, #symm.heap> -> memref<8x8xf32, strided<[16, 1], offset: 128>, #symm.heap>
      symm.fence ordering(release) scope(system)
      gpu.barrier
      %t = gpu.thread_id x
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        symm.signal add %one, %flags[%c1] on %next scope(system) : i32 -> memref<2xi32, #symm.heap>
      }
      %s0 = symm.wait %flags[%c0] ge %one scope(system) : memref<2xi32, #symm.heap> -> i32
      %s1 = symm.wait %flags[%c1] ge %one scope(system) : memref<2xi32, #symm.heap> -> i32
      // Pull the previous rank's centre.
      symm.get %centre from %prev to %back : memref<8x8xf32, strided<[16, 1], offset: 68>, #symm.heap> -> memref<8x8xf32, #symm.heap>
      gpu.return
    }
    gpu.func @fill(%src: memref<16x16xf32, #symm.heap>) kernel {
      %i = gpu.thread_id x
      %j = gpu.thread_id y
      %me = symm.rank : i32
      %mef = arith.sitofp %me : i32 to f32
      %c1000 = arith.constant 1000.0 : f32
      %base = arith.mulf %mef, %c1000 : f32
      %c16 = arith.constant 16 : index
      %lin0 = arith.muli %i, %c16 : index
      %lin = arith.addi %lin0, %j : index
      %linI = arith.index_cast %lin : index to i32
      %linF = arith.sitofp %linI : i32 to f32
      %v = arith.addf %base, %linF : f32
      memref.store %v, %src[%i, %j] : memref<16x16xf32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c4 = arith.constant 4 : index
    %src = symm.alloc() : memref<16x16xf32, #symm.heap>
    %dst = symm.alloc() : memref<16x16xf32, #symm.heap>
    %back = symm.alloc() : memref<8x8xf32, #symm.heap>
    %flags = symm.alloc() : memref<2xi32, #symm.heap>
    %zeros = gpu.alloc host_shared () : memref<2xi32>
    %zero = arith.constant 0 : i32
    memref.store %zero, %zeros[%c0] : memref<2xi32>
    memref.store %zero, %zeros[%c1] : memref<2xi32>
    gpu.memcpy %flags, %zeros : memref<2xi32, #symm.heap>, memref<2xi32>
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1) threads in (%c16, %c16, %c1) args(%src : memref<16x16xf32, #symm.heap>)
    symm.barrier
    gpu.launch_func @kernels::@exchange blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%src : memref<16x16xf32, #symm.heap>, %dst : memref<16x16xf32, #symm.heap>, %flags : memref<2xi32, #symm.heap>, %back : memref<8x8xf32, #symm.heap>)
    symm.barrier
    %hdst = gpu.alloc host_shared () : memref<16x16xf32>
    %hback = gpu.alloc host_shared () : memref<8x8xf32>
    gpu.memcpy %hdst, %dst : memref<16x16xf32>, memref<16x16xf32, #symm.heap>
    gpu.memcpy %hback, %back : memref<8x8xf32>, memref<8x8xf32, #symm.heap>
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %one = arith.constant 1 : i32
    %d0 = arith.addi %me, %n : i32
    %d1 = arith.subi %d0, %one : i32
    %prev = arith.remsi %d1, %n : i32
    %prevF = arith.sitofp %prev : i32 to f32
    %c1000 = arith.constant 1000.0 : f32
    %base = arith.mulf %prevF, %c1000 : f32
    %errors = scf.for %r = %c0 to %c8 step %c1 iter_args(%e0 = %zero) -> (i32) {
      %e3 = scf.for %c = %c0 to %c8 step %c1 iter_args(%e1 = %e0) -> (i32) {
        // The previous rank's centre element (r+4, c+4).
        %sr = arith.addi %r, %c4 : index
        %sc = arith.addi %c, %c4 : index
        %lin0 = arith.muli %sr, %c16 : index
        %lin = arith.addi %lin0, %sc : index
        %linI = arith.index_cast %lin : index to i32
        %linF = arith.sitofp %linI : i32 to f32
        %want = arith.addf %base, %linF : f32
        %cc = arith.addi %c, %c8 : index
        %rr = arith.addi %r, %c8 : index
        %a = memref.load %hdst[%r, %cc] : memref<16x16xf32>
        %b = memref.load %hdst[%rr, %c] : memref<16x16xf32>
        %g = memref.load %hback[%r, %c] : memref<8x8xf32>
        %ba = arith.cmpf une, %a, %want : f32
        %bb = arith.cmpf une, %b, %want : f32
        %bg = arith.cmpf une, %g, %want : f32
        %x = arith.ori %ba, %bb : i1
        %bad = arith.ori %x, %bg : i1
        %inc = arith.extui %bad : i1 to i32
        %e2 = arith.addi %e1, %inc : i32
        scf.yield %e2 : i32
      }
      scf.yield %e3 : i32
    }
    %ok = arith.cmpi eq, %errors, %zero : i32
    scf.if %ok {
      vector.print str "tiles ok\n"
    } else {
      vector.print str "tiles FAILED, wrong elements: "
      vector.print %errors : i32
    }
    symm.barrier
    return %errors : i32
  }
}
