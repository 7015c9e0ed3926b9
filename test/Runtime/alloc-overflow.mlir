// A symm.alloc whose size in bytes does not fit in 64 bits (here 2^32 x 2^32
// floats, from dynamic sizes) ends the program naming the cause: the
// product is checked, where a wrapped one would allocate a small block that
// aliases live memory.
// RUN: symm-compile --target=host %s -o %t.exe
// RUN: not symm-run -n 2 %t.exe 2>&1 | FileCheck %s
// CHECK: [rank {{[01]}}] symm: symm.alloc failed: rank {{[01]}}: the memref's size in bytes does not fit in 63 bits, or one of its dynamic sizes is negative; the symmetric heap holds 1073741824 bytes
// CHECK-NOT: allocated
module attributes {gpu.container_module} {
  func.func @main() {
    %me = symm.rank : i32
    %c32 = arith.constant 32 : i64
    %one = arith.constant 1 : i64
    %r = arith.extsi %me : i32 to i64
    %base = arith.addi %r, %one : i64
    %big = arith.shli %base, %c32 : i64
    %n = arith.index_cast %big : i64 to index
    %buf = symm.alloc(%n, %n) : memref<?x?xf32, #symm.heap>
    vector.print str "allocated\n"
    symm.dealloc %buf : memref<?x?xf32, #symm.heap>
    return
  }
}
