// RUN: symm-opt %s -split-input-file -symm-convert-gpu-to-host -verify-diagnostics

gpu.module @m {
  gpu.func @k(%v: i32) kernel {
    // expected-error @+1 {{needs `uniform` on the CPU target (and on GPUs): every thread of the block must reach it}}
    %r = gpu.all_reduce add %v {} : (i32) -> (i32)
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%v: i32) kernel {
    // expected-error @+1 {{with a region of several blocks has no lowering for the CPU target}}
    %r = gpu.all_reduce %v uniform {
    ^bb0(%lhs: i32, %rhs: i32):
      %c = arith.cmpi slt, %lhs, %rhs : i32
      cf.cond_br %c, ^a, ^b
    ^a:
      gpu.yield %lhs : i32
    ^b:
      gpu.yield %rhs : i32
    } : (i32) -> (i32)
    gpu.return
  }
}
