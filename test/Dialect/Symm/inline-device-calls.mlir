// RUN: symm-opt %s --pass-pipeline='builtin.module(gpu.module(symm-inline-device-calls))' | FileCheck %s

// Calls into a kernel and between functions are inlined, values of types
// that only lower inside one function (warpgroup accumulators) included;
// private functions left without calls are erased, public ones stay; a
// recursive call stays a call.
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x128xf32>>
// CHECK-LABEL: gpu.module @kernels
// CHECK-NOT: func.func private @zero
// CHECK-NOT: func.func private @twice
// CHECK: func.func @kept(
// CHECK: gpu.func @k(
// CHECK-NOT: call
// CHECK: nvgpu.warpgroup.mma.init.accumulator
// CHECK: symm.rank
// CHECK: arith.addf
// CHECK: arith.addf
// CHECK: gpu.return
// CHECK: func.func private @forever(
// CHECK: call @forever
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @zero() -> !acc {
      %a = nvgpu.warpgroup.mma.init.accumulator -> !acc
      return %a : !acc
    }
    func.func private @twice(%x: f32) -> f32 {
      %y = arith.addf %x, %x : f32
      return %y : f32
    }
    func.func @kept(%x: f32) -> f32 {
      %y = func.call @twice(%x) : (f32) -> f32
      return %y : f32
    }
    gpu.func @k(%out: memref<2xf32>) kernel {
      %c0 = arith.constant 0 : index
      %a = func.call @zero() : () -> !acc
      %r = symm.rank : i32
      %f = arith.sitofp %r : i32 to f32
      %y = func.call @kept(%f) : (f32) -> f32
      %z = func.call @twice(%y) : (f32) -> f32
      memref.store %z, %out[%c0] : memref<2xf32>
      gpu.return
    }
    func.func private @forever(%x: f32) -> f32 {
      %y = func.call @forever(%x) : (f32) -> f32
      return %y : f32
    }
    gpu.func @loops(%x: f32) kernel {
      %y = func.call @forever(%x) : (f32) -> f32
      gpu.return
    }
  }
}
