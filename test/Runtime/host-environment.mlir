// The CPU target's settings are checked when the runtime starts: a value that
// is not a number in range is an error naming the variable and the value.
// RUN: symm-compile --target=host %s -o %t.so
// RUN: env SYMM_HOST_RESIDENT_BLOCKS=4 SYMM_HOST_MAX_THREADS=64 SYMM_HOST_WORKERS=3 SYMM_HOST_DEADLOCK_SECONDS=2.5 symm-launch %t.so k 0 64 | FileCheck %s --check-prefix=OK
// RUN: env SYMM_HOST_RESIDENT_BLOCKS=abc not symm-launch %t.so k 0 | FileCheck %s --check-prefix=RESIDENT
// RUN: env SYMM_HOST_RESIDENT_BLOCKS=0 not symm-launch %t.so k 0 | FileCheck %s --check-prefix=ZERO
// RUN: env SYMM_HOST_RESIDENT_BLOCKS=12x not symm-launch %t.so k 0 | FileCheck %s --check-prefix=SUFFIX
// RUN: env SYMM_HOST_MAX_THREADS=abc not symm-launch %t.so k 0 | FileCheck %s --check-prefix=THREADS
// RUN: env SYMM_HOST_MAX_THREADS=99999999999 not symm-launch %t.so k 0 | FileCheck %s --check-prefix=HUGE
// RUN: env SYMM_HOST_WORKERS=-2 not symm-launch %t.so k 0 | FileCheck %s --check-prefix=WORKERS
// RUN: env SYMM_HOST_DEADLOCK_SECONDS=soon not symm-launch %t.so k 0 | FileCheck %s --check-prefix=SECONDS
// RUN: env SYMM_HOST_DEADLOCK_SECONDS=0 not symm-launch %t.so k 0 | FileCheck %s --check-prefix=SECONDS0
// OK: launched k
// RESIDENT: init: invalid argument: rank 0: SYMM_HOST_RESIDENT_BLOCKS='abc' is not a whole number from 1 to 1048576
// ZERO: init: invalid argument: rank 0: SYMM_HOST_RESIDENT_BLOCKS='0' is not a whole number from 1 to 1048576
// SUFFIX: init: invalid argument: rank 0: SYMM_HOST_RESIDENT_BLOCKS='12x' is not a whole number from 1 to 1048576
// THREADS: init: invalid argument: rank 0: SYMM_HOST_MAX_THREADS='abc' is not a whole number from 1 to 65536
// HUGE: init: invalid argument: rank 0: SYMM_HOST_MAX_THREADS='99999999999' is not a whole number from 1 to 65536
// WORKERS: init: invalid argument: rank 0: SYMM_HOST_WORKERS='-2' is not a whole number from 1 to 1024
// SECONDS: init: invalid argument: rank 0: SYMM_HOST_DEADLOCK_SECONDS='soon' is not a number of seconds from 0.1 to 86400
// SECONDS0: init: invalid argument: rank 0: SYMM_HOST_DEADLOCK_SECONDS='0' is not a number of seconds from 0.1 to 86400
gpu.module @kernels {
  gpu.func @k() kernel {
    gpu.return
  }
}
