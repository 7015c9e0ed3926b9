// Ranks that make different collective calls fail on every rank with a
// non-zero status, and symm-run ends the job: here rank 0 makes one more
// symm.barrier than rank 1, whose finalize meets it.
// RUN: symm-compile --target=host %s -o %t.exe
// RUN: timeout 120 symm-run -n 2 %t.exe > %t.out 2>&1; echo "status $?" >> %t.out
// RUN: FileCheck %s < %t.out
// CHECK: mismatched collective calls: rank 0 called symm_barrier (collective call #1), rank 1 called symm_finalize (collective call #1)
// CHECK: symm-run: rank {{[01]}} exited with status 1
// CHECK: status 1
// Without symm-run ending the job first, each rank reports it and fails
// (each started by a `timeout` of its own, so they share a SYMM_JOB_ID).
// RUN: rm -f %t.rank.*
// RUN: (env -u SYMM_RANK -u SYMM_WORLD_SIZE -u SYMM_RENDEZVOUS RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 SYMM_JOB_ID=mismatch-%{port} timeout 120 %t.exe > %t.rank.1 2>&1; echo "status $?" >> %t.rank.1) & \
// RUN:   env -u SYMM_RANK -u SYMM_WORLD_SIZE -u SYMM_RENDEZVOUS RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 SYMM_JOB_ID=mismatch-%{port} timeout 120 %t.exe > %t.rank.0 2>&1; echo "status $?" >> %t.rank.0; wait
// RUN: FileCheck %s --check-prefix=RANK0 < %t.rank.0
// RUN: FileCheck %s --check-prefix=RANK1 < %t.rank.1
// RANK0: symm: symm.barrier failed: rank 0: mismatched collective calls: rank 0 called symm_barrier (collective call #1), rank 1 called symm_finalize (collective call #1); every rank must make the same collective calls in the same order
// RANK0: status 1
// RANK1: symm: finalize failed: rank 1: mismatched collective calls: rank 0 called symm_barrier (collective call #1), rank 1 called symm_finalize (collective call #1)
// RANK1: status 1
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
