// HSACO from symm-compile with no ROCm installed: the system ld.lld links it.
// RUN: symm-compile --target=gfx942 %s -o %t.hsaco
// RUN: llvm-readelf -s %t.hsaco | FileCheck %s --check-prefix=SYMS
// RUN: llvm-readelf --notes %t.hsaco | FileCheck %s --check-prefix=NOTES
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.hsaco.json
// RUN: symm-compile --target=gfx942 --emit=isa %s -o - | FileCheck %s --check-prefix=ISA
// RUN: symm-compile --target=gfx90a %s -o %t.90a.hsaco
// RUN: llvm-readelf --notes %t.90a.hsaco | FileCheck %s --check-prefix=NOTES90A
// RUN: env SYMM_LLD=/nonexistent/ld.lld not symm-compile --target=gfx942 %s -o %t.bad 2>&1 | FileCheck %s --check-prefix=NOLLD

// SYMS-DAG: FUNC GLOBAL PROTECTED {{.*}} ring
// SYMS-DAG: OBJECT GLOBAL PROTECTED {{.*}} __symm_context
// SYMS-DAG: 520 OBJECT {{.*}} __symm_context
// SYMS-DAG: ring.kd

// NOTES: .args:
// NOTES: .address_space: generic
// NOTES-NEXT: .offset: 0
// NOTES-NEXT: .size: 8
// NOTES-NEXT: .value_kind: global_buffer
// NOTES: .value_kind: by_value
// NOTES: .name: ring
// NOTES: .wavefront_size: 64
// NOTES: amdhsa.target: amdgcn-amd-amdhsa--gfx942
// NOTES90A: amdhsa.target: amdgcn-amd-amdhsa--gfx90a

// MANIFEST: "format": "hsaco",
// MANIFEST: "name": "ring",
// MANIFEST: "target": "gfx942"

// A relaxed vector<4xf32> remote store is one dwordx4 store; back-off is s_sleep.
// ISA-LABEL: ring:
// ISA: global_store_dwordx4
// ISA-LABEL: poll:
// ISA: s_sleep 4
// ISA: global_load_dword {{.*}} sc0 sc1

// NOLLD: symm-compile: error: HSACO needs ld.lld, and '/nonexistent/ld.lld' (SYMM_LLD) is not an executable
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
  gpu.func @poll(%flags: memref<?xi32, #symm.heap>, %i: index, %c: i32) kernel {
    %v = symm.wait %flags[%i] eq %c scope(system) backoff(100) : memref<?xi32, #symm.heap> -> i32
    gpu.return
  }
}
