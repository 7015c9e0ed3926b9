// bf16 and f16 on every rank, in kernels and in host code: conversions from
// f32 round to nearest, ties to even (as the GPUs do), arithmetic rounds its
// result the same way, and symm.atomic_rmw fadd on bf16 and f16 peer memory
// counts exactly. Inputs 0 and 1 are bf16 ties, 2 and 3 are f16 ties.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: symm-compile --target=sm_90 --emit=mlir %s -o %t.nvvm.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.nvvm.mlir
// RUN: symm-compile --target=gfx942 --emit=mlir %s -o %t.rocdl.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.rocdl.mlir
// Host code is CPU code on every target, and kernels keep GPU bf16:
// RUN: symm-compile --target=sm_90 %s -o %t.sm90.exe
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: cvt.rn.bf16.f32
// CHECK-DAG: [rank 0] kernel bf16 ok
// CHECK-DAG: [rank 0] kernel f16 ok
// CHECK-DAG: [rank 0] host bf16 ok
// CHECK-DAG: [rank 0] host f16 ok
// CHECK-DAG: [rank 0] atomic bf16 ok
// CHECK-DAG: [rank 0] atomic f16 ok
// CHECK-DAG: [rank 1] kernel bf16 ok
// CHECK-DAG: [rank 1] host f16 ok
// GPU-DAG: gpu.binary @kernels
// GPU-DAG: llvm.func @main
module attributes {gpu.container_module} {
  memref.global "private" constant @inputs : memref<5xf32> = dense<[1.00390625, 1.01171875, 1.00048828125, 1.00146484375, 3.14159274]>
  // The inputs and their squares in bf16 and in f16, widened back to f32.
  memref.global "private" constant @bf16 : memref<5xf32> = dense<[1.0, 1.015625, 1.0, 1.0, 3.140625]>
  memref.global "private" constant @bf16_squares : memref<5xf32> = dense<[1.0, 1.03125, 1.0, 1.0, 9.875]>
  memref.global "private" constant @f16 : memref<5xf32> = dense<[1.00390625, 1.01171875, 1.0, 1.001953125, 3.140625]>
  memref.global "private" constant @f16_squares : memref<5xf32> = dense<[1.0078125, 1.0234375, 1.0, 1.00390625, 9.8671875]>

  gpu.module @kernels {
    gpu.func @convert(%in: memref<5xf32>, %b: memref<5xbf16>, %bsq: memref<5xbf16>, %h: memref<5xf16>, %hsq: memref<5xf16>) kernel {
      %t = gpu.thread_id x
      %x = memref.load %in[%t] : memref<5xf32>
      %xb = arith.truncf %x : f32 to bf16
      %xb2 = arith.mulf %xb, %xb : bf16
      memref.store %xb, %b[%t] : memref<5xbf16>
      memref.store %xb2, %bsq[%t] : memref<5xbf16>
      %xh = arith.truncf %x : f32 to f16
      %xh2 = arith.mulf %xh, %xh : f16
      memref.store %xh, %h[%t] : memref<5xf16>
      memref.store %xh2, %hsq[%t] : memref<5xf16>
      gpu.return
    }
    // Every thread of every rank adds 1 to rank 0's counters.
    gpu.func @count(%b: memref<1xbf16, #symm.heap>, %h: memref<1xf16, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %root = arith.constant 0 : i32
      %ob = arith.constant 1.0 : bf16
      %oh = arith.constant 1.0 : f16
      %x = symm.atomic_rmw fadd %ob, %b[%c0] on %root ordering(relaxed) scope(system) : bf16 -> memref<1xbf16, #symm.heap>
      %y = symm.atomic_rmw fadd %oh, %h[%c0] on %root ordering(relaxed) scope(system) : f16 -> memref<1xf16, #symm.heap>
      gpu.return
    }
  }

