// gpu.printf has no lowering for AMD GPUs without the ROCm device libraries:
// one error at the printf, naming the target and the way out.
// RUN: not symm-compile --target=gfx942 %s -o %t.hsaco 2>&1 | FileCheck %s -DT=gfx942
// RUN: not symm-compile --target=gfx90a --emit=isa %s -o %t.s 2>&1 | FileCheck %s -DT=gfx90a
// The other targets print.
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o - | FileCheck %s --check-prefix=PTX
// RUN: symm-compile --target=host %s -o %t.so
// CHECK: printf.mlir:[[@LINE+6]]:5: error: 'gpu.printf' has no lowering for --target=[[T]]: printf on AMD GPUs needs the ROCm device libraries' hostcall support, which Symm does not link; print from host code, or run the kernel on the host or NVIDIA targets
// CHECK-NOT: error
// CHECK-NOT: gpu.module
// PTX: vprintf
gpu.module @kernels {
  gpu.func @hello(%x: i32) kernel {
    gpu.printf "x=%d\n", %x : i32
    gpu.return
  }
}
