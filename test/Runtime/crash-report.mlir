// A rank that crashes is the one symm-run reports, with status 128 + signal,
// although its peer, failing in the barrier the crashed rank never reaches,
// may end first. Six runs: the race went the wrong way in about half.
// RUN: symm-compile --target=host %s -o %t.exe
// RUN: rm -f %t.out; for i in 1 2 3 4 5 6; do symm-run -n 2 %t.exe >> %t.out 2>&1; echo "status $?" >> %t.out; done
// RUN: FileCheck %s --implicit-check-not="symm-run: rank 0" < %t.out
// RUN: grep -c "^symm-run: rank 1 was killed by signal 11 (Segmentation fault)" %t.out | FileCheck %s --check-prefix=SIX
// CHECK-COUNT-6: status 139
// SIX: {{^6$}}
module attributes {gpu.container_module} {
  func.func private @raise(i32) -> i32
  func.func @main() {
    %me = symm.rank : i32
    %one = arith.constant 1 : i32
    %second = arith.cmpi eq, %me, %one : i32
    symm.barrier
    scf.if %second {
      %sigsegv = arith.constant 11 : i32
      %r = func.call @raise(%sigsegv) : (i32) -> i32
    }
    symm.barrier
    return
  }
}
