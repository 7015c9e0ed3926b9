// An operation no target lowers is reported by name and location, for every
// target, before any device code is serialised.
// RUN: not symm-compile --target=gfx942 %s -o %t 2>&1 | FileCheck %s -DT=gfx942
// RUN: not symm-compile --target=sm_90 --emit=ptx %s -o %t 2>&1 | FileCheck %s -DT=sm_90
// RUN: not symm-compile --target=host %s -o %t 2>&1 | FileCheck %s -DT=host
// CHECK: unlowered.mlir:[[@LINE+3]]:10: error: 'tensor.empty' has no lowering for --target=[[T]]; lower it to arith/memref/vector/scf before symm-compile
gpu.module @k {
  gpu.func @bad(%m: memref<4xf32>) kernel {
    %t = tensor.empty() : tensor<4xf32>
    %c0 = arith.constant 0 : index
    %v = tensor.extract %t[%c0] : tensor<4xf32>
    memref.store %v, %m[%c0] : memref<4xf32>
    gpu.return
  }
}
