// Ranks that make different collective calls fail on every rank with a
// non-zero status, and symm-run ends the job: here rank 0 makes one more
// symm.barrier than rank 1, whose finalize meets it.
// RUN: symm-compile --target=host %s -o %t.exe

// Each rank on its own (symm-run would end the second to fail before it
// speaks): both report the mismatch and exit with status 1.
// RUN: rm -rf %t.dir && mkdir -m 0700 %t.dir
// RUN: (env SYMM_RANK=1 SYMM_WORLD_SIZE=2 SYMM_RENDEZVOUS=%t.dir SYMM_TIMEOUT=60 %t.exe > %t.1 2>&1; echo "status $?" >> %t.1) & \
// RUN:   (env SYMM_RANK=0 SYMM_WORLD_SIZE=2 SYMM_RENDEZVOUS=%t.dir SYMM_TIMEOUT=60 %t.exe > %t.0 2>&1; echo "status $?" >> %t.0); wait
// RUN: rmdir %t.dir
// RUN: FileCheck %s --check-prefix=RANK0 < %t.0
// RUN: FileCheck %s --check-prefix=RANK1 < %t.1
// RANK0: symm: symm.barrier failed: rank 0: mismatched collective calls: rank 0 called symm_barrier (collective call #1), rank 1 called symm_finalize (collective call #1); every rank must make the same collective calls in the same order
// RANK0-NEXT: status 1
// RANK1: symm: finalize failed: rank 1: mismatched collective calls: rank 0 called symm_barrier (collective call #1), rank 1 called symm_finalize (collective call #1)
// RANK1-NEXT: status 1

// Under symm-run, the job fails.
// RUN: timeout 120 symm-run -n 2 %t.exe > %t.out 2>&1; echo "status $?" >> %t.out
// RUN: FileCheck %s < %t.out
// CHECK: [rank {{[01]}}] symm: {{.*}} failed: rank {{[01]}}: mismatched collective calls
// CHECK: symm-run: rank {{[01]}} exited with status 1
// CHECK: status 1
module attributes {gpu.container_module} {
  func.func @main() {
    %me = symm.rank : i32
    %zero = arith.constant 0 : i32
    %first = arith.cmpi eq, %me, %zero : i32
    symm.barrier
    scf.if %first {
      symm.barrier
    }
    return
  }
}
