// The runtime reads the manifest's schema version and refuses another one,
// or a manifest without one, naming the file and what to do.
// RUN: symm-compile --target=host %s -o %t.so
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.so.json
// RUN: symm-launch %t.so k 5 | FileCheck %s --check-prefix=OK
// RUN: sed -e 's/"schema": 1/"schema": 2/' %t.so.json > %t.json2 && mv %t.json2 %t.so.json
// RUN: not symm-launch %t.so k 5 | FileCheck %s --check-prefix=NEWER
// RUN: sed -e 's/"schema": 2,//' %t.so.json > %t.json2 && mv %t.json2 %t.so.json
// RUN: not symm-launch %t.so k 5 | FileCheck %s --check-prefix=OLDER
// MANIFEST: "schema": 1,
// OK: launched k
// NEWER: load: invalid argument: rank 0: manifest {{.*}}.so.json has schema version 2, this runtime reads version 1: compile the module with the symm-compile of this runtime
// OLDER: load: invalid argument: rank 0: manifest {{.*}}.so.json has no schema version; it was written by an older symm-compile: compile the module again
gpu.module @kernels {
  gpu.func @k(%buf: memref<?xi32>) kernel {
    gpu.return
  }
}
