// The second file of link-library.mlir's library.
gpu.module @library_b {
  func.func @symm_t_one() -> f32 {
    %one = arith.constant 1.0 : f32
    return %one : f32
  }
}
