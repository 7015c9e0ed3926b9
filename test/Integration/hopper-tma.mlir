// nvgpu TMA loads and mbarriers on every rank: three 128x64 f16 boxes of a
// 192x120 tensor, described for 128-byte swizzling, are loaded into
// workgroup memory one after the other through one mbarrier (phases 0, 1,
// 0): one inside the tensor, one that overhangs its right and bottom edges
// and one at negative coordinates. Every thread checks its share of each box
// element by element against the tensor, with zeros outside it (oob=zero);
// on the CPU target the box lands unswizzled, row-major. Box 1 is then
// stored by TMA into a zeroed tensor, which must hold exactly its in-bounds
// part.
// RUN: %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] box 0 (0, 0): wrong elements: 0
// CHECK-DAG: [rank 0] box 1 (64, 96): wrong elements: 0
// CHECK-DAG: [rank 0] box 2 (-8, -4): wrong elements: 0
// CHECK-DAG: [rank 1] box 0 (0, 0): wrong elements: 0
// CHECK-DAG: [rank 1] box 1 (64, 96): wrong elements: 0
// CHECK-DAG: [rank 1] box 2 (-8, -4): wrong elements: 0
// CHECK-DAG: [rank 0] stored box 1: wrong elements: 0
// CHECK-DAG: [rank 1] stored box 1: wrong elements: 0
!barrier = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // T[i][j] = (7i + 3j) mod 1024 + 1 + rank: never zero, exact in f16.
    func.func @value(%i: index, %j: index, %rank: index) -> f16 {
      %c3 = arith.constant 3 : index
      %c7 = arith.constant 7 : index
      %c1 = arith.constant 1 : index
      %c1024 = arith.constant 1024 : index
      %a = arith.muli %i, %c7 : index
      %b = arith.muli %j, %c3 : index
      %s = arith.addi %a, %b : index
      %m = arith.remui %s, %c1024 : index
      %v = arith.addi %m, %c1 : index
      %w = arith.addi %v, %rank : index
      %x = arith.index_cast %w : index to i32
      %f = arith.sitofp %x : i32 to f16
      return %f : f16
    }

    gpu.func @load(%map: !map, %out: !map, %coords: memref<3x2xi32>,
                   %errors: memref<3xi32>, %rank: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %c120 = arith.constant 120 : index
      %c192 = arith.constant 192 : index
      %c8192 = arith.constant 8192 : index
      %bytes = arith.constant 16384 : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0.0 : f16
      %t = gpu.thread_id x
      %n = gpu.block_dim x
      %first = arith.cmpi eq, %t, %c0 : index
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %box = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
      %bar = nvgpu.mbarrier.create -> !barrier
      nvgpu.mbarrier.init %bar[%c0], %c1, predicate = %first : !barrier
      gpu.barrier
      scf.for %k = %c0 to %c3 step %c1 {
        %x32 = memref.load %coords[%k, %c0] : memref<3x2xi32>
        %y32 = memref.load %coords[%k, %c1] : memref<3x2xi32>
        %x = arith.index_cast %x32 : i32 to index
        %y = arith.index_cast %y32 : i32 to index
        scf.if %first {
          nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !barrier
          nvgpu.tma.async.load %map[%x, %y], %bar[%c0] to %box : !map, !barrier -> memref<128x64xf16, #gpu.address_space<workgroup>>
        }
        %kp = arith.remui %k, %c2 : index
        %parity = arith.index_cast %kp : index to i1
        %ticks = arith.constant 10000000 : index
        nvgpu.mbarrier.try_wait.parity %bar[%c0], %parity, %ticks : !barrier
        scf.for %e = %t to %c8192 step %n {
          %r = arith.divui %e, %c64 : index
          %c = arith.remui %e, %c64 : index
          %gi = arith.addi %y, %r : index
          %gj = arith.addi %x, %c : index
          %gi32 = arith.index_cast %gi : index to i32
          %gj32 = arith.index_cast %gj : index to i32
          %zi = arith.constant 0 : i32
          %rows = arith.constant 192 : i32
          %cols = arith.constant 120 : i32
          %i0 = arith.cmpi sge, %gi32, %zi : i32
          %i1 = arith.cmpi slt, %gi32, %rows : i32
          %j0 = arith.cmpi sge, %gj32, %zi : i32
          %j1 = arith.cmpi slt, %gj32, %cols : i32
          %ii = arith.andi %i0, %i1 : i1
          %jj = arith.andi %j0, %j1 : i1
          %in = arith.andi %ii, %jj : i1
          %want = scf.if %in -> f16 {
            %v = func.call @value(%gi, %gj, %rank) : (index, index, index) -> f16
            scf.yield %v : f16
          } else {
            scf.yield %zero : f16
          }
          %got = memref.load %box[%r, %c] : memref<128x64xf16, #gpu.address_space<workgroup>>
          %bad = arith.cmpf une, %got, %want : f16
          scf.if %bad {
            memref.atomic_rmw addi %one, %errors[%k] : (i32, memref<3xi32>) -> i32
          }
        }
        %is1 = arith.cmpi eq, %k, %c1 : index
        %store = arith.andi %first, %is1 : i1
        scf.if %store {
          nvgpu.tma.async.store %box to %out[%x, %y] : memref<128x64xf16, #gpu.address_space<workgroup>> -> !map
        }
        // Nobody loads the next box before every thread has checked this one.
        gpu.barrier
      }
      gpu.return
    }
  }

  // Box coordinates, innermost (column) first.
  memref.global "private" constant @coords : memref<3x2xi32> = dense<[[0, 0], [64, 96], [-8, -4]]>

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c64 = arith.constant 64 : index
    %c120 = arith.constant 120 : index
    %c128 = arith.constant 128 : index
    %c192 = arith.constant 192 : index
    %smem = arith.constant 16384 : i32
    %rank32 = symm.rank : i32
    %rank = arith.index_cast %rank32 : i32 to index
    %tensor = gpu.alloc host_shared () : memref<192x120xf16>
    scf.for %i = %c0 to %c192 step %c1 {
      scf.for %j = %c0 to %c120 step %c1 {
        %v = func.call @host_value(%i, %j, %rank) : (index, index, index) -> f16
        memref.store %v, %tensor[%i, %j] : memref<192x120xf16>
      }
    }
    %coords = gpu.alloc host_shared () : memref<3x2xi32>
    %errors = gpu.alloc host_shared () : memref<3xi32>
    %all = memref.get_global @coords : memref<3x2xi32>
    scf.for %k = %c0 to %c3 step %c1 {
      %z = arith.constant 0 : i32
      memref.store %z, %errors[%k] : memref<3xi32>
      scf.for %d = %c0 to %c2 step %c1 {
        %v = memref.load %all[%k, %d] : memref<3x2xi32>
        memref.store %v, %coords[%k, %d] : memref<3x2xi32>
      }
    }
    %unranked = memref.cast %tensor : memref<192x120xf16> to memref<*xf16>
    %map = nvgpu.tma.create.descriptor %unranked box[%c128, %c64] : memref<*xf16> -> !map
    %stored = gpu.alloc host_shared () : memref<192x120xf16>
    %zero = arith.constant 0.0 : f16
    scf.for %i = %c0 to %c192 step %c1 {
      scf.for %j = %c0 to %c120 step %c1 {
        memref.store %zero, %stored[%i, %j] : memref<192x120xf16>
      }
    }
    %ustored = memref.cast %stored : memref<192x120xf16> to memref<*xf16>
    %out = nvgpu.tma.create.descriptor %ustored box[%c128, %c64] : memref<*xf16> -> !map
    gpu.launch_func @kernels::@load blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%map : !map, %out : !map, %coords : memref<3x2xi32>, %errors : memref<3xi32>, %rank : index)
    gpu.wait
    %total = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %rank32) -> (i32) {
      %e = memref.load %errors[%k] : memref<3xi32>
      %x = memref.load %coords[%k, %c0] : memref<3x2xi32>
      %y = memref.load %coords[%k, %c1] : memref<3x2xi32>
      %k32 = arith.index_cast %k : index to i32
      vector.print str "box "
      vector.print %k32 : i32 punctuation <no_punctuation>
      vector.print str " ("
      vector.print %x : i32 punctuation <no_punctuation>
      vector.print str ", "
      vector.print %y : i32 punctuation <no_punctuation>
      vector.print str "): wrong elements: "
      vector.print %e : i32
      %s = arith.addi %acc, %e : i32
      scf.yield %s : i32
    }
    // Box 1 covers rows 96.. and columns 64.. of the tensor.
    %c96 = arith.constant 96 : index
    %one = arith.constant 1 : i32
    %zi = arith.constant 0 : i32
    %wrong = scf.for %i = %c0 to %c192 step %c1 iter_args(%e0 = %zi) -> (i32) {
      %ei = scf.for %j = %c0 to %c120 step %c1 iter_args(%e1 = %e0) -> (i32) {
        %ri = arith.cmpi uge, %i, %c96 : index
        %rj = arith.cmpi uge, %j, %c64 : index
        %in = arith.andi %ri, %rj : i1
        %t = memref.load %tensor[%i, %j] : memref<192x120xf16>
        %want = arith.select %in, %t, %zero : f16
        %got = memref.load %stored[%i, %j] : memref<192x120xf16>
        %bad = arith.cmpf une, %got, %want : f16
        %inc = arith.select %bad, %one, %zi : i32
        %e2 = arith.addi %e1, %inc : i32
        scf.yield %e2 : i32
      }
      scf.yield %ei : i32
    }
    vector.print str "stored box 1: wrong elements: "
    vector.print %wrong : i32
    %loaded = arith.subi %total, %rank32 : i32
    %result = arith.addi %loaded, %wrong : i32
    return %result : i32
  }

  func.func @host_value(%i: index, %j: index, %rank: index) -> f16 {
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c1 = arith.constant 1 : index
    %c1024 = arith.constant 1024 : index
    %a = arith.muli %i, %c7 : index
    %b = arith.muli %j, %c3 : index
    %s = arith.addi %a, %b : index
    %m = arith.remui %s, %c1024 : index
    %v = arith.addi %m, %c1 : index
    %w = arith.addi %v, %rank : index
    %x = arith.index_cast %w : index to i32
    %f = arith.sitofp %x : i32 to f16
    return %f : f16
  }
}
