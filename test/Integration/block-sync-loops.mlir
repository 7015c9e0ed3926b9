// gpu.barrier and gpu.shuffle in loops, in 4 blocks of 256 threads (as a
// 64x4 block): each of 50 rounds writes workgroup memory, passes a barrier,
// reads a neighbour's element and passes another; each of 20 rounds sums the
// subgroup with an xor butterfly and broadcasts lane 3's value. Every thread
// checks what it got and the host counts the threads that saw a wrong value.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// CHECK-DAG: [rank 0] block sync loops ok
// CHECK-DAG: [rank 1] block sync loops ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @rounds(%errors: memref<1024xi32>) workgroup(%sh: memref<256xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c20 = arith.constant 20 : index
      %c50 = arith.constant 50 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %row = arith.muli %ty, %c64 : index
      %t = arith.addi %row, %tx : index
      %t1 = arith.addi %t, %c1 : index
      %next = arith.remui %t1, %c256 : index
      %nexti = arith.index_cast %next : index to i32
      // Barriers: element `next` holds next + k in round k.
      %e1 = scf.for %k = %c0 to %c50 step %c1 iter_args(%e = %zero) -> i32 {
        %ki = arith.index_cast %k : index to i32
        %ti = arith.index_cast %t : index to i32
        %mine = arith.addi %ti, %ki : i32
        memref.store %mine, %sh[%t] : memref<256xi32, #gpu.address_space<workgroup>>
        gpu.barrier
        %got = memref.load %sh[%next] : memref<256xi32, #gpu.address_space<workgroup>>
        %want = arith.addi %nexti, %ki : i32
        %bad = arith.cmpi ne, %got, %want : i32
        %inc = arith.extui %bad : i1 to i32
        %e2 = arith.addi %e, %inc : i32
        gpu.barrier
        scf.yield %e2 : i32
      }
      // Shuffles: lane + k summed over the 32 lanes is 496 + 32k; lane 3
      // holds 3 + k.
      %lane = gpu.lane_id
      %lanei = arith.index_cast %lane : index to i32
      %width = arith.constant 32 : i32
      %three = arith.constant 3 : i32
      %e3 = scf.for %k = %c0 to %c20 step %c1 iter_args(%e = %e1) -> i32 {
        %ki = arith.index_cast %k : index to i32
        %v0 = arith.addi %lanei, %ki : i32
        %o1 = arith.constant 1 : i32
        %o2 = arith.constant 2 : i32
        %o4 = arith.constant 4 : i32
        %o8 = arith.constant 8 : i32
        %o16 = arith.constant 16 : i32
        %s1, %p1 = gpu.shuffle xor %v0, %o1, %width : i32
        %v1 = arith.addi %v0, %s1 : i32
        %s2, %p2 = gpu.shuffle xor %v1, %o2, %width : i32
        %v2 = arith.addi %v1, %s2 : i32
        %s4, %p4 = gpu.shuffle xor %v2, %o4, %width : i32
        %v4 = arith.addi %v2, %s4 : i32
        %s8, %p8 = gpu.shuffle xor %v4, %o8, %width : i32
        %v8 = arith.addi %v4, %s8 : i32
        %s16, %p16 = gpu.shuffle xor %v8, %o16, %width : i32
        %sum = arith.addi %v8, %s16 : i32
        %c496 = arith.constant 496 : i32
        %c32 = arith.constant 32 : i32
        %k32 = arith.muli %ki, %c32 : i32
        %want = arith.addi %c496, %k32 : i32
        %bad = arith.cmpi ne, %sum, %want : i32
        %b3, %p3 = gpu.shuffle idx %v0, %three, %width : i32
        %want3 = arith.addi %three, %ki : i32
        %bad3 = arith.cmpi ne, %b3, %want3 : i32
        %either = arith.ori %bad, %bad3 : i1
        %inc = arith.extui %either : i1 to i32
        %e2 = arith.addi %e, %inc : i32
        scf.yield %e2 : i32
      }
      %b = gpu.block_id x
      %base = arith.muli %b, %c256 : index
      %i = arith.addi %base, %t : index
      memref.store %e3, %errors[%i] : memref<1024xi32>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c1024 = arith.constant 1024 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %errors = gpu.alloc host_shared () : memref<1024xi32>
    %minus = arith.constant -1 : i32
    linalg.fill ins(%minus : i32) outs(%errors : memref<1024xi32>)
    gpu.launch_func @kernels::@rounds blocks in (%c4, %c1, %c1) threads in (%c64, %c4, %c1) args(%errors : memref<1024xi32>)
    // A thread that did not run leaves -1, which counts as wrong too.
    %bad = scf.for %i = %c0 to %c1024 step %c1 iter_args(%n = %zero) -> i32 {
      %e = memref.load %errors[%i] : memref<1024xi32>
      %wrong = arith.cmpi ne, %e, %zero : i32
      %inc = arith.extui %wrong : i1 to i32
      %n1 = arith.addi %n, %inc : i32
      scf.yield %n1 : i32
    }
    %ok = arith.cmpi eq, %bad, %zero : i32
    %result = scf.if %ok -> (i32) {
      vector.print str "block sync loops ok\n"
      scf.yield %zero : i32
    } else {
      vector.print str "block sync loops FAILED, threads with errors: "
      vector.print %bad : i32
      scf.yield %one : i32
    }
    return %result : i32
  }
}
