// "-" is the standard input and the standard output, and nothing else appears
// in the working folder: no "-", "-.json", "-.ptx" or "-.ptx.json".
// RUN: rm -rf %t && mkdir %t && cd %t
// RUN: symm-compile --target=host %s -o - | llvm-readelf --dyn-syms - | FileCheck %s --check-prefix=SO
// RUN: symm-compile --target=sm_90 --emit=ptx - < %s | FileCheck %s --check-prefix=PTX
// RUN: symm-compile --target=sm_90 --emit=ptx - -o - < %s | FileCheck %s --check-prefix=PTX
// RUN: ls -A %t | count 0
// A manifest only where --manifest puts it, then: a file, or the standard
// output when the object goes to a file.
// RUN: symm-compile --target=host %s -o - --manifest=%t.manifest > /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.manifest
// RUN: symm-compile --target=host %s -o %t.so --manifest=- | FileCheck %s --check-prefix=MANIFEST
// RUN: not symm-compile --target=host %s -o - --manifest=- 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not symm-compile --target=host %s --emit=mlir -o - --manifest=%t.m 2>&1 | FileCheck %s --check-prefix=MLIR
// RUN: ls -A %t | count 0
// SO: _symm_kernel_bump
// PTX: .entry bump
// MANIFEST: "name": "bump",
// BOTH: symm-compile: error: the output and --manifest cannot both be the standard output; give one of them a file
// MLIR: symm-compile: error: --manifest applies to device objects, not --emit=mlir
gpu.module @kernels {
  gpu.func @bump(%flags: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %root = arith.constant 0 : i32
    symm.signal add %one, %flags[%c0] on %root scope(system) : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
}
