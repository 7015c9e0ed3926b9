// Release/acquire message passing in a loop between rank pairs (0-1, 2-3):
// the producer writes a payload with plain stores and releases a sequence
// number; the consumer acquires it, must see the payload of that round, and
// acknowledges. A stale read is counted as an error.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// CHECK-DAG: [rank 0] message passing ok
// CHECK-DAG: [rank 1] message passing ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @pingpong(%data: memref<4xi32, #symm.heap>, %flags: memref<2xi32, #symm.heap>, %iters: i32, %errors: memref<1xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %one = arith.constant 1 : i32
      %c3_i32 = arith.constant 3 : i32
      %zero = arith.constant 0 : i32
      %me = symm.rank : i32
      %n = symm.world_size : i32
      %partner = arith.xori %me, %one : i32
      %paired = arith.cmpi slt, %partner, %n : i32
      %low = arith.andi %me, %one : i32
      %producer = arith.cmpi eq, %low, %zero : i32
      %count = scf.if %paired -> (i32) {
        %r = scf.for %k = %one to %iters step %one iter_args(%e = %zero) -> (i32) : i32 {
          %e2 = scf.if %producer -> (i32) {
            %v0 = arith.muli %k, %c3_i32 : i32
            symm.store %v0, %data[%c0] to %partner : i32 -> memref<4xi32, #symm.heap>
            %v1 = arith.addi %v0, %one : i32
            symm.store %v1, %data[%c3] to %partner : i32 -> memref<4xi32, #symm.heap>
            symm.signal set %k, %flags[%c0] on %partner scope(system) : i32 -> memref<2xi32, #symm.heap>
            %ack = symm.wait %flags[%c1] ge %k scope(system) : memref<2xi32, #symm.heap> -> i32
            scf.yield %e : i32
          } else {
            %seen = symm.wait %flags[%c0] ge %k scope(system) : memref<2xi32, #symm.heap> -> i32
            %d0 = symm.load %data[%c0] : memref<4xi32, #symm.heap> -> i32
            %d1 = symm.load %data[%c3] : memref<4xi32, #symm.heap> -> i32
            %w0 = arith.muli %k, %c3_i32 : i32
            %w1 = arith.addi %w0, %one : i32
            %b0 = arith.cmpi ne, %d0, %w0 : i32
            %b1 = arith.cmpi ne, %d1, %w1 : i32
            %bad = arith.ori %b0, %b1 : i1
            %inc = arith.extui %bad : i1 to i32
            %e3 = arith.addi %e, %inc : i32
            symm.signal set %k, %flags[%c1] on %partner scope(system) : i32 -> memref<2xi32, #symm.heap>
            scf.yield %e3 : i32
          }
          scf.yield %e2 : i32
        }
        scf.yield %r : i32
      } else {
        scf.yield %zero : i32
      }
      memref.store %count, %errors[%c0] : memref<1xi32>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %data = symm.alloc() : memref<4xi32, #symm.heap>
    %flags = symm.alloc() : memref<2xi32, #symm.heap>
    %zeros = gpu.alloc host_shared () : memref<4xi32>
    %zero = arith.constant 0 : i32
    linalg.fill ins(%zero : i32) outs(%zeros : memref<4xi32>)
    gpu.memcpy %data, %zeros : memref<4xi32, #symm.heap>, memref<4xi32>
    %flagsInit = gpu.alloc host_shared () : memref<2xi32>
    memref.store %zero, %flagsInit[%c0] : memref<2xi32>
    memref.store %zero, %flagsInit[%c1] : memref<2xi32>
    gpu.memcpy %flags, %flagsInit : memref<2xi32, #symm.heap>, memref<2xi32>
    symm.barrier
    %errors = gpu.alloc host_shared () : memref<1xi32>
    %iters = arith.constant 1000 : i32
    gpu.launch_func @kernels::@pingpong blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%data : memref<4xi32, #symm.heap>, %flags : memref<2xi32, #symm.heap>, %iters : i32, %errors : memref<1xi32>)
    symm.barrier
    %e = memref.load %errors[%c0] : memref<1xi32>
    %ok = arith.cmpi eq, %e, %zero : i32
    scf.if %ok {
      vector.print str "message passing ok\n"
    } else {
      vector.print str "message passing FAILED, stale rounds: "
      vector.print %e : i32
    }
    symm.barrier
    return %e : i32
  }
}
