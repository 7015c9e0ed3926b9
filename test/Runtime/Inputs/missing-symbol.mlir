// A kernel that calls a function nothing defines: its host shared object
// cannot be loaded.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func private @test_undefined_function(i32)
    gpu.func @k() kernel {
      %c = arith.constant 1 : i32
      func.call @test_undefined_function(%c) : (i32) -> ()
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
