// A user's own device library (docs/Library.md): --library names a file or a
// folder of .mlir files, searched after the one installed with Symm; the
// kernel's declaration is resolved from it and inlined (3 x 2.5 folds to
// 7.5). Without it a name outside symm_ stays an external symbol; a library
// path that does not exist is an error naming it.
// RUN: symm-compile --target=host --emit=llvm --library=%S/Inputs/user-library/scale.mlir %s -o - | FileCheck %s
// RUN: symm-compile --target=host --emit=llvm --library=%S/Inputs/user-library %s -o - | FileCheck %s
// RUN: symm-compile --target=host --emit=llvm %s -o - | FileCheck %s --check-prefix=NONE
// RUN: not symm-compile --target=host --library=%S/Inputs/nowhere %s -o %t.so 2>&1 | FileCheck %s --check-prefix=MISSING
// The kernel is internal, inlined into its entry.
// CHECK-LABEL: define void @_symm_kernel_k(
// CHECK: store float 7.500000e+00
// CHECK-NOT: @user_scale
// NONE: call {{.*}}@user_scale(
// MISSING: error: device library '{{.*}}nowhere' does not exist
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @user_scale(f32) -> f32
    gpu.func @k(%out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = arith.constant 3.0 : f32
      %y = func.call @user_scale(%x) : (f32) -> f32
      memref.store %y, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
}
