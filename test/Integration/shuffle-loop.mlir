// 200,000 gpu.shuffle in an scf.for: each iteration a lane takes its xor-1
// partner's value plus one, so after an even count N every lane holds
// lane + N. The loop must run in constant stack space on the CPU target (two
// lanes keep the test fast; the stack is what it checks).
// RUN: %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] shuffle loop ok
// CHECK-DAG: [rank 1] shuffle loop ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @spin(%out: memref<2xi32>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %width = arith.constant 32 : i32
      %t = gpu.thread_id x
      %lane = arith.index_cast %t : index to i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %lane) -> (i32) {
        %s, %valid = gpu.shuffle xor %acc, %one, %width : i32
        %next = arith.addi %s, %one : i32
        scf.yield %next : i32
      }
      memref.store %r, %out[%t] : memref<2xi32>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n = arith.constant 200000 : index
    %out = gpu.alloc host_shared () : memref<2xi32>
    gpu.launch_func @kernels::@spin blocks in (%c1, %c1, %c1) threads in (%c2, %c1, %c1) args(%out : memref<2xi32>, %n : index)
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %count = arith.constant 200000 : i32
    %e = scf.for %i = %c0 to %c2 step %c1 iter_args(%e0 = %zero) -> (i32) {
      %lane = arith.index_cast %i : index to i32
      %want = arith.addi %lane, %count : i32
      %got = memref.load %out[%i] : memref<2xi32>
      %bad = arith.cmpi ne, %got, %want : i32
      %inc = arith.select %bad, %one, %zero : i32
      %e1 = arith.addi %e0, %inc : i32
      scf.yield %e1 : i32
    }
    %ok = arith.cmpi eq, %e, %zero : i32
    scf.if %ok {
      vector.print str "shuffle loop ok\n"
    } else {
      vector.print str "shuffle loop FAILED, wrong lanes: "
      vector.print %e : i32
    }
    gpu.dealloc %out : memref<2xi32>
    return %e : i32
  }
}
