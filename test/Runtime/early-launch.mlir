// SYMM_EARLY_LAUNCH turns programmatic dependent launches off (0) or leaves
// them to each kernel's manifest (1, the default); anything else fails
// symm_init, naming the rank and the value. A kernel marked
// symm.early_launch runs on the CPU target as any other (the target drops
// the attribute, and its manifest says so).
// RUN: symm-compile --target=host %s -o %t.so
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.so.json
// RUN: env SYMM_EARLY_LAUNCH=0 symm-launch %t.so k 0 | FileCheck %s --check-prefix=OK
// RUN: env SYMM_EARLY_LAUNCH=1 symm-launch %t.so k 0 | FileCheck %s --check-prefix=OK
// RUN: env SYMM_EARLY_LAUNCH=yes not symm-launch %t.so k 0 | FileCheck %s --check-prefix=BAD
// RUN: env SYMM_EARLY_LAUNCH=yes not symm-run -n 2 symm-launch %t.so k 0 2>&1 | FileCheck %s --check-prefix=RANKS
// MANIFEST: "early_launch": false,
// OK: launched k
// BAD: init: invalid argument: rank 0: SYMM_EARLY_LAUNCH='yes' must be 0 or 1
// The first rank to fail ends the job (the other may not get to say it).
// RANKS: rank {{[01]}}: SYMM_EARLY_LAUNCH='yes' must be 0 or 1
// RANKS: symm-run: rank {{[01]}} exited with status 1
gpu.module @kernels {
  gpu.func @k() kernel attributes {symm.early_launch} {
    gpu.return
  }
}
