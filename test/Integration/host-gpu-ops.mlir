// Every host-side GPU operation a whole program may use, synchronous and
// asynchronous: gpu.alloc with and without host_shared and with dynamic sizes,
// gpu.dealloc, gpu.memcpy, gpu.memset, gpu.wait and gpu.host_register. Each
// rank computes b[i] = a[i] * 2 + h[i] + rank on the device and checks it.
// RUN: %symm_run -n 2 %s | FileCheck %s
// The same program for the GPUs: host code calls the mgpu entry points.
// RUN: symm-compile --target=sm_90 --emit=mlir %s -o %t.nvvm.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.nvvm.mlir
// RUN: symm-compile --target=gfx942 --emit=mlir %s -o %t.rocdl.mlir
// RUN: FileCheck %s --check-prefix=GPU < %t.rocdl.mlir
// CHECK-DAG: [rank 0] host gpu ops ok
// CHECK-DAG: [rank 1] host gpu ops ok
// GPU-DAG: gpu.binary @kernels
// GPU-DAG: llvm.func @main
// GPU-DAG: llvm.call @mgpuMemHostRegisterMemRef
// GPU-DAG: llvm.call @mgpuMemAlloc
// GPU-DAG: llvm.call @mgpuMemset32
// GPU-DAG: llvm.call @mgpuMemcpy
// GPU-DAG: llvm.call @mgpuMemFree
// GPU-DAG: llvm.call @mgpuStreamSynchronize
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @combine(%a: memref<256xf32>, %b: memref<?xf32>, %h: memref<256xf32>, %r: f32) kernel {
      %i = gpu.thread_id x
      %x = memref.load %a[%i] : memref<256xf32>
      %y = memref.load %b[%i] : memref<?xf32>
      %z = memref.load %h[%i] : memref<256xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %p, %z : f32
      %t = arith.addf %s, %r : f32
      memref.store %t, %b[%i] : memref<?xf32>
      gpu.return
    }
  }

  // Counts the i < n where m[i] != i * 4 + rank.
  func.func @errors(%m: memref<?xf32>, %n: index, %r: f32) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %four = arith.constant 4.0 : f32
    %e = scf.for %i = %c0 to %n step %c1 iter_args(%e0 = %zero) -> (i32) {
      %ii = arith.index_cast %i : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %w0 = arith.mulf %fi, %four : f32
      %want = arith.addf %w0, %r : f32
      %got = memref.load %m[%i] : memref<?xf32>
      %bad = arith.cmpf une, %got, %want : f32
      %inc = arith.select %bad, %one, %zero : i32
      %e1 = arith.addi %e0, %inc : i32
      scf.yield %e1 : i32
    }
    return %e : i32
  }

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 256 : index
    %two = arith.constant 2.0 : f32
    %rank = symm.rank : i32
    %r = arith.sitofp %rank : i32 to f32

    // h[i] = i * 2 in registered host memory that the kernel reads.
    %host = memref.alloc() : memref<256xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %v = arith.mulf %fi, %two : f32
      memref.store %v, %host[%i] : memref<256xf32>
    }
    %unranked = memref.cast %host : memref<256xf32> to memref<*xf32>
    gpu.host_register %unranked : memref<*xf32>

    // Synchronous forms: a[i] = i copied from host memory, b[i] = 2.
    %halves = memref.alloc() : memref<256xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      memref.store %fi, %halves[%i] : memref<256xf32>
    }
    %a = gpu.alloc () : memref<256xf32>
    %b = gpu.alloc (%n) : memref<?xf32>
    gpu.memcpy %a, %halves : memref<256xf32>, memref<256xf32>
    gpu.memset %b, %two : memref<?xf32>, f32
    gpu.launch_func @kernels::@combine blocks in (%c1, %c1, %c1) threads in (%n, %c1, %c1) args(%a : memref<256xf32>, %b : memref<?xf32>, %host : memref<256xf32>, %r : f32)
    gpu.wait

    // Asynchronous forms: copy b into a host_shared buffer through a device
    // buffer, each step depending on the one before.
    %shared = gpu.alloc host_shared (%n) : memref<?xf32>
    %t0 = gpu.wait async
    %c, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %t2 = gpu.memcpy async [%t1] %c, %b : memref<?xf32>, memref<?xf32>
    %t3 = gpu.memcpy async [%t2] %shared, %c : memref<?xf32>, memref<?xf32>
    %t4 = gpu.dealloc async [%t3] %c : memref<?xf32>
    gpu.wait [%t4]

    %e = func.call @errors(%shared, %n, %r) : (memref<?xf32>, index, f32) -> i32
    %zero = arith.constant 0 : i32
    %ok = arith.cmpi eq, %e, %zero : i32
    scf.if %ok {
      vector.print str "host gpu ops ok\n"
    } else {
      vector.print str "host gpu ops FAILED, wrong elements: "
      vector.print %e : i32
    }
    gpu.dealloc %a : memref<256xf32>
    gpu.dealloc %b : memref<?xf32>
    gpu.dealloc %shared : memref<?xf32>
    memref.dealloc %halves : memref<256xf32>
    memref.dealloc %host : memref<256xf32>
    return %e : i32
  }
}
