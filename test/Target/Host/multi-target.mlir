// #symm.host_target is an ordinary GPU target attribute: next to NVVM and ROCDL
// targets on one gpu.module, gpu-module-to-binary makes one object per target.
// RUN: symm-opt %s --gpu-module-to-binary="format=isa" | FileCheck %s
// RUN: sed -e 's/#nvvm.target<chip = "sm_90", features = "+ptx80">, #rocdl.target<chip = "gfx942">, //' %s | symm-opt --gpu-module-to-binary="format=bin" | FileCheck %s --check-prefix=BIN
// RUN: symm-opt %s --symm-host-attach-target="O=3" | FileCheck %s --check-prefix=ATTACH

// CHECK: gpu.binary @kernels [
// CHECK-SAME: #gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_90
// CHECK-SAME: #gpu.object<#rocdl.target<chip = "gfx942">, assembly = "{{.*}}amdgcn-amd-amdhsa--gfx942
// CHECK-SAME: #gpu.object<#symm.host_target, assembly = "{{.*}}add_one
// A host object is a shared object.
// BIN: #gpu.object<#symm.host_target, bin = "\7FELF
// ATTACH: gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">, #rocdl.target<chip = "gfx942">, #symm.host_target<O = 3>]
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">, #rocdl.target<chip = "gfx942">, #symm.host_target] {
    llvm.func @add_one(%p: !llvm.ptr) {
      %v = llvm.load %p : !llvm.ptr -> i32
      %one = llvm.mlir.constant(1 : i32) : i32
      %w = llvm.add %v, %one : i32
      llvm.store %w, %p : i32, !llvm.ptr
      llvm.return
    }
  }
}
