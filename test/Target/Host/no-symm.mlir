// Input without a symm op or attribute has not loaded the symm dialect, whose
// #symm.host_target the CPU target attaches: an empty module and a plain GPU
// kernel (this crashed before symm-host-attach-target loaded the dialect).
// RUN: symm-opt %s -split-input-file --symm-host-attach-target | FileCheck %s --check-prefix=ATTACH
// RUN: symm-opt %s -split-input-file --symm-to-host="format=isa" | FileCheck %s --check-prefix=HOST
// ATTACH: module {
// ATTACH-NEXT: }
// ATTACH: gpu.module @kernels [#symm.host_target]
// HOST: module {
// HOST-NEXT: }
// HOST: gpu.binary @kernels [#gpu.object<#symm.host_target, assembly = "{{.*}}_symm_kernel_add_one
module {
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add_one(%buf: memref<4xf32>) kernel {
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<4xf32>
      %one = arith.constant 1.0 : f32
      %w = arith.addf %v, %one : f32
      memref.store %w, %buf[%i] : memref<4xf32>
      gpu.return
    }
  }
}
