// gpu.shuffle and workgroup memory in a reduction: each rank sums 1..64 plus
// its rank offset over two 32-lane subgroups, combines the subgroup sums in
// workgroup memory, and stores the result into rank 0's table.
// RUN: %symm_run -n 2 %s | FileCheck %s
// RUN: %symm_run -n 4 %s | FileCheck %s
// CHECK: [rank 0] reduction ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reduce(%table: memref<64xi32, #symm.heap>) workgroup(%partial: memref<2xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %width = arith.constant 32 : i32
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %one = arith.constant 1 : i32
      %me = symm.rank : i32
      %c1000 = arith.constant 1000 : i32
      %off = arith.muli %me, %c1000 : i32
      %v0 = arith.addi %ti, %one : i32
      %v = arith.addi %v0, %off : i32
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %s16, %p16 = gpu.shuffle xor %v, %o16, %width : i32
      %a16 = arith.addi %v, %s16 : i32
      %s8, %p8 = gpu.shuffle xor %a16, %o8, %width : i32
      %a8 = arith.addi %a16, %s8 : i32
      %s4, %p4 = gpu.shuffle xor %a8, %o4, %width : i32
      %a4 = arith.addi %a8, %s4 : i32
      %s2, %p2 = gpu.shuffle xor %a4, %o2, %width : i32
      %a2 = arith.addi %a4, %s2 : i32
      %s1, %p1 = gpu.shuffle down %a2, %one, %width : i32
      %a1 = arith.addi %a2, %s1 : i32
      %lane = arith.remui %t, %c32 : index
      %warp = arith.divui %t, %c32 : index
      %leader = arith.cmpi eq, %lane, %c0 : index
      scf.if %leader {
        memref.store %a1, %partial[%warp] : memref<2xi32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        %x = memref.load %partial[%c0] : memref<2xi32, #gpu.address_space<workgroup>>
        %y = memref.load %partial[%c1] : memref<2xi32, #gpu.address_space<workgroup>>
        %sum = arith.addi %x, %y : i32
        %root = arith.constant 0 : i32
        %slot = arith.index_cast %me : i32 to index
        symm.store %sum, %table[%slot] to %root : i32 -> memref<64xi32, #symm.heap>
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %table = symm.alloc() : memref<64xi32, #symm.heap>
    symm.barrier
    gpu.launch_func @kernels::@reduce blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%table : memref<64xi32, #symm.heap>)
    symm.barrier
    %zero = arith.constant 0 : i32
    %me = symm.rank : i32
    %isRoot = arith.cmpi eq, %me, %zero : i32
    %result = scf.if %isRoot -> (i32) {
      %host = gpu.alloc host_shared () : memref<64xi32>
      gpu.memcpy %host, %table : memref<64xi32>, memref<64xi32, #symm.heap>
      %n = symm.world_size : i32
      %nn = arith.index_cast %n : i32 to index
      %e = scf.for %r = %c0 to %nn step %c1 iter_args(%e0 = %zero) -> (i32) {
        %ri = arith.index_cast %r : index to i32
        // sum(1..64) + 64 * 1000 * r
        %base = arith.constant 2080 : i32
        %k = arith.constant 64000 : i32
        %extra = arith.muli %ri, %k : i32
        %want = arith.addi %base, %extra : i32
        %got = memref.load %host[%r] : memref<64xi32>
        %bad = arith.cmpi ne, %got, %want : i32
        %inc = arith.extui %bad : i1 to i32
        %e1 = arith.addi %e0, %inc : i32
        scf.yield %e1 : i32
      }
      %ok = arith.cmpi eq, %e, %zero : i32
      scf.if %ok {
        vector.print str "reduction ok\n"
      } else {
        vector.print str "reduction FAILED, wrong sums: "
        vector.print %e : i32
      }
      scf.yield %e : i32
    } else {
      scf.yield %zero : i32
    }
    symm.barrier
    return %result : i32
  }
}
