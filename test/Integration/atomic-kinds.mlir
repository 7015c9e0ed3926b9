// The other atomic kinds, end to end: every thread of every rank applies fadd,
// fmax, max, min, or, xchg and sub to words on rank 0; rank 0 checks the
// results. (On NVIDIA, fmax is a compare-and-swap loop.)
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 3 %s | FileCheck %s
// CHECK: [rank 0] atomic kinds ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @apply(%f: memref<2xf32, #symm.heap>, %w: memref<5xi32, #symm.heap>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %root = arith.constant 0 : i32
      %t = gpu.thread_id x
      %me = symm.rank : i32
      %c100 = arith.constant 100 : i32
      %base = arith.muli %me, %c100 : i32
      %ti = arith.index_cast %t : index to i32
      %id = arith.addi %base, %ti : i32
      %half = arith.constant 0.5 : f32
      %one = arith.constant 1 : i32
      %bit = arith.shli %one, %ti : i32
      %a = symm.atomic_rmw fadd %half, %f[%c0] on %root ordering(relaxed) scope(system) : f32 -> memref<2xf32, #symm.heap>
      %idf = arith.sitofp %id : i32 to f32
      %fm = symm.atomic_rmw fmax %idf, %f[%c1] on %root ordering(acq_rel) scope(system) : f32 -> memref<2xf32, #symm.heap>
      %b = symm.atomic_rmw max %id, %w[%c0] on %root ordering(relaxed) scope(system) : i32 -> memref<5xi32, #symm.heap>
      %c = symm.atomic_rmw min %id, %w[%c1] on %root ordering(relaxed) scope(system) : i32 -> memref<5xi32, #symm.heap>
      %d = symm.atomic_rmw or %bit, %w[%c2] on %root ordering(release) scope(system) : i32 -> memref<5xi32, #symm.heap>
      %e = symm.atomic_rmw xchg %id, %w[%c3] on %root ordering(acq_rel) scope(system) : i32 -> memref<5xi32, #symm.heap>
      %g = symm.atomic_rmw sub %one, %w[%c4] on %root ordering(seq_cst) scope(system) : i32 -> memref<5xi32, #symm.heap>
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %f = symm.alloc() : memref<2xf32, #symm.heap>
    %w = symm.alloc() : memref<5xi32, #symm.heap>
    %hf = gpu.alloc host_shared () : memref<2xf32>
    %hw = gpu.alloc host_shared () : memref<5xi32>
    %zf = arith.constant 0.0 : f32
    memref.store %zf, %hf[%c0] : memref<2xf32>
    %minus = arith.constant -1.0 : f32
    memref.store %minus, %hf[%c1] : memref<2xf32>
    %init = arith.constant dense<[-1, 1000000, 0, 0, 0]> : vector<5xi32>
    vector.store %init, %hw[%c0] : memref<5xi32>, vector<5xi32>
    gpu.memcpy %f, %hf : memref<2xf32, #symm.heap>, memref<2xf32>
    gpu.memcpy %w, %hw : memref<5xi32, #symm.heap>, memref<5xi32>
    symm.barrier
    gpu.launch_func @kernels::@apply blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1) args(%f : memref<2xf32, #symm.heap>, %w : memref<5xi32, #symm.heap>)
    symm.barrier
    %zero = arith.constant 0 : i32
    %me = symm.rank : i32
    %isRoot = arith.cmpi eq, %me, %zero : i32
    %result = scf.if %isRoot -> (i32) {
      gpu.memcpy %hf, %f : memref<2xf32>, memref<2xf32, #symm.heap>
      gpu.memcpy %hw, %w : memref<5xi32>, memref<5xi32, #symm.heap>
      %n = symm.world_size : i32
      %sum = memref.load %hf[%c0] : memref<2xf32>
      %fmax = memref.load %hf[%c1] : memref<2xf32>
      %max = memref.load %hw[%c0] : memref<5xi32>
      %min = memref.load %hw[%c1] : memref<5xi32>
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %ors = memref.load %hw[%c2] : memref<5xi32>
      %x = memref.load %hw[%c3] : memref<5xi32>
      %subs = memref.load %hw[%c4] : memref<5xi32>
      // fadd: 16 threads x n ranks x 0.5; max: (n-1)*100+15; min 0;
      // or: 16 low bits; sub: -16n; xchg: some thread's id (< n*100).
      %n16 = arith.constant 16 : i32
      %threads = arith.muli %n, %n16 : i32
      %tf = arith.sitofp %threads : i32 to f32
      %half = arith.constant 0.5 : f32
      %wantSum = arith.mulf %tf, %half : f32
      %one = arith.constant 1 : i32
      %c100 = arith.constant 100 : i32
      %nm1 = arith.subi %n, %one : i32
      %top = arith.muli %nm1, %c100 : i32
      %c15 = arith.constant 15 : i32
      %wantMax = arith.addi %top, %c15 : i32
      %wantOr = arith.constant 65535 : i32
      %wantSub = arith.subi %zero, %threads : i32
      %limit = arith.muli %n, %c100 : i32
      %ok0 = arith.cmpf oeq, %sum, %wantSum : f32
      %ok1 = arith.cmpi eq, %max, %wantMax : i32
      %ok2 = arith.cmpi eq, %min, %zero : i32
      %ok3 = arith.cmpi eq, %ors, %wantOr : i32
      %ok4 = arith.cmpi ult, %x, %limit : i32
      %ok5a = arith.cmpi eq, %subs, %wantSub : i32
      %wantF = arith.sitofp %wantMax : i32 to f32
      %ok6 = arith.cmpf oeq, %fmax, %wantF : f32
      %ok5 = arith.andi %ok5a, %ok6 : i1
      %a = arith.andi %ok0, %ok1 : i1
      %b = arith.andi %a, %ok2 : i1
      %c = arith.andi %b, %ok3 : i1
      %d = arith.andi %c, %ok4 : i1
      %ok = arith.andi %d, %ok5 : i1
      %r = scf.if %ok -> (i32) {
        vector.print str "atomic kinds ok\n"
        scf.yield %zero : i32
      } else {
        vector.print str "atomic kinds FAILED\n"
        vector.print %sum : f32
        %all = vector.load %hw[%c0] : memref<5xi32>, vector<5xi32>
        vector.print %all : vector<5xi32>
        scf.yield %one : i32
      }
      scf.yield %r : i32
    } else {
      scf.yield %zero : i32
    }
    symm.barrier
    return %result : i32
  }
}
