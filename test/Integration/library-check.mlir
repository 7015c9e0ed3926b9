// The device library's self-check (library/check.mlir): symm_check_ramp_f32
// counts the elements that are not first + i, so a ramp with two wrong
// elements counts 2 and the ramp itself 0. It compiles for the GPUs too.
// RUN: %symm_run -n 1 %s | FileCheck %s
// RUN: symm-compile --target=gfx942 --emit=isa %s -o %t.s
// RUN: FileCheck %s --check-prefix=ISA < %t.s
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// CHECK: [rank 0] wrong in the ramp: 0
// CHECK: [rank 0] wrong in the damaged ramp: 2
// ISA-LABEL: fill_and_check:
// ISA: v_cmp_neq_f32
// PTX-LABEL: .entry fill_and_check(
// PTX: setp.neu.f32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @symm_check_ramp_f32(memref<?xf32, #symm.heap>, f32) -> i32
    // buf[i] = 7 + i; with %damage, buf[5] and buf[63] are wrong. Then
    // counts[0] = what the check finds.
    gpu.func @fill_and_check(%buf: memref<?xf32, #symm.heap>, %damage: i32, %counts: memref<1xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      %c63 = arith.constant 63 : index
      %first = arith.constant 7.0 : f32
      %bad = arith.constant -1.0 : f32
      %zero = arith.constant 0 : i32
      %n = memref.dim %buf, %c0 : memref<?xf32, #symm.heap>
      scf.for %i = %c0 to %n step %c1 {
        %ii = arith.index_cast %i : index to i32
        %if = arith.sitofp %ii : i32 to f32
        %v = arith.addf %first, %if : f32
        memref.store %v, %buf[%i] : memref<?xf32, #symm.heap>
      }
      %damaged = arith.cmpi ne, %damage, %zero : i32
      scf.if %damaged {
        memref.store %bad, %buf[%c5] : memref<?xf32, #symm.heap>
        memref.store %first, %buf[%c63] : memref<?xf32, #symm.heap>
      }
      %e = func.call @symm_check_ramp_f32(%buf, %first) : (memref<?xf32, #symm.heap>, f32) -> i32
      memref.store %e, %counts[%c0] : memref<1xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @run(%buf: memref<?xf32, #symm.heap>, %damage: i32) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %counts = symm.alloc() : memref<1xi32, #symm.heap>
    gpu.launch_func @kernels::@fill_and_check blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%buf : memref<?xf32, #symm.heap>, %damage : i32, %counts : memref<1xi32, #symm.heap>)
    %host = gpu.alloc host_shared () : memref<1xi32>
    gpu.memcpy %host, %counts : memref<1xi32>, memref<1xi32, #symm.heap>
    %e = memref.load %host[%c0] : memref<1xi32>
    return %e : i32
  }
  func.func @main() -> i32 {
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %buf = symm.alloc(%c64) : memref<?xf32, #symm.heap>
    %clean = call @run(%buf, %zero) : (memref<?xf32, #symm.heap>, i32) -> i32
    vector.print str "wrong in the ramp: "
    vector.print %clean : i32
    %damaged = call @run(%buf, %one) : (memref<?xf32, #symm.heap>, i32) -> i32
    vector.print str "wrong in the damaged ramp: "
    vector.print %damaged : i32
    return %zero : i32
  }
}
