// Defines @symm_t_one again: a library with library-b.mlir is an error.
gpu.module @library_dup {
  func.func @symm_t_one() -> f32 {
    %one = arith.constant 1.0 : f32
    return %one : f32
  }
}
