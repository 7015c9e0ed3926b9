// Debian's stock mlir-opt with Symm loaded as a plugin: the dialect parses and
// prints, Symm's passes and the symm-to-nvvm pipeline lower it.
// RUN: mlir-opt --load-dialect-plugin=%symm_plugin %s | FileCheck %s --check-prefix=PARSE
// RUN: mlir-opt --load-dialect-plugin=%symm_plugin --load-pass-plugin=%symm_plugin \
// RUN:   --pass-pipeline='builtin.module(symm-translate-to-heap-base)' %s | FileCheck %s --check-prefix=PASS
// RUN: mlir-opt --load-dialect-plugin=%symm_plugin --load-pass-plugin=%symm_plugin \
// RUN:   --pass-pipeline='builtin.module(symm-to-nvvm{chip=sm_90 format=isa})' %s | FileCheck %s --check-prefix=PTX
// RUN: not mlir-opt --load-dialect-plugin=%symm_plugin %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=VERIFY

gpu.module @kernels {
  gpu.func @next(%buf: memref<8xi32, #symm.heap>) kernel {
    %tid = gpu.thread_id x
    %one = arith.constant 1 : i32
    %me = symm.rank : i32
    %n = symm.world_size : i32
    %up = arith.addi %me, %one : i32
    %next = arith.remsi %up, %n : i32
    %i = arith.index_cast %tid : index to i32
    symm.store %i, %buf[%tid] to %next : i32 -> memref<8xi32, #symm.heap>
    gpu.return
  }
}

// PARSE-LABEL: gpu.func @next
// PARSE:         symm.store %{{.*}}, %{{.*}}[%{{.*}}] to %{{.*}} : i32 -> memref<8xi32, #symm.heap>

// PASS-LABEL:  gpu.func @next
// PASS:          %[[PEER:.*]] = symm.translate %{{.*}} to %{{.*}} : memref<8xi32, #symm.heap>
// PASS-NEXT:     memref.store %{{.*}}, %[[PEER]][%{{.*}}] : memref<8xi32, #symm.heap>

// PTX:         gpu.binary @kernels
// PTX-SAME:    .const .align 8 .b8 __symm_context
// PTX-SAME:    .visible .entry next(

// VERIFY: invalid.mlir:3:8: error: 'symm.load' op peer access requires a memref in #symm.heap, got 'memref<4xf32>'
