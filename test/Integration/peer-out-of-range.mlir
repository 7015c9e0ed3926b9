// A peer outside [0, world size) ends the rank with a message naming the
// rank, the operation, the peer and the valid range, on the CPU target.
// REQUIRES: backend-host
// RUN: sed -e 's/SCALE/1/' -e 's/OFFSET/3/' %s > %t.n3.mlir
// RUN: not %symm_run -n 2 %t.n3.mlir 2>&1 | FileCheck %s -DPEER=5
// RUN: sed -e 's/SCALE/0/' -e 's/OFFSET/-1/' %s > %t.m1.mlir
// RUN: not %symm_run -n 2 %t.m1.mlir 2>&1 | FileCheck %s -DPEER=-1
// RUN: sed -e 's/SCALE/0/' -e 's/OFFSET/64/' %s > %t.64.mlir
// RUN: not %symm_run -n 2 %t.64.mlir 2>&1 | FileCheck %s -DPEER=64
// RUN: sed -e 's/SCALE/0/' -e 's/OFFSET/1000000/' %s > %t.big.mlir
// RUN: not %symm_run -n 2 %t.big.mlir 2>&1 | FileCheck %s -DPEER=1000000
// The last rank is in range.
// RUN: sed -e 's/SCALE/1/' -e 's/OFFSET/-1/' %s > %t.ok.mlir
// RUN: %symm_run -n 2 %t.ok.mlir 2>&1 | FileCheck %s --check-prefix=OK
// CHECK: [rank {{[01]}}] symm: rank {{[01]}}: symm.store at {{.*}}.mlir:[[@LINE+16]]:7: peer [[PEER]] is out of range; valid peers are 0 to 1 (world size 2)
// CHECK: symm-run: rank {{[01]}} exited with status 1
// OK-DAG: [rank 0] stored
// OK-DAG: [rank 1] stored
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @poke(%buf: memref<4xi32, #symm.heap>) kernel {
      %n = symm.world_size : i32
      %scale = arith.constant SCALE : i32
      %scaled = arith.muli %n, %scale : i32
      %offset = arith.constant OFFSET : i32
      %peer = arith.addi %scaled, %offset : i32
      %one = arith.constant 1 : i32
      // Each rank its own element, so the ranks in range do not race.
      %me = symm.rank : i32
      %i = arith.index_cast %me : i32 to index
      symm.store %one, %buf[%i] to %peer : i32 -> memref<4xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %buf = symm.alloc() : memref<4xi32, #symm.heap>
    gpu.launch_func @kernels::@poke blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<4xi32, #symm.heap>)
    symm.barrier
    vector.print str "stored\n"
    symm.dealloc %buf : memref<4xi32, #symm.heap>
    return
  }
}
