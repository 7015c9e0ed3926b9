// The pipelines check their options before running anything, with one line
// naming the option, and no IR.
// RUN: not symm-opt %s --symm-to-rocdl=chip=gfx942 2>&1 | FileCheck %s --check-prefix=LLD --implicit-check-not=gpu.module
// RUN: not symm-opt %s --symm-to-rocdl="chip=gfx942 toolkit=%t.none" 2>&1 | FileCheck %s --check-prefix=TOOLKIT --implicit-check-not=gpu.module
// RUN: not symm-opt %s --symm-to-nvvm=chip=sm_1234 2>&1 | FileCheck %s --check-prefix=CHIP --implicit-check-not=gpu.module
// RUN: not symm-opt %s --symm-to-rocdl=chip=sm_90 2>&1 | FileCheck %s --check-prefix=WRONG --implicit-check-not=gpu.module
// RUN: not symm-opt %s --symm-to-host=O=9 2>&1 | FileCheck %s --check-prefix=OPT --implicit-check-not=gpu.module
// RUN: not symm-opt %s --symm-to-nvvm=format=cubin 2>&1 | FileCheck %s --check-prefix=FORMAT --implicit-check-not=gpu.module
// RUN: not symm-opt %s --symm-to-host=kernel-context=shared 2>&1 | FileCheck %s --check-prefix=CONTEXT --implicit-check-not=gpu.module
// RUN: not symm-opt %s --symm-host-attach-target=O=7 2>&1 | FileCheck %s --check-prefix=ATTACH-OPT --implicit-check-not=gpu.module
// RUN: not symm-compile -O99 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPILE-OPT
// RUN: not symm-compile --target=sm_1234 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPILE-CHIP
// RUN: not symm-compile --kernel-context=shared %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPILE-CONTEXT
// LLD: error: symm-to-rocdl: format=bin for AMD GPUs links with <toolkit>/llvm/bin/ld.lld: pass toolkit=<folder> (a ROCm install, or a folder whose llvm/bin/ld.lld is the system's ld.lld), or use format=isa
// TOOLKIT: error: symm-to-rocdl: toolkit={{.*}}.none has no {{.*}}.none/llvm/bin/ld.lld; point toolkit= at a folder with llvm/bin/ld.lld
// CHIP: error: symm-to-nvvm: unknown chip 'sm_1234' for nvptx64-nvidia-cuda
// WRONG: error: symm-to-rocdl: unknown chip 'sm_90' for amdgcn-amd-amdhsa
// OPT: error: symm-to-host: optimisation level 9 is out of range; use 0, 1, 2 or 3
// FORMAT: error: symm-to-nvvm: unknown format 'cubin'; use llvm, isa, bin or fatbin
// CONTEXT: error: symm-to-host: kernel-context must be 'global' or 'argument', got 'shared'
// ATTACH-OPT: error: #symm.host_target: optimisation level O = 7 is out of range; use 0, 1, 2 or 3
// COMPILE-OPT: symm-compile: error: optimisation level 99 is out of range; use 0, 1, 2 or 3
// COMPILE-CHIP: symm-compile: error: unknown chip 'sm_1234' for nvptx64-nvidia-cuda
// COMPILE-CONTEXT: symm-compile: error: kernel-context must be 'global' or 'argument', got 'shared'
gpu.module @kernels {
  gpu.func @k(%m: memref<4xi32, #symm.heap>) kernel {
    gpu.return
  }
}
