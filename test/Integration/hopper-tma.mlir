// nvgpu TMA loads and stores with mbarriers on every rank: three 128x64 f16
// boxes of a 192x120 tensor, described for 128-byte swizzling, are loaded
// into workgroup memory one after the other through one mbarrier (phases 0,
// 1, 0): one inside the tensor, one that overhangs its right and bottom
// edges and one at negative coordinates. Each box is stored by TMA at (0, 0)
// of a zeroed tensor of its own, and box 1 also back where it came from in
// another; the host checks every element of the four: the source where the
// box was inside the tensor, zeros where it was not (oob = zero), zeros
// where nothing was stored. Box 2 is loaded a second time through a
// descriptor with oob = nan, which fills with NaNs instead. Loads and stores
// swizzle alike on GPUs (the CPU target does neither), so the check holds on
// every backend.
// RUN: %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] box 0 at (0, 0): wrong elements: 0
// CHECK-DAG: [rank 0] box 1 at (64, 96): wrong elements: 0
// CHECK-DAG: [rank 0] box 2 at (-8, -4): wrong elements: 0
// CHECK-DAG: [rank 0] box 1 stored in place: wrong elements: 0
// CHECK-DAG: [rank 0] box 2 filled with NaNs: wrong elements: 0
// CHECK-DAG: [rank 1] box 0 at (0, 0): wrong elements: 0
// CHECK-DAG: [rank 1] box 1 at (64, 96): wrong elements: 0
// CHECK-DAG: [rank 1] box 2 at (-8, -4): wrong elements: 0
// CHECK-DAG: [rank 1] box 1 stored in place: wrong elements: 0
// CHECK-DAG: [rank 1] box 2 filled with NaNs: wrong elements: 0
!barrier = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!map = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!nanmap = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = nan, interleave = none>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Thread 0 loads box k at coords[k] (innermost first), and stores it at
    // (0, 0) through outs[k] and, for box 1, at coords[1] through back;
    // then loads box 2 again through nan and stores it through outnan.
    gpu.func @copy(%map: !map, %out0: !map, %out1: !map, %out2: !map,
                   %back: !map, %nan: !nanmap, %outnan: !map,
                   %coords: memref<3x2xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %bytes = arith.constant 16384 : index
      %ticks = arith.constant 10000000 : index
      %t = gpu.thread_id x
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
        // Every thread waits for phase k: parity k mod 2.
        %kp = arith.remui %k, %c2 : index
        %parity = arith.index_cast %kp : index to i1
        nvgpu.mbarrier.try_wait.parity %bar[%c0], %parity, %ticks : !barrier
        scf.if %first {
          scf.index_switch %k
          case 0 {
            nvgpu.tma.async.store %box to %out0[%c0, %c0] : memref<128x64xf16, #gpu.address_space<workgroup>> -> !map
            scf.yield
          }
          case 1 {
            nvgpu.tma.async.store %box to %out1[%c0, %c0] : memref<128x64xf16, #gpu.address_space<workgroup>> -> !map
            nvgpu.tma.async.store %box to %back[%x, %y] : memref<128x64xf16, #gpu.address_space<workgroup>> -> !map
            scf.yield
          }
          default {
            nvgpu.tma.async.store %box to %out2[%c0, %c0] : memref<128x64xf16, #gpu.address_space<workgroup>> -> !map
          }
          nvvm.cp.async.bulk.commit.group
          nvvm.cp.async.bulk.wait_group 0 {read}
        }
        // Nobody loads the next box before the stores have read this one.
        gpu.barrier
      }
      %x2 = memref.load %coords[%c2, %c0] : memref<3x2xi32>
      %y2 = memref.load %coords[%c2, %c1] : memref<3x2xi32>
      %x = arith.index_cast %x2 : i32 to index
      %y = arith.index_cast %y2 : i32 to index
      scf.if %first {
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !barrier
        nvgpu.tma.async.load %nan[%x, %y], %bar[%c0] to %box : !nanmap, !barrier -> memref<128x64xf16, #gpu.address_space<workgroup>>
      }
      %odd = arith.constant true
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %odd, %ticks : !barrier
      scf.if %first {
        nvgpu.tma.async.store %box to %outnan[%c0, %c0] : memref<128x64xf16, #gpu.address_space<workgroup>> -> !map
        nvvm.cp.async.bulk.commit.group
        nvvm.cp.async.bulk.wait_group 0 {read}
      }
      gpu.return
    }
  }

  // Box coordinates, innermost (column) first.
  memref.global "private" constant @coords : memref<3x2xi32> = dense<[[0, 0], [64, 96], [-8, -4]]>

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

  func.func @zeroed() -> memref<192x120xf16> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c120 = arith.constant 120 : index
    %c192 = arith.constant 192 : index
    %zero = arith.constant 0.0 : f16
    %t = gpu.alloc host_shared () : memref<192x120xf16>
    scf.for %i = %c0 to %c192 step %c1 {
      scf.for %j = %c0 to %c120 step %c1 {
        memref.store %zero, %t[%i, %j] : memref<192x120xf16>
      }
    }
    return %t : memref<192x120xf16>
  }

  // The elements of `got` that differ from what a box of `src` at (x, y)
  // stored at (sx, sy) leaves in a zeroed tensor, the box's elements outside
  // `src` zeros or (`nan`) NaNs.
  func.func @wrong(%got: memref<192x120xf16>, %src: memref<192x120xf16>,
                   %x: index, %y: index, %sx: index, %sy: index, %nan: i1) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c120 = arith.constant 120 : index
    %c128 = arith.constant 128 : index
    %c192 = arith.constant 192 : index
    %zero = arith.constant 0.0 : f16
    %one = arith.constant 1 : i32
    %zi = arith.constant 0 : i32
    %true = arith.constant true
    %w = scf.for %i = %c0 to %c192 step %c1 iter_args(%e0 = %zi) -> (i32) {
      %wi = scf.for %j = %c0 to %c120 step %c1 iter_args(%e1 = %e0) -> (i32) {
        // Box element (r, c), if (i, j) is one: the source element at
        // (y + r, x + c), if that is inside the source.
        %r = arith.subi %i, %sy : index
        %c = arith.subi %j, %sx : index
        %si = arith.addi %y, %r : index
        %sj = arith.addi %x, %c : index
        %r0 = arith.cmpi sge, %r, %c0 : index
        %r1 = arith.cmpi slt, %r, %c128 : index
        %q0 = arith.cmpi sge, %c, %c0 : index
        %q1 = arith.cmpi slt, %c, %c64 : index
        %i0 = arith.cmpi sge, %si, %c0 : index
        %i1 = arith.cmpi slt, %si, %c192 : index
        %j0 = arith.cmpi sge, %sj, %c0 : index
        %j1 = arith.cmpi slt, %sj, %c120 : index
        %a0 = arith.andi %r0, %r1 : i1
        %a1 = arith.andi %q0, %q1 : i1
        %a2 = arith.andi %i0, %i1 : i1
        %a3 = arith.andi %j0, %j1 : i1
        %b0 = arith.andi %a0, %a1 : i1
        %b1 = arith.andi %a2, %a3 : i1
        %in = arith.andi %b0, %b1 : i1
        %want = scf.if %in -> f16 {
          %v = memref.load %src[%si, %sj] : memref<192x120xf16>
          scf.yield %v : f16
        } else {
          scf.yield %zero : f16
        }
        %out = arith.xori %b1, %true : i1
        %filled = arith.andi %b0, %out : i1
        %wantnan = arith.andi %filled, %nan : i1
        %g = memref.load %got[%i, %j] : memref<192x120xf16>
        %isnan = arith.cmpf uno, %g, %g : f16
        %differs = arith.cmpf une, %g, %want : f16
        %notnan = arith.xori %isnan, %true : i1
        %bad = arith.select %wantnan, %notnan, %differs : i1
        %inc = arith.select %bad, %one, %zi : i32
        %e2 = arith.addi %e1, %inc : i32
        scf.yield %e2 : i32
      }
      scf.yield %wi : i32
    }
    return %w : i32
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c64 = arith.constant 64 : index
    %c120 = arith.constant 120 : index
    %c128 = arith.constant 128 : index
    %c96 = arith.constant 96 : index
    %c192 = arith.constant 192 : index
    %smem = arith.constant 16384 : i32
    %false = arith.constant false
    %rank32 = symm.rank : i32
    %rank = arith.index_cast %rank32 : i32 to index
    %tensor = gpu.alloc host_shared () : memref<192x120xf16>
    scf.for %i = %c0 to %c192 step %c1 {
      scf.for %j = %c0 to %c120 step %c1 {
        %v = func.call @value(%i, %j, %rank) : (index, index, index) -> f16
        memref.store %v, %tensor[%i, %j] : memref<192x120xf16>
      }
    }
    %coords = gpu.alloc host_shared () : memref<3x2xi32>
    %all = memref.get_global @coords : memref<3x2xi32>
    scf.for %k = %c0 to %c3 step %c1 {
      scf.for %d = %c0 to %c2 step %c1 {
        %v = memref.load %all[%k, %d] : memref<3x2xi32>
        memref.store %v, %coords[%k, %d] : memref<3x2xi32>
      }
    }
    %o0 = func.call @zeroed() : () -> memref<192x120xf16>
    %o1 = func.call @zeroed() : () -> memref<192x120xf16>
    %o2 = func.call @zeroed() : () -> memref<192x120xf16>
    %ob = func.call @zeroed() : () -> memref<192x120xf16>
    %on = func.call @zeroed() : () -> memref<192x120xf16>
    %u = memref.cast %tensor : memref<192x120xf16> to memref<*xf16>
    %u0 = memref.cast %o0 : memref<192x120xf16> to memref<*xf16>
    %u1 = memref.cast %o1 : memref<192x120xf16> to memref<*xf16>
    %u2 = memref.cast %o2 : memref<192x120xf16> to memref<*xf16>
    %ub = memref.cast %ob : memref<192x120xf16> to memref<*xf16>
    %un = memref.cast %on : memref<192x120xf16> to memref<*xf16>
    %map = nvgpu.tma.create.descriptor %u box[%c128, %c64] : memref<*xf16> -> !map
    %m0 = nvgpu.tma.create.descriptor %u0 box[%c128, %c64] : memref<*xf16> -> !map
    %m1 = nvgpu.tma.create.descriptor %u1 box[%c128, %c64] : memref<*xf16> -> !map
    %m2 = nvgpu.tma.create.descriptor %u2 box[%c128, %c64] : memref<*xf16> -> !map
    %mb = nvgpu.tma.create.descriptor %ub box[%c128, %c64] : memref<*xf16> -> !map
    %nan = nvgpu.tma.create.descriptor %u box[%c128, %c64] : memref<*xf16> -> !nanmap
    %mn = nvgpu.tma.create.descriptor %un box[%c128, %c64] : memref<*xf16> -> !map
    gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%map : !map, %m0 : !map, %m1 : !map, %m2 : !map, %mb : !map,
             %nan : !nanmap, %mn : !map, %coords : memref<3x2xi32>)
    gpu.wait
    %total = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %rank32) -> (i32) {
      %x32 = memref.load %coords[%k, %c0] : memref<3x2xi32>
      %y32 = memref.load %coords[%k, %c1] : memref<3x2xi32>
      %x = arith.index_cast %x32 : i32 to index
      %y = arith.index_cast %y32 : i32 to index
      %got = scf.index_switch %k -> memref<192x120xf16>
      case 0 { scf.yield %o0 : memref<192x120xf16> }
      case 1 { scf.yield %o1 : memref<192x120xf16> }
      default { scf.yield %o2 : memref<192x120xf16> }
      %e = func.call @wrong(%got, %tensor, %x, %y, %c0, %c0, %false) : (memref<192x120xf16>, memref<192x120xf16>, index, index, index, index, i1) -> i32
      %k32 = arith.index_cast %k : index to i32
      vector.print str "box "
      vector.print %k32 : i32 punctuation <no_punctuation>
      vector.print str " at ("
      vector.print %x32 : i32 punctuation <no_punctuation>
      vector.print str ", "
      vector.print %y32 : i32 punctuation <no_punctuation>
      vector.print str "): wrong elements: "
      vector.print %e : i32
      %s = arith.addi %acc, %e : i32
      scf.yield %s : i32
    }
    %eb = func.call @wrong(%ob, %tensor, %c64, %c96, %c64, %c96, %false) : (memref<192x120xf16>, memref<192x120xf16>, index, index, index, index, i1) -> i32
    vector.print str "box 1 stored in place: wrong elements: "
    vector.print %eb : i32
    %m8 = arith.constant -8 : index
    %m4 = arith.constant -4 : index
    %true = arith.constant true
    %en = func.call @wrong(%on, %tensor, %m8, %m4, %c0, %c0, %true) : (memref<192x120xf16>, memref<192x120xf16>, index, index, index, index, i1) -> i32
    vector.print str "box 2 filled with NaNs: wrong elements: "
    vector.print %en : i32
    %loaded = arith.subi %total, %rank32 : i32
    %stored = arith.addi %loaded, %eb : i32
    %result = arith.addi %stored, %en : i32
    return %result : i32
  }
}
