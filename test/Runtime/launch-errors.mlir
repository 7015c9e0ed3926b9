// The runtime checks launches against the manifest symm-compile writes.
// RUN: symm-compile --target=host %s -o %t.so
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.so.json
// RUN: symm-launch %t.so fill 6 | FileCheck %s --check-prefix=OK
// RUN: not symm-launch %t.so fil 6 | FileCheck %s --check-prefix=NAME
// RUN: not symm-launch %t.so fill 5 | FileCheck %s --check-prefix=COUNT
// RUN: not symm-launch %s fill 6 | FileCheck %s --check-prefix=NOTSO
// RUN: env SYMM_HOST_MAX_THREADS=16 not symm-launch %t.so big 0 64 | FileCheck %s --check-prefix=LIMIT
// symm-launch's own arguments are numbers, checked before anything starts.
// RUN: not symm-launch %t.so fill abc 2>&1 | FileCheck %s --check-prefix=PARAMS
// RUN: not symm-launch %t.so big 0 64x 2>&1 | FileCheck %s --check-prefix=THREADS
// MANIFEST: "name": "fill",
// MANIFEST: "params": 6
// OK: launched fill
// NAME: launch: invalid argument: rank 0: no kernel 'fil' in the module; it has: big, fill
// COUNT: launch: invalid argument: rank 0: kernel 'fill' takes 6 parameters (arguments: memref<?xi32>, i32; a memref of rank r is 3 + 2r parameters), got 5
// NOTSO: load: invalid argument: rank 0: cannot load the module as a host shared object
// PARAMS: symm-launch: NUM_PARAMS 'abc' is not a number from 0 to 4096
// PARAMS-NEXT: usage: symm-launch MODULE KERNEL NUM_PARAMS [THREADS]
// THREADS: symm-launch: THREADS '64x' is not a number from 1 to 2147483647
// LIMIT: launch: invalid argument: rank 0: kernel 'big': blocks of 64 threads exceed the CPU target's limit of 16 threads per block (SYMM_HOST_MAX_THREADS)
gpu.module @kernels {
  gpu.func @fill(%buf: memref<?xi32>, %v: i32) kernel {
    gpu.return
  }
  gpu.func @big() kernel {
    gpu.return
  }
}
