// Each target's whole lowering is one symm-opt pipeline; symm-compile prints
// the pipeline it runs as the pass manager prints it (every option spelled).
// RUN: symm-opt %s --symm-to-rocdl="chip=gfx942 format=isa" | FileCheck %s --check-prefix=ROCDL
// RUN: symm-opt %s --symm-to-nvvm="chip=sm_90 format=isa" | FileCheck %s --check-prefix=NVVM
// RUN: symm-opt %s --symm-to-host="format=isa" | FileCheck %s --check-prefix=HOST
// RUN: symm-compile --target=gfx90a --print-pipeline %s | FileCheck %s --check-prefix=PRINT
// ROCDL: gpu.binary @kernels [#gpu.object<#rocdl.target<chip = "gfx942">, assembly = "{{.*}}global_atomic_add
// ROCDL: gpu.launch_func @kernels::@bump blocks in ({{.*}}) : i64 args(%{{.*}} : !llvm.ptr,
// NVVM: gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}red.release.sys.global.add.u32
// HOST: gpu.binary @kernels [#gpu.object<#symm.host_target, assembly = "{{.*}}_symm_kernel_bump
// HOST: llvm.call @_symm_program_alloc
// PRINT: builtin.module(symm-link-library{builtin=true {{.*}}},gpu.module(symm-inline-device-calls),symm-check-host-access,symm-check-hopper-ops{chip=gfx90a},gpu-kernel-outlining{{.*}},symm-translate-to-heap-base{kernel-context=global},{{.*}},convert-symm-to-amdgpu{{.*}},rocdl-attach-target{O=2 {{.*}}chip=gfx90a {{.*}},gpu.module(convert-gpu-to-rocdl{ chipset=gfx90a {{.*}},gpu-module-to-binary{format=bin {{.*}}toolkit={{.*}}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @bump(%flags: memref<4xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %root = arith.constant 0 : i32
      symm.signal add %one, %flags[%c0] on %root scope(system) : i32 -> memref<4xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %flags = symm.alloc() : memref<4xi32, #symm.heap>
    gpu.launch_func @kernels::@bump blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%flags : memref<4xi32, #symm.heap>)
    symm.barrier
    return
  }
}
