// A whole program compiled from the standard input to the standard output is
// an executable like any other (the linker writes a temporary file).
// RUN: rm -rf %t && mkdir %t && cd %t
// RUN: symm-compile --target=host - < %s > %t.exe
// RUN: symm-compile --target=host %s -o - > %t.2.exe
// RUN: ls -A %t | count 0
// RUN: chmod +x %t.exe %t.2.exe
// RUN: not symm-run -n 2 %t.exe 2>&1 | FileCheck %s
// RUN: not symm-run -n 2 %t.2.exe 2>&1 | FileCheck %s
// CHECK: rank {{[01]}} exited with status 4{{[01]}}
module attributes {gpu.container_module} {
  func.func @main() -> i32 {
    %me = symm.rank : i32
    %c40 = arith.constant 40 : i32
    %r = arith.addi %me, %c40 : i32
    return %r : i32
  }
}
