// A user's device library of one function (library.mlir links it).
gpu.module @user_library {
  func.func @user_scale(%x: f32) -> f32 {
    %k = arith.constant 2.5 : f32
    %y = arith.mulf %x, %k : f32
    return %y : f32
  }
}
