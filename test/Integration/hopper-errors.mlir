// Misused mbarriers and warpgroup MMAs on the CPU target end the launch with
// one line naming the kernel, the thread and the cause, and the program
// exits non-zero; waits that cannot finish (a GPU would hang) are reported
// after SYMM_HOST_DEADLOCK_SECONDS without progress. Each RUN line picks a
// misuse by rewriting the `mode` constant of @main.
// REQUIRES: backend-host
// RUN: env SYMM_HOST_DEADLOCK_SECONDS=1 not %symm_run -n 2 %s 2>&1 | FileCheck %s --check-prefix=WAIT
// WAIT: [rank {{[01]}}] symm: synchronising a stream failed: rank {{[01]}}: kernel 'errors' thread (0, 0, 0) of block (0, 0, 0) waited 1.{{[0-9]}} s for phase parity 0 of an mbarrier that made no progress (0 of 1 arrivals and 64 transaction bytes pending; SYMM_HOST_DEADLOCK_SECONDS sets the limit)
// RUN: sed 's/constant 0 : index \/\/ mode/constant 1 : index/' %s > %t.1.mlir
// RUN: not %symm_run -n 1 %t.1.mlir 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: kernel 'errors' thread (0, 0, 0) of block (0, 0, 0): nvgpu.mbarrier.init with count 0; it must be 1 to 1048575
// RUN: sed 's/constant 0 : index \/\/ mode/constant 2 : index/' %s > %t.2.mlir
// RUN: not %symm_run -n 1 %t.2.mlir 2>&1 | FileCheck %s --check-prefix=ARRIVALS
// ARRIVALS: kernel 'errors' thread (0, 0, 0) of block (0, 0, 0) arrived 2 times on an mbarrier with 1 of 1 arrivals and 0 transaction bytes pending
// RUN: sed 's/constant 0 : index \/\/ mode/constant 3 : index/' %s > %t.3.mlir
// RUN: not %symm_run -n 1 %t.3.mlir 2>&1 | FileCheck %s --check-prefix=TX
// TX: kernel 'errors' thread (0, 0, 0) of block (0, 0, 0) took the mbarrier's transaction count to 2000000 bytes, beyond PTX's limit of 1048575
// RUN: sed 's/constant 0 : index \/\/ mode/constant 4 : index/' %s > %t.4.mlir
// RUN: env SYMM_HOST_DEADLOCK_SECONDS=1 not %symm_run -n 1 %t.4.mlir 2>&1 | FileCheck %s --check-prefix=WARPGROUP
// WARPGROUP: kernel 'errors' thread ({{[0-9]+}}, 0, 0) of block (0, 0, 0) waited 1.{{[0-9]}} s in a warpgroup operation for the other threads of its warpgroup (64 of 128 arrived; every thread of a warpgroup must execute it)
// RUN: sed 's/constant 0 : index \/\/ mode/constant 5 : index/' %s > %t.5.mlir
// RUN: env SYMM_HOST_MAX_THREADS=8192 not %symm_run -n 1 %t.5.mlir 2>&1 | FileCheck %s --check-prefix=LARGE
// LARGE: kernel 'errors' thread (4096, 0, 0) of block (0, 0, 0): warpgroup operations on the CPU target take blocks of up to 4096 threads
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!mapA = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!mapB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!descA = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!descB = !nvgpu.warpgroup.descriptor<tensor = memref<64x64xf16, #gpu.address_space<workgroup>>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x64xf32>>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @errors(%mode: index, %mapA: !mapA, %mapB: !mapB, %d: memref<64x64xf32>)
        workgroup(%a: memref<64x64xf16, #gpu.address_space<workgroup>>,
                  %b: memref<64x64xf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %c2000000 = arith.constant 2000000 : index
      %f = arith.constant false
      %ticks = arith.constant 1000 : index
      %t = gpu.thread_id x
      %bar = nvgpu.mbarrier.create -> !barriers
      scf.index_switch %mode
      case 0 {
        // The arrival comes, the 64 bytes it announces never do.
        nvgpu.mbarrier.init %bar[%c0], %c1 : !barriers
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %c64 : !barriers
        nvgpu.mbarrier.try_wait.parity %bar[%c0], %f, %ticks : !barriers
        scf.yield
      }
      case 1 {
        nvgpu.mbarrier.init %bar[%c0], %c0 : !barriers
        scf.yield
      }
      case 2 {
        nvgpu.mbarrier.init %bar[%c0], %c1 : !barriers
        %tok = nvgpu.mbarrier.arrive.nocomplete %bar[%c0], %c2 : !barriers -> !nvgpu.mbarrier.token
        scf.yield
      }
      case 3 {
        nvgpu.mbarrier.init %bar[%c0], %c1 : !barriers
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %c2000000 : !barriers
        scf.yield
      }
      default {
        // Mode 4: half the warpgroup; mode 5: every thread of a block too
        // large for the CPU target's warpgroup state.
        %half = arith.cmpi ult, %t, %c64 : index
        %c4 = arith.constant 4 : index
        %all = arith.cmpi ne, %mode, %c4 : index
        %go = arith.ori %half, %all : i1
        scf.if %go {
          %da = nvgpu.warpgroup.generate.descriptor %a, %mapA : memref<64x64xf16, #gpu.address_space<workgroup>>, !mapA -> !descA
          %db = nvgpu.warpgroup.generate.descriptor %b, %mapB : memref<64x64xf16, #gpu.address_space<workgroup>>, !mapB -> !descB
          %init = nvgpu.warpgroup.mma.init.accumulator -> !acc
          %r = nvgpu.warpgroup.mma %da, %db, %init {transposeB} : !descA, !descB, !acc -> !acc
          // Warpgroup 0's rows (upstream places warpgroup w's 64 rows
          // below).
          %c128 = arith.constant 128 : index
          %first = arith.cmpi ult, %t, %c128 : index
          scf.if %first {
            nvgpu.warpgroup.mma.store %r, %d : !acc to memref<64x64xf32>
          }
        }
      }
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %mode = arith.constant 0 : index // mode
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c128 = arith.constant 128 : index
    %c4224 = arith.constant 4224 : index
    %needs = arith.cmpi uge, %mode, %c4 : index
    %huge = arith.cmpi eq, %mode, %c5 : index
    %wide = arith.select %huge, %c4224, %c128 : index
    %threads = arith.select %needs, %wide, %c1 : index
    %tensor = gpu.alloc host_shared () : memref<64x64xf16>
    %d = gpu.alloc host_shared () : memref<64x64xf32>
    %u = memref.cast %tensor : memref<64x64xf16> to memref<*xf16>
    %mapA = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !mapA
    %mapB = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !mapB
    gpu.launch_func @kernels::@errors blocks in (%c1, %c1, %c1) threads in (%threads, %c1, %c1)
        args(%mode : index, %mapA : !mapA, %mapB : !mapB, %d : memref<64x64xf32>)
    gpu.wait
    return
  }
}
