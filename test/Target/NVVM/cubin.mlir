// A cubin through ptxas when the CUDA toolkit is here; PTX for newer chips.
// REQUIRES: ptxas
// RUN: symm-compile --target=sm_90 %s -o %t.cubin
// RUN: llvm-readelf -h -s %t.cubin | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.cubin.json
// RUN: symm-compile --target=sm_80 %s -o %t.80.cubin
// RUN: llvm-readelf -h %t.80.cubin | FileCheck %s --check-prefix=SM80
// RUN: symm-compile --target=sm_100 --emit=ptx %s -o - | FileCheck %s --check-prefix=SM100
// CHECK: Machine: NVIDIA CUDA architecture
// CHECK: Flags: {{.*}}sm_90
// CHECK-DAG: 520 OBJECT GLOBAL DEFAULT {{.*}} __symm_context
// CHECK-DAG: FUNC GLOBAL DEFAULT {{.*}} ring
// MANIFEST: "format": "cubin",
// SM80: Flags: {{.*}}sm_80
// SM100: .version 8.6
// SM100: .target sm_100
gpu.module @kernels {
  gpu.func @ring(%buf: memref<?xf32, #symm.heap>, %i: index, %v: vector<4xf32>) kernel {
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %one = arith.constant 1 : i32
    %next = arith.addi %me, %one : i32
    %peer = arith.remsi %next, %n : i32
    symm.store %v, %buf[%i] to %peer : vector<4xf32> -> memref<?xf32, #symm.heap>
    gpu.return
  }
}
