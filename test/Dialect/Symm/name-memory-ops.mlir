// RUN: symm-opt %s -symm-name-memory-ops -mlir-print-debuginfo | FileCheck %s

// Device operations that read or write memory get their name in a NameLoc;
// others, operations with one, and host code keep their locations.

// CHECK-LABEL: gpu.func @k
gpu.module @m {
  gpu.func @k(%buf: memref<4xi32, #symm.heap>, %i: index) kernel {
    // CHECK: memref.load {{.*}} loc(#[[LOAD:loc[0-9]*]])
    %v = memref.load %buf[%i] : memref<4xi32, #symm.heap> loc("a.mlir":1:1)
    // CHECK: symm.store {{.*}} loc(#[[STORE:loc[0-9]*]])
    symm.store %v, %buf[%i] : i32 -> memref<4xi32, #symm.heap> loc("a.mlir":2:1)
    // CHECK: arith.addi {{.*}} loc(#[[ADD:loc[0-9]*]])
    %w = arith.addi %v, %v : i32 loc("a.mlir":3:1)
    // CHECK: memref.store {{.*}} loc(#[[NAMED:loc[0-9]*]])
    memref.store %w, %buf[%i] : memref<4xi32, #symm.heap> loc("mine"("a.mlir":4:1))
    gpu.return
  }
}
// CHECK-LABEL: func.func @host
func.func @host(%buf: memref<4xi32>, %i: index) -> i32 {
  // CHECK: memref.load {{.*}} loc(#[[HOST:loc[0-9]*]])
  %v = memref.load %buf[%i] : memref<4xi32> loc("a.mlir":5:1)
  return %v : i32
}
// CHECK-DAG: #[[LOAD]] = loc("memref.load"(#{{loc[0-9]*}}))
// CHECK-DAG: #[[STORE]] = loc("symm.store"(#{{loc[0-9]*}}))
// CHECK-DAG: #[[ADD]] = loc("a.mlir":3:1)
// CHECK-DAG: #[[NAMED]] = loc("mine"(#{{loc[0-9]*}}))
// CHECK-DAG: #[[HOST]] = loc("a.mlir":5:1)
