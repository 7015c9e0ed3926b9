// Under kernel-context=argument only kernels that read the context take it as
// a parameter, and the manifest says so per kernel: it describes the lowered
// signatures, so every kernel can be launched with what it says.
// RUN: symm-compile --target=host --kernel-context=argument %s -o %t.so
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.so.json
// RUN: symm-launch %t.so idle 1 | FileCheck %s --check-prefix=IDLE
// RUN: symm-run -n 2 symm-context-driver %t.so | FileCheck %s --check-prefix=CONTEXT
// RUN: symm-compile --target=sm_90 --emit=ptx --kernel-context=argument %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.ptx.json
// MANIFEST:      "kind": "argument",
// MANIFEST:      "context_argument": false,
// MANIFEST-NEXT: "early_launch": false,
// MANIFEST-NEXT: "module": "kernels",
// MANIFEST-NEXT: "name": "idle",
// MANIFEST-NEXT: "params": 1
// MANIFEST:      "context_argument": true,
// MANIFEST-NEXT: "early_launch": false,
// MANIFEST-NEXT: "module": "kernels",
// MANIFEST-NEXT: "name": "identify",
// MANIFEST-NEXT: "params": 6
// MANIFEST:      "schema": 1,
// IDLE: launched idle
// CONTEXT-DAG: [rank 0] context argument ok: rank 0 size 2 from 1
// CONTEXT-DAG: [rank 1] context argument ok: rank 1 size 2 from 0
gpu.module @kernels {
  gpu.func @idle(%x: i32) kernel {
    gpu.return
  }
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
