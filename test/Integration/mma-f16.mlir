// gpu.subgroup_mma_* with f16 operands on every rank: C = A·B + C0 for a
// 32x32 C with K = 48, the four 16x16 tiles shared out among the subgroups
// of a 128-thread block: f32 accumulators, B loaded both as stored and
// transposed (with A staged in workgroup memory), and an f16 accumulator.
// On the CPU target results equal, bit for bit, a host reference that sums
// in f32 in increasing k (rounding to f16 after each 16-deep compute for the
// f16 accumulator). The inputs are 1 + n/1024 with signs, so sums round.
// The same file compiles to WMMA PTX for sm_90 and MFMA ISA for gfx942.
// RUN: %symm_run -n 2 %s > %t.out
// RUN: FileCheck %s < %t.out
// RUN: %if backend-host %{ FileCheck %s --check-prefix=EXACT < %t.out %}
// RUN: symm-compile --target=sm_90 --emit=ptx %s -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// CHECK-DAG: [rank 0] f32 accumulator ok
// CHECK-DAG: [rank 0] transposed B ok
// CHECK-DAG: [rank 0] f16 accumulator ok
// CHECK-DAG: [rank 1] f32 accumulator ok
// CHECK-DAG: [rank 1] transposed B ok
// CHECK-DAG: [rank 1] f16 accumulator ok
// Within 1e-5 (f32) or 2e-3 (f16) of the reference, relative, on every
// backend (tensor cores add in their own order); bit for bit on CPU ranks.
// EXACT-COUNT-6: elements not bit-identical to the reference: 0{{$}}
// RUN: symm-compile --target=gfx942 --emit=isa %s -o %t.s
// RUN: FileCheck %s --check-prefix=ISA < %t.s
// ISA: v_mfma_f32_16x16x16_f16
// PTX-DAG: wmma.load.a.sync.aligned.row.m16n16k16.f16
// PTX-DAG: wmma.load.a.sync.aligned.row.m16n16k16.shared.f16
// PTX-DAG: wmma.load.b.sync.aligned.col.m16n16k16.f16
// PTX-DAG: wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32
// PTX-DAG: wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32
// PTX-DAG: wmma.mma.sync.aligned.row.row.m16n16k16.f16.f16
// PTX-DAG: wmma.store.d.sync.aligned.row.m16n16k16.f32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // The block's subgroups of %lanes threads share out the four 16x16
    // tiles of C (two a subgroup with AMD's 64-lane wavefronts): tile s is
    // (s / 2, s % 2). %lanes is an argument because convert-gpu-to-nvvm
    // does not lower gpu.subgroup_size.
    gpu.func @mma(%a: memref<32x48xf16>, %b: memref<48x32xf16>, %bt: memref<32x48xf16>,
                  %c0m: memref<32x32xf32>, %c: memref<32x32xf32>, %ct: memref<32x32xf32>,
                  %h: memref<32x32xf16>, %lanes: index)
        workgroup(%sa: memref<32x48xf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c16 = arith.constant 16 : index
      %c48 = arith.constant 48 : index
      %t = gpu.thread_id x
      %threads = gpu.block_dim x
      %first = arith.divui %t, %lanes : index
      %subgroups = arith.divui %threads, %lanes : index
      // A is staged in workgroup memory for the transposed-B product.
      %c1536 = arith.constant 1536 : index
      scf.for %e = %t to %c1536 step %threads {
        %ei = arith.divui %e, %c48 : index
        %ek = arith.remui %e, %c48 : index
        %v = memref.load %a[%ei, %ek] : memref<32x48xf16>
        memref.store %v, %sa[%ei, %ek] : memref<32x48xf16, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.for %s = %first to %c4 step %subgroups {
      %tr = arith.divui %s, %c2 : index
      %tc = arith.remui %s, %c2 : index
      %row = arith.muli %tr, %c16 : index
      %col = arith.muli %tc, %c16 : index
      %init = gpu.subgroup_mma_load_matrix %c0m[%row, %col] {leadDimension = 32 : index} : memref<32x32xf32> -> !gpu.mma_matrix<16x16xf32, "COp">
      %zero = arith.constant 0.0 : f16
      %hinit = gpu.subgroup_mma_constant_matrix %zero : !gpu.mma_matrix<16x16xf16, "COp">
      %r:3 = scf.for %k = %c0 to %c48 step %c16 iter_args(%acc = %init, %acct = %init, %acch = %hinit)
          -> (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf16, "COp">) {
        %fa = gpu.subgroup_mma_load_matrix %a[%row, %k] {leadDimension = 48 : index} : memref<32x48xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
        %fb = gpu.subgroup_mma_load_matrix %b[%k, %col] {leadDimension = 32 : index} : memref<48x32xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
        %fas = gpu.subgroup_mma_load_matrix %sa[%row, %k] {leadDimension = 48 : index} : memref<32x48xf16, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x16xf16, "AOp">
        %fbt = gpu.subgroup_mma_load_matrix %bt[%col, %k] {leadDimension = 48 : index, transpose} : memref<32x48xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
        %d = gpu.subgroup_mma_compute %fa, %fb, %acc : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
        %dt = gpu.subgroup_mma_compute %fas, %fbt, %acct {b_transpose} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
        %dh = gpu.subgroup_mma_compute %fa, %fb, %acch : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf16, "COp">
        scf.yield %d, %dt, %dh : !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf16, "COp">
      }
      gpu.subgroup_mma_store_matrix %r#0, %c[%row, %col] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>
      gpu.subgroup_mma_store_matrix %r#1, %ct[%row, %col] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<32x32xf32>
      gpu.subgroup_mma_store_matrix %r#2, %h[%row, %col] {leadDimension = 32 : index} : !gpu.mma_matrix<16x16xf16, "COp">, memref<32x32xf16>
      }
      gpu.return
    }
  }

  // (1 + ((i * p + j * q + rank * 5) mod 64) / 1024), negated when i + j is
  // a multiple of 3: exact in f16.
  func.func @value(%i: index, %j: index, %p: index, %q: index, %rank: index) -> f16 {
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c64 = arith.constant 64 : index
    %ip = arith.muli %i, %p : index
    %jq = arith.muli %j, %q : index
    %r5 = arith.muli %rank, %c5 : index
    %s0 = arith.addi %ip, %jq : index
    %s1 = arith.addi %s0, %r5 : index
    %n = arith.remui %s1, %c64 : index
    %ni = arith.index_cast %n : index to i32
    %nf = arith.sitofp %ni : i32 to f32
    %scale = arith.constant 9.765625e-04 : f32
    %one = arith.constant 1.0 : f32
    %frac = arith.mulf %nf, %scale : f32
    %v = arith.addf %one, %frac : f32
    %ij = arith.addi %i, %j : index
    %m3 = arith.remui %ij, %c3 : index
    %c0 = arith.constant 0 : index
    %neg = arith.cmpi eq, %m3, %c0 : index
    %nv = arith.negf %v : f32
    %sv = arith.select %neg, %nv, %v : f32
    %h = arith.truncf %sv : f32 to f16
    return %h : f16
  }

  // Counts the elements where |got - want| > tol * max(|want|, 1); with tol
  // 0, those that differ at all.
  func.func @errors(%got: memref<32x32xf32>, %want: memref<32x32xf32>, %tol: f32) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %onef = arith.constant 1.0 : f32
    %e = scf.for %i = %c0 to %c32 step %c1 iter_args(%e0 = %zero) -> (i32) {
      %ei = scf.for %j = %c0 to %c32 step %c1 iter_args(%e1 = %e0) -> (i32) {
        %g = memref.load %got[%i, %j] : memref<32x32xf32>
        %w = memref.load %want[%i, %j] : memref<32x32xf32>
        %d = arith.subf %g, %w : f32
        %ad = math.absf %d : f32
        %aw = math.absf %w : f32
        %scale = arith.maximumf %aw, %onef : f32
        %bound = arith.mulf %tol, %scale : f32
        %bad = arith.cmpf ugt, %ad, %bound : f32
        %inc = arith.select %bad, %one, %zero : i32
        %e2 = arith.addi %e1, %inc : i32
        scf.yield %e2 : i32
      }
      scf.yield %ei : i32
    }
    return %e : i32
  }

  func.func @report(%errors: i32, %differ: i32, %what: index) {
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi eq, %errors, %zero : i32
    scf.index_switch %what
    case 0 { vector.print str "f32 accumulator " scf.yield }
    case 1 { vector.print str "transposed B " scf.yield }
    default { vector.print str "f16 accumulator " }
    scf.if %ok {
      vector.print str "ok\n"
    } else {
      vector.print str "FAILED, wrong elements: "
      vector.print %errors : i32
    }
    vector.print str "elements not bit-identical to the reference: "
    vector.print %differ : i32
    return
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c48 = arith.constant 48 : index
    %c128 = arith.constant 128 : index
    %p7 = arith.constant 37 : index
    %q11 = arith.constant 11 : index
    %p13 = arith.constant 13 : index
    %q29 = arith.constant 29 : index
    %rank32 = symm.rank : i32
    %rank = arith.index_cast %rank32 : i32 to index
    %a = gpu.alloc host_shared () : memref<32x48xf16>
    %b = gpu.alloc host_shared () : memref<48x32xf16>
    %bt = gpu.alloc host_shared () : memref<32x48xf16>
    %c0m = gpu.alloc host_shared () : memref<32x32xf32>
    %c = gpu.alloc host_shared () : memref<32x32xf32>
    %ct = gpu.alloc host_shared () : memref<32x32xf32>
    %h = gpu.alloc host_shared () : memref<32x32xf16>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %k = %c0 to %c48 step %c1 {
        %v = func.call @value(%i, %k, %p7, %q11, %rank) : (index, index, index, index, index) -> f16
        memref.store %v, %a[%i, %k] : memref<32x48xf16>
        %w = func.call @value(%k, %i, %p13, %q29, %rank) : (index, index, index, index, index) -> f16
        memref.store %w, %b[%k, %i] : memref<48x32xf16>
        memref.store %w, %bt[%i, %k] : memref<32x48xf16>
      }
      scf.for %j = %c0 to %c32 step %c1 {
        %v = func.call @value(%i, %j, %p13, %p7, %rank) : (index, index, index, index, index) -> f16
        %vf = arith.extf %v : f16 to f32
        memref.store %vf, %c0m[%i, %j] : memref<32x32xf32>
      }
    }
    gpu.launch_func @kernels::@mma blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%a : memref<32x48xf16>, %b : memref<48x32xf16>, %bt : memref<32x48xf16>,
             %c0m : memref<32x32xf32>, %c : memref<32x32xf32>, %ct : memref<32x32xf32>,
             %h : memref<32x32xf16>, %c32 : index)
    gpu.wait

    // The reference: f32 sums in increasing k; the f16 accumulator is
    // rounded after each 16-deep step, as each compute rounds its result.
    %want = memref.alloc() : memref<32x32xf32>
    %wanth = memref.alloc() : memref<32x32xf32>
    %got_h = memref.alloc() : memref<32x32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %init = memref.load %c0m[%i, %j] : memref<32x32xf32>
        %hzero = arith.constant 0.0 : f16
        %sum:2 = scf.for %k0 = %c0 to %c48 step %c16 iter_args(%s = %init, %sh = %hzero) -> (f32, f16) {
          %shf = arith.extf %sh : f16 to f32
          %k1 = arith.addi %k0, %c16 : index
          %in:2 = scf.for %k = %k0 to %k1 step %c1 iter_args(%x = %s, %y = %shf) -> (f32, f32) {
            %av = memref.load %a[%i, %k] : memref<32x48xf16>
            %bv = memref.load %b[%k, %j] : memref<48x32xf16>
            %af = arith.extf %av : f16 to f32
            %bf = arith.extf %bv : f16 to f32
            %p = arith.mulf %af, %bf : f32
            %x1 = arith.addf %x, %p : f32
            %y1 = arith.addf %y, %p : f32
            scf.yield %x1, %y1 : f32, f32
          }
          %nh = arith.truncf %in#1 : f32 to f16
          scf.yield %in#0, %nh : f32, f16
        }
        memref.store %sum#0, %want[%i, %j] : memref<32x32xf32>
        %whf = arith.extf %sum#1 : f16 to f32
        memref.store %whf, %wanth[%i, %j] : memref<32x32xf32>
        %gh = memref.load %h[%i, %j] : memref<32x32xf16>
        %ghf = arith.extf %gh : f16 to f32
        memref.store %ghf, %got_h[%i, %j] : memref<32x32xf32>
      }
    }
    %tol32 = arith.constant 1.0e-5 : f32
    %tol16 = arith.constant 2.0e-3 : f32
    %exact = arith.constant 0.0 : f32
    %e0 = func.call @errors(%c, %want, %tol32) : (memref<32x32xf32>, memref<32x32xf32>, f32) -> i32
    %e1 = func.call @errors(%ct, %want, %tol32) : (memref<32x32xf32>, memref<32x32xf32>, f32) -> i32
    %e2 = func.call @errors(%got_h, %wanth, %tol16) : (memref<32x32xf32>, memref<32x32xf32>, f32) -> i32
    %x0 = func.call @errors(%c, %want, %exact) : (memref<32x32xf32>, memref<32x32xf32>, f32) -> i32
    %x1 = func.call @errors(%ct, %want, %exact) : (memref<32x32xf32>, memref<32x32xf32>, f32) -> i32
    %x2 = func.call @errors(%got_h, %wanth, %exact) : (memref<32x32xf32>, memref<32x32xf32>, f32) -> i32
    func.call @report(%e0, %x0, %c0) : (i32, i32, index) -> ()
    func.call @report(%e1, %x1, %c1) : (i32, i32, index) -> ()
    func.call @report(%e2, %x2, %c2) : (i32, i32, index) -> ()
    %s0 = arith.addi %e0, %e1 : i32
    %s1 = arith.addi %s0, %e2 : i32
    return %s1 : i32
  }
}
