// RUN: symm-opt %s -allow-unregistered-dialect -symm-kernel-context-argument -split-input-file -verify-diagnostics | FileCheck %s

// Kernels that read the context (here through the rank) take it as a trailing
// argument; the others keep their signature.
// CHECK-LABEL: gpu.func @needs_context
// CHECK-SAME: (%{{.*}}: memref<4xf32>, %{{.*}}: !llvm.ptr<1>) kernel attributes {symm.context_argument}
// CHECK-LABEL: gpu.func @no_context
// CHECK-SAME: (%{{.*}}: memref<4xf32>) kernel {
gpu.module @m {
  gpu.func @needs_context(%buf: memref<4xf32>) kernel {
    %me = symm.rank : i32
    "test.use"(%me) : (i32) -> ()
    gpu.return
  }
  gpu.func @no_context(%buf: memref<4xf32>) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @helper() {
    // expected-error @+1 {{'symm.world_size' op needs the kernel context in device function 'helper', which kernel-context=argument cannot reach; inline it into its kernel or use kernel-context=global}}
    %n = symm.world_size : i32
    "test.use"(%n) : (i32) -> ()
    gpu.return
  }
}
