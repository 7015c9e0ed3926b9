// Compiled programs that misuse the runtime end with a message naming the
// rank and the cause, and symm-run ends the job.
// RUN: symm-compile --target=host %s -o %t.exe
// RUN: not symm-run -n 2 %t.exe 2>&1 | FileCheck %s
// RUN: not symm-run -n 1 --heap-size 64K %t.exe 2>&1 | FileCheck %s --check-prefix=FULL
// CHECK: [rank {{[01]}}] symm: symm.alloc failed: rank {{[01]}}: asymmetric symm_malloc size (collective call #0): rank 0 passed 262144, rank 1 passed 786432
// CHECK: symm-run: rank {{[01]}} exited with status 1
// FULL: [rank 0] symm: symm.alloc failed: rank 0: symm_malloc of 262144 bytes does not fit in the symmetric heap: 65536 of 65536 bytes are free
module attributes {gpu.container_module} {
  func.func @main() {
    %me = symm.rank : i32
    %me1 = arith.addi %me, %me : i32
    %one = arith.constant 1 : i32
    %k = arith.addi %me1, %one : i32
    %ki = arith.index_cast %k : i32 to index
    %c64k = arith.constant 65536 : index
    %n = arith.muli %ki, %c64k : index
    %buf = symm.alloc(%n) : memref<?xi32, #symm.heap>
    symm.dealloc %buf : memref<?xi32, #symm.heap>
    return
  }
}
