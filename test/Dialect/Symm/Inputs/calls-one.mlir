// A kernel that calls @symm_t_one, for link-library-errors.mlir's broken
// libraries.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @symm_t_one() -> f32
    gpu.func @k(%out: memref<1xf32>) kernel {
      %c0 = arith.constant 0 : index
      %y = func.call @symm_t_one() : () -> f32
      memref.store %y, %out[%c0] : memref<1xf32>
      gpu.return
    }
  }
}
