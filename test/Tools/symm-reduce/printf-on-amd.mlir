// The symm-reduce example of docs/Tools.md: the input shrinks while the
// guide's script finds it interesting (symm-compile still rejects gpu.printf
// for AMD GPUs). Of three kernels, only the one that prints is left.
// RUN: rm -rf %t && mkdir %t
// RUN: %python %symm_src_root/test/doc-files.py %symm_src_root/docs/Tools.md %t
// RUN: symm-reduce %s --reduction-tree='traversal-mode=0 test=%t/still-fails.sh' -o %t/reduced.mlir 2>/dev/null
// RUN: FileCheck %s < %t/reduced.mlir

// CHECK-NOT:   gpu.func @fill
// CHECK:       gpu.func @push
// CHECK:         gpu.printf
// CHECK-NOT:   gpu.func @flag

gpu.module @kernels {
  gpu.func @fill(%buf: memref<8xi32, #symm.heap>) kernel {
    %tid = gpu.thread_id x
    %me = symm.rank : i32
    symm.store %me, %buf[%tid] : i32 -> memref<8xi32, #symm.heap>
    gpu.return
  }
  gpu.func @push(%buf: memref<8xi32, #symm.heap>) kernel {
    %tid = gpu.thread_id x
    %one = arith.constant 1 : i32
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %up = arith.addi %me, %one : i32
    %next = arith.remsi %up, %n : i32
    %i = arith.index_cast %tid : index to i32
    symm.store %i, %buf[%tid] to %next : i32 -> memref<8xi32, #symm.heap>
    gpu.printf "rank %d stored %d\n", %me, %i : i32, i32
    gpu.return
  }
  gpu.func @flag(%flags: memref<1xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %me = symm.rank : i32
    symm.signal add %one, %flags[%c0] on %me scope(system) : i32 -> memref<1xi32, #symm.heap>
    %seen = symm.wait %flags[%c0] ge %one scope(system) : memref<1xi32, #symm.heap> -> i32
    gpu.return
  }
}
