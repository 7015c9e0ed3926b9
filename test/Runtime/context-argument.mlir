// kernel-context=argument end to end: the kernel reads rank, world size and
// heap bases through its last parameter, which the launcher fills from
// symm_get_kernel_context; the module carries no context global.
// RUN: symm-compile --target=host --kernel-context=argument %s -o %t.so
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.so.json
// RUN: symm-run -n 3 symm-context-driver %t.so | FileCheck %s
// MANIFEST: "kind": "argument",
// MANIFEST: "name": "identify",
// MANIFEST: "params": 6
// CHECK-DAG: [rank 0] context argument ok: rank 0 size 3 from 2
// CHECK-DAG: [rank 1] context argument ok: rank 1 size 3 from 0
// CHECK-DAG: [rank 2] context argument ok: rank 2 size 3 from 1
gpu.module @kernels {
  gpu.func @identify(%buf: memref<4xi32, #symm.heap>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1 : i32
    %me = symm.rank : i32
    %n = symm.world_size : i32
    memref.store %me, %buf[%c0] : memref<4xi32, #symm.heap>
    memref.store %n, %buf[%c1] : memref<4xi32, #symm.heap>
    %up = arith.addi %me, %one : i32
    %next = arith.remsi %up, %n : i32
    symm.store %me, %buf[%c2] to %next : i32 -> memref<4xi32, #symm.heap>
    gpu.return
  }
}
