// A bf16 value kept in a register across blocks (here stored in every
// iteration of a loop) makes LLVM's x86-64 backend call __truncsfbf2, which
// libgcc 12 lacks; the runtime provides it, so the module loads and rounds to
// nearest even (1 + 2^-8 is a tie and rounds down to 1; 1 + 3*2^-8 rounds up).
// RUN: %symm_run -n 2 %s | FileCheck %s
// CHECK-DAG: [rank 0] bf16 registers ok
// CHECK-DAG: [rank 1] bf16 registers ok
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @spread(%x: memref<2xf32>, %y: memref<8xbf16>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<2xf32>
      %b = arith.truncf %v : f32 to bf16
      %base = arith.muli %t, %c4 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %at = arith.addi %base, %i : index
        memref.store %b, %y[%at] : memref<8xbf16>
      }
      gpu.return
    }
  }
  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %x = gpu.alloc host_shared () : memref<2xf32>
    %y = gpu.alloc host_shared () : memref<8xbf16>
    %tie = arith.constant 1.00390625 : f32
    %up = arith.constant 1.01171875 : f32
    memref.store %tie, %x[%c0] : memref<2xf32>
    memref.store %up, %x[%c1] : memref<2xf32>
    gpu.launch_func @kernels::@spread blocks in (%c1, %c1, %c1) threads in (%c2, %c1, %c1) args(%x : memref<2xf32>, %y : memref<8xbf16>)
    gpu.wait
    // bf16 bits: 1.0 is 0x3F80, 1 + 2^-6 is 0x3F82.
    %one = arith.constant 16256 : i16
    %next = arith.constant 16258 : i16
    %zero = arith.constant 0 : i32
    %c4 = arith.constant 4 : index
    %bad = scf.for %i = %c0 to %c8 step %c1 iter_args(%e = %zero) -> (i32) {
      %v = memref.load %y[%i] : memref<8xbf16>
      %bits = arith.bitcast %v : bf16 to i16
      %second = arith.cmpi uge, %i, %c4 : index
      %want = arith.select %second, %next, %one : i16
      %wrong = arith.cmpi ne, %bits, %want : i16
      %w = arith.extui %wrong : i1 to i32
      %e1 = arith.addi %e, %w : i32
      scf.yield %e1 : i32
    }
    %ok = arith.cmpi eq, %bad, %zero : i32
    scf.if %ok {
      vector.print str "bf16 registers ok\n"
    } else {
      vector.print str "bf16 registers FAILED: "
      vector.print %bad : i32
    }
    return %bad : i32
  }
}
