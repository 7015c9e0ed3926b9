// A program's main is the executable's C main: no arguments, and an i32
// result that is the rank's exit status, or none (status 0). Any other type
// was compiled and left the register's contents as the status (48 for f32).
// RUN: sed -e 's/ARGS//' -e 's/RESULT/f32/' -e 's/VALUE/1.5/' %s > %t.f32.mlir
// RUN: not symm-compile %t.f32.mlir -o %t.exe 2>&1 | FileCheck %s -DTYPE="() -> f32"
// RUN: sed -e 's/ARGS//' -e 's/RESULT/i64/' -e 's/VALUE/3/' %s > %t.i64.mlir
// RUN: not symm-compile %t.i64.mlir -o %t.exe 2>&1 | FileCheck %s -DTYPE="() -> i64"
// RUN: sed -e 's/ARGS/%%a: i32/' -e 's/RESULT/i32/' -e 's/VALUE/3/' %s > %t.args.mlir
// RUN: not symm-compile --target=sm_90 --emit=mlir %t.args.mlir -o %t.exe 2>&1 | FileCheck %s -DTYPE="(i32) -> i32"
// RUN: printf 'func.func private @main() -> i32\n' > %t.decl.mlir
// RUN: not symm-compile %t.decl.mlir -o %t.exe 2>&1 | FileCheck %s --check-prefix=DECL
// RUN: sed -e 's/ARGS//' -e 's/RESULT/i32/' -e 's/VALUE/3/' %s > %t.i32.mlir
// RUN: symm-compile %t.i32.mlir -o %t.exe
// RUN: not symm-run %t.exe 2>&1 | FileCheck %s --check-prefix=STATUS
// CHECK: .mlir:[[@LINE+5]]:3: error: func.func @main has type '[[TYPE]]'; a program's main takes no arguments and returns i32 (the rank's exit status) or nothing
// CHECK-NOT: error
// DECL: decl.mlir:1:1: error: func.func @main is only declared; a program needs its body
// STATUS: symm-run: rank 0 exited with status 3
module {
  func.func @main(ARGS) -> RESULT {
    %r = arith.constant VALUE : RESULT
    return %r : RESULT
  }
}
