// Host code that reads #symm.heap memory: on GPUs the heap is device memory
// and this program would be killed by SIGSEGV, so every GPU target rejects
// it at the load; the CPU target runs it, and rejects it with
// --check-host-access (on in this suite: lit's symm-compile passes it, so the
// unchecked runs name the binary by its path).
// RUN: not symm-compile --target=sm_90 --emit=ptx %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not symm-compile --target=gfx942 --emit=isa %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not symm-opt %s --symm-to-nvvm="format=isa" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not symm-opt %s --symm-to-host="format=isa check-host-access=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not %symm_obj_root/bin/symm-compile --target=host --check-host-access %s -o %t.exe 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not symm-run --check-host-access -n 2 %s 2>&1 | FileCheck %s --check-prefixes=ERROR,COMPILING
// RUN: %symm_obj_root/bin/symm-compile --target=host %s -o %t.exe
// RUN: symm-run -n 2 %t.exe | FileCheck %s --check-prefix=CPU
// RUN: %symm_obj_root/bin/symm-compile --target=host --print-pipeline %s | FileCheck %s --check-prefix=OFF
// RUN: %symm_obj_root/bin/symm-compile --target=host --check-host-access --print-pipeline %s | FileCheck %s --check-prefix=ON
// ERROR: check-host-access.mlir:[[@LINE+24]]:10: error: 'memref.load' op reads #symm.heap memory in host code, which GPUs cannot do: copy it to or from a gpu.alloc host_shared buffer with gpu.memcpy (docs/Programs.md)
// ERROR-NOT: error
// COMPILING: symm-run: compiling {{.*}}check-host-access.mlir failed
// CPU-DAG: [rank 0] 7
// CPU-DAG: [rank 1] 7
// OFF: gpu.module(symm-inline-device-calls),symm-check-hopper-ops
// ON: gpu.module(symm-inline-device-calls),symm-check-host-access,symm-check-hopper-ops
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @seven(%buf: memref<4xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %seven = arith.constant 7 : i32
      memref.store %seven, %buf[%c0] : memref<4xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = symm.alloc() : memref<4xi32, #symm.heap>
    gpu.launch_func @kernels::@seven blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%buf : memref<4xi32, #symm.heap>)
    symm.barrier
    // The fix: gpu.memcpy %host, %buf to a gpu.alloc host_shared buffer.
    %v = memref.load %buf[%c0] : memref<4xi32, #symm.heap>
    vector.print %v : i32
    symm.barrier
    symm.dealloc %buf : memref<4xi32, #symm.heap>
    return
  }
}
