// gpu.subgroup_mma_* with f32 operands (f32 accumulation) and with signed
// and unsigned i8 operands (i32 accumulation), and elementwise operations,
// on every rank of the CPU target; results equal a host reference bit for
// bit. NVIDIA's WMMA lowering and the MFMA lowering take f16 operands only,
// so this program is for the CPU target.
// REQUIRES: backend-host
// RUN: %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] f32 ok
// CHECK-DAG: [rank 0] i8 ok
// CHECK-DAG: [rank 1] f32 ok
// CHECK-DAG: [rank 1] i8 ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // One subgroup: D = max(A·B + C, 0) in f32, and E = A8·B8 + C32 with
    // A8 signed, B8 unsigned.
    gpu.func @mma(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>,
                  %d: memref<16x16xf32>, %a8: memref<16x16xi8>, %b8: memref<16x16xi8>,
                  %c32: memref<16x16xi32>, %e: memref<16x16xi32>) kernel {
      %c0 = arith.constant 0 : index
      %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "AOp">
      %fb = gpu.subgroup_mma_load_matrix %b[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "BOp">
      %fc = gpu.subgroup_mma_load_matrix %c[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
      %fd = gpu.subgroup_mma_compute %fa, %fb, %fc : !gpu.mma_matrix<16x16xf32, "AOp">, !gpu.mma_matrix<16x16xf32, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
      %zero = arith.constant 0.0 : f32
      %z = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf32, "COp">
      %relu = gpu.subgroup_mma_elementwise maxf %fd, %z : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
      gpu.subgroup_mma_store_matrix %relu, %d[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
      %ia = gpu.subgroup_mma_load_matrix %a8[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi8> -> !gpu.mma_matrix<16x16xsi8, "AOp">
      %ib = gpu.subgroup_mma_load_matrix %b8[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi8> -> !gpu.mma_matrix<16x16xui8, "BOp">
      %ic = gpu.subgroup_mma_load_matrix %c32[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xi32> -> !gpu.mma_matrix<16x16xi32, "COp">
      %ie = gpu.subgroup_mma_compute %ia, %ib, %ic : !gpu.mma_matrix<16x16xsi8, "AOp">, !gpu.mma_matrix<16x16xui8, "BOp"> -> !gpu.mma_matrix<16x16xi32, "COp">
      gpu.subgroup_mma_store_matrix %ie, %e[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xi32, "COp">, memref<16x16xi32>
      gpu.return
    }
  }

  // A deterministic value from (i, j, rank): n = (i * p + j * q + rank) mod 251.
  func.func @n(%i: index, %j: index, %p: index, %q: index, %rank: index) -> i32 {
    %c251 = arith.constant 251 : index
    %ip = arith.muli %i, %p : index
    %jq = arith.muli %j, %q : index
    %s0 = arith.addi %ip, %jq : index
    %s1 = arith.addi %s0, %rank : index
    %n = arith.remui %s1, %c251 : index
    %ni = arith.index_cast %n : index to i32
    return %ni : i32
  }

  func.func @report(%errors: i32, %what: index) {
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi eq, %errors, %zero : i32
    scf.index_switch %what
    case 0 { vector.print str "f32 " scf.yield }
    default { vector.print str "i8 " }
    scf.if %ok {
      vector.print str "ok\n"
    } else {
      vector.print str "FAILED, wrong elements: "
      vector.print %errors : i32
    }
    return
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %p1 = arith.constant 37 : index
    %q1 = arith.constant 101 : index
    %p2 = arith.constant 53 : index
    %q2 = arith.constant 7 : index
    %rank32 = symm.rank : i32
    %rank = arith.index_cast %rank32 : i32 to index
    %a = gpu.alloc host_shared () : memref<16x16xf32>
    %b = gpu.alloc host_shared () : memref<16x16xf32>
    %c = gpu.alloc host_shared () : memref<16x16xf32>
    %d = gpu.alloc host_shared () : memref<16x16xf32>
    %a8 = gpu.alloc host_shared () : memref<16x16xi8>
    %b8 = gpu.alloc host_shared () : memref<16x16xi8>
    %c32m = gpu.alloc host_shared () : memref<16x16xi32>
    %e = gpu.alloc host_shared () : memref<16x16xi32>
    // f32 values n / 7 - 17 (inexact, so products and sums round); i8
    // values n - 125 as signed and n as unsigned.
    %seven = arith.constant 7.0 : f32
    %off = arith.constant 17.0 : f32
    %c125 = arith.constant 125 : i32
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c16 step %c1 {
        %n1 = func.call @n(%i, %j, %p1, %q1, %rank) : (index, index, index, index, index) -> i32
        %n2 = func.call @n(%i, %j, %p2, %q2, %rank) : (index, index, index, index, index) -> i32
        %n3 = func.call @n(%j, %i, %p1, %q2, %rank) : (index, index, index, index, index) -> i32
        %f1 = arith.sitofp %n1 : i32 to f32
        %f2 = arith.sitofp %n2 : i32 to f32
        %f3 = arith.sitofp %n3 : i32 to f32
        %g1 = arith.divf %f1, %seven : f32
        %g2 = arith.divf %f2, %seven : f32
        %g3 = arith.divf %f3, %seven : f32
        %h1 = arith.subf %g1, %off : f32
        %h2 = arith.subf %g2, %off : f32
        %h3 = arith.subf %g3, %off : f32
        memref.store %h1, %a[%i, %j] : memref<16x16xf32>
        memref.store %h2, %b[%i, %j] : memref<16x16xf32>
        memref.store %h3, %c[%i, %j] : memref<16x16xf32>
        %s1 = arith.subi %n1, %c125 : i32
        %t1 = arith.trunci %s1 : i32 to i8
        %t2 = arith.trunci %n2 : i32 to i8
        memref.store %t1, %a8[%i, %j] : memref<16x16xi8>
        memref.store %t2, %b8[%i, %j] : memref<16x16xi8>
        memref.store %n3, %c32m[%i, %j] : memref<16x16xi32>
      }
    }
    gpu.launch_func @kernels::@mma blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%a : memref<16x16xf32>, %b : memref<16x16xf32>, %c : memref<16x16xf32>,
             %d : memref<16x16xf32>, %a8 : memref<16x16xi8>, %b8 : memref<16x16xi8>,
             %c32m : memref<16x16xi32>, %e : memref<16x16xi32>)
    gpu.wait

    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %fzero = arith.constant 0.0 : f32
    %errs:2 = scf.for %i = %c0 to %c16 step %c1 iter_args(%ef = %zero, %ei = %zero) -> (i32, i32) {
      %row:2 = scf.for %j = %c0 to %c16 step %c1 iter_args(%ef1 = %ef, %ei1 = %ei) -> (i32, i32) {
        %cf = memref.load %c[%i, %j] : memref<16x16xf32>
        %ci = memref.load %c32m[%i, %j] : memref<16x16xi32>
        %sum:2 = scf.for %k = %c0 to %c16 step %c1 iter_args(%sf = %cf, %si = %ci) -> (f32, i32) {
          %av = memref.load %a[%i, %k] : memref<16x16xf32>
          %bv = memref.load %b[%k, %j] : memref<16x16xf32>
          %p = arith.mulf %av, %bv : f32
          %sf1 = arith.addf %sf, %p : f32
          %a8v = memref.load %a8[%i, %k] : memref<16x16xi8>
          %b8v = memref.load %b8[%k, %j] : memref<16x16xi8>
          %a32 = arith.extsi %a8v : i8 to i32
          %b32 = arith.extui %b8v : i8 to i32
          %pi = arith.muli %a32, %b32 : i32
          %si1 = arith.addi %si, %pi : i32
          scf.yield %sf1, %si1 : f32, i32
        }
        %relu = arith.maximumf %sum#0, %fzero : f32
        %gf = memref.load %d[%i, %j] : memref<16x16xf32>
        %gi = memref.load %e[%i, %j] : memref<16x16xi32>
        %badf = arith.cmpf une, %gf, %relu : f32
        %badi = arith.cmpi ne, %gi, %sum#1 : i32
        %incf = arith.select %badf, %one, %zero : i32
        %inci = arith.select %badi, %one, %zero : i32
        %ef2 = arith.addi %ef1, %incf : i32
        %ei2 = arith.addi %ei1, %inci : i32
        scf.yield %ef2, %ei2 : i32, i32
      }
      scf.yield %row#0, %row#1 : i32, i32
    }
    func.call @report(%errs#0, %c0) : (i32, index) -> ()
    func.call @report(%errs#1, %c1) : (i32, index) -> ()
    %s = arith.addi %errs#0, %errs#1 : i32
    return %s : i32
  }
}