  // Counts the i where widen(got[i]) != want[i].
  func.func @errors_bf16(%got: memref<5xbf16>, %want: memref<5xf32>) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %e = scf.for %i = %c0 to %c5 step %c1 iter_args(%e0 = %zero) -> (i32) {
      %g = memref.load %got[%i] : memref<5xbf16>
      %gf = arith.extf %g : bf16 to f32
      %w = memref.load %want[%i] : memref<5xf32>
      %bad = arith.cmpf une, %gf, %w : f32
      %inc = arith.select %bad, %one, %zero : i32
      %e1 = arith.addi %e0, %inc : i32
      scf.yield %e1 : i32
    }
    return %e : i32
  }
  func.func @errors_f16(%got: memref<5xf16>, %want: memref<5xf32>) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %e = scf.for %i = %c0 to %c5 step %c1 iter_args(%e0 = %zero) -> (i32) {
      %g = memref.load %got[%i] : memref<5xf16>
      %gf = arith.extf %g : f16 to f32
      %w = memref.load %want[%i] : memref<5xf32>
      %bad = arith.cmpf une, %gf, %w : f32
      %inc = arith.select %bad, %one, %zero : i32
      %e1 = arith.addi %e0, %inc : i32
      scf.yield %e1 : i32
    }
    return %e : i32
  }
  func.func @report(%errors: i32, %what: i32) -> i32 {
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi eq, %errors, %zero : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %name = arith.index_cast %what : i32 to index
    scf.index_switch %name
    case 0 { vector.print str "kernel bf16 " scf.yield }
    case 1 { vector.print str "kernel f16 " scf.yield }
    case 2 { vector.print str "host bf16 " scf.yield }
    case 3 { vector.print str "host f16 " scf.yield }
    case 4 { vector.print str "atomic bf16 " scf.yield }
    default { vector.print str "atomic f16 " }
    scf.if %ok {
      vector.print str "ok\n"
    } else {
      vector.print str "FAILED, wrong values: "
      vector.print %errors : i32
    }
    return %errors : i32
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c64 = arith.constant 64 : index
    %in = memref.get_global @inputs : memref<5xf32>
    %want_b = memref.get_global @bf16 : memref<5xf32>
    %want_bsq = memref.get_global @bf16_squares : memref<5xf32>
    %want_h = memref.get_global @f16 : memref<5xf32>
    %want_hsq = memref.get_global @f16_squares : memref<5xf32>

    // In kernels.
    %din = gpu.alloc host_shared () : memref<5xf32>
    memref.copy %in, %din : memref<5xf32> to memref<5xf32>
    %b = gpu.alloc host_shared () : memref<5xbf16>
    %bsq = gpu.alloc host_shared () : memref<5xbf16>
    %h = gpu.alloc host_shared () : memref<5xf16>
    %hsq = gpu.alloc host_shared () : memref<5xf16>
    gpu.launch_func @kernels::@convert blocks in (%c1, %c1, %c1) threads in (%c5, %c1, %c1) args(%din : memref<5xf32>, %b : memref<5xbf16>, %bsq : memref<5xbf16>, %h : memref<5xf16>, %hsq : memref<5xf16>)
    gpu.wait
    %e0a = func.call @errors_bf16(%b, %want_b) : (memref<5xbf16>, memref<5xf32>) -> i32
    %e0b = func.call @errors_bf16(%bsq, %want_bsq) : (memref<5xbf16>, memref<5xf32>) -> i32
    %e0 = arith.addi %e0a, %e0b : i32
    %e1a = func.call @errors_f16(%h, %want_h) : (memref<5xf16>, memref<5xf32>) -> i32
    %e1b = func.call @errors_f16(%hsq, %want_hsq) : (memref<5xf16>, memref<5xf32>) -> i32
    %e1 = arith.addi %e1a, %e1b : i32

    // In host code.
    %hb = memref.alloc() : memref<5xbf16>
    %hbsq = memref.alloc() : memref<5xbf16>
    %hh = memref.alloc() : memref<5xf16>
    %hhsq = memref.alloc() : memref<5xf16>
    scf.for %i = %c0 to %c5 step %c1 {
      %x = memref.load %in[%i] : memref<5xf32>
      %xb = arith.truncf %x : f32 to bf16
      %xb2 = arith.mulf %xb, %xb : bf16
      memref.store %xb, %hb[%i] : memref<5xbf16>
      memref.store %xb2, %hbsq[%i] : memref<5xbf16>
      %xh = arith.truncf %x : f32 to f16
      %xh2 = arith.mulf %xh, %xh : f16
      memref.store %xh, %hh[%i] : memref<5xf16>
      memref.store %xh2, %hhsq[%i] : memref<5xf16>
    }
    %e2a = func.call @errors_bf16(%hb, %want_b) : (memref<5xbf16>, memref<5xf32>) -> i32
    %e2b = func.call @errors_bf16(%hbsq, %want_bsq) : (memref<5xbf16>, memref<5xf32>) -> i32
    %e2 = arith.addi %e2a, %e2b : i32
    %e3a = func.call @errors_f16(%hh, %want_h) : (memref<5xf16>, memref<5xf32>) -> i32
    %e3b = func.call @errors_f16(%hhsq, %want_hsq) : (memref<5xf16>, memref<5xf32>) -> i32
    %e3 = arith.addi %e3a, %e3b : i32

    // Atomics: 64 threads on each rank add 1 to rank 0's counters.
    %cb = symm.alloc() : memref<1xbf16, #symm.heap>
    %ch = symm.alloc() : memref<1xf16, #symm.heap>
    %zb = arith.constant 0.0 : bf16
    %zh = arith.constant 0.0 : f16
    %sb = gpu.alloc host_shared () : memref<1xbf16>
    %sh = gpu.alloc host_shared () : memref<1xf16>
    memref.store %zb, %sb[%c0] : memref<1xbf16>
    memref.store %zh, %sh[%c0] : memref<1xf16>
    gpu.memcpy %cb, %sb : memref<1xbf16, #symm.heap>, memref<1xbf16>
    gpu.memcpy %ch, %sh : memref<1xf16, #symm.heap>, memref<1xf16>
    symm.barrier
    gpu.launch_func @kernels::@count blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%cb : memref<1xbf16, #symm.heap>, %ch : memref<1xf16, #symm.heap>)
    symm.barrier
    gpu.memcpy %sb, %cb : memref<1xbf16>, memref<1xbf16, #symm.heap>
    gpu.memcpy %sh, %ch : memref<1xf16>, memref<1xf16, #symm.heap>
    %n = symm.world_size : i32
    %nf = arith.sitofp %n : i32 to f32
    %per = arith.constant 64.0 : f32
    %want = arith.mulf %nf, %per : f32
    %gb = memref.load %sb[%c0] : memref<1xbf16>
    %gbf = arith.extf %gb : bf16 to f32
    %gh = memref.load %sh[%c0] : memref<1xf16>
    %ghf = arith.extf %gh : f16 to f32
    %rank = symm.rank : i32
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %root = arith.cmpi eq, %rank, %zero : i32
    %badb = arith.cmpf une, %gbf, %want : f32
    %badh = arith.cmpf une, %ghf, %want : f32
    %e4i = arith.select %badb, %one, %zero : i32
    %e5i = arith.select %badh, %one, %zero : i32
    %e4 = arith.select %root, %e4i, %zero : i32
    %e5 = arith.select %root, %e5i, %zero : i32

    %k0 = arith.constant 0 : i32
    %k1 = arith.constant 1 : i32
    %k2 = arith.constant 2 : i32
    %k3 = arith.constant 3 : i32
    %k4 = arith.constant 4 : i32
    %k5 = arith.constant 5 : i32
    %r0 = func.call @report(%e0, %k0) : (i32, i32) -> i32
    %r1 = func.call @report(%e1, %k1) : (i32, i32) -> i32
    %r2 = func.call @report(%e2, %k2) : (i32, i32) -> i32
    %r3 = func.call @report(%e3, %k3) : (i32, i32) -> i32
    scf.if %root {
      %r4 = func.call @report(%e4, %k4) : (i32, i32) -> i32
      %r5 = func.call @report(%e5, %k5) : (i32, i32) -> i32
    }
    %s0 = arith.addi %e0, %e1 : i32
    %s1 = arith.addi %s0, %e2 : i32
    %s2 = arith.addi %s1, %e3 : i32
    %s3 = arith.addi %s2, %e4 : i32
    %s4 = arith.addi %s3, %e5 : i32
    symm.barrier
    return %s4 : i32
  }
}
