// RUN: symm-opt %s -symm-translate-to-heap-base="kernel-context=argument" -verify-diagnostics -split-input-file
// RUN: not symm-opt %s -symm-translate-to-heap-base="kernel-context=shared" 2>&1 | FileCheck %s --check-prefix=OPT

// OPT: kernel-context must be 'global' or 'argument', got 'shared'

gpu.module @m {
  gpu.func @helper(%buf: memref<4xf32, #symm.heap>, %p: i32, %f: f32) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'symm.translate' op needs the kernel context in device function 'helper', which kernel-context=argument cannot reach; inline it into its kernel or use kernel-context=global}}
    symm.store %f, %buf[%c0] to %p : f32 -> memref<4xf32, #symm.heap>
    gpu.return
  }
}
