// RUN: not symm-compile --target=sm_90 --emit=ptx %s -o /nonexistent/dir/out.ptx 2>&1 | FileCheck %s
// RUN: not symm-compile --target=sm_42x %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not symm-compile --target=sm_60 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not symm-compile --target=gfx9999 %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=GFX
// RUN: not symm-compile --target=vax %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not symm-compile --target=sm_90 --emit=hsaco %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=EMIT

// CHECK: symm-compile: error: {{.*}}/nonexistent/dir/out.ptx
// CHIP: symm-compile: error: unknown chip 'sm_42x' for nvptx64-nvidia-cuda
// OLD: symm-compile: error: 'sm_60' has no scoped atomics (.acquire/.release/.sys); Symm needs sm_70 or newer
// GFX: symm-compile: error: unknown chip 'gfx9999' for amdgcn-amd-amdhsa
// TARGET: symm-compile: error: unknown target 'vax'; expected host, sm_<N> (NVIDIA) or gfx<N> (AMD)
// EMIT: symm-compile: error: --emit=hsaco does not apply to --target=sm_90
gpu.module @kernels {
  gpu.func @fmax(%f: memref<4xf32, #symm.heap>, %y: f32, %out: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %r = symm.atomic_rmw fmax %y, %f[%c0] ordering(relaxed) scope(device) : f32 -> memref<4xf32, #symm.heap>
    memref.store %r, %out[%c0] : memref<4xf32>
    gpu.return
  }
}
