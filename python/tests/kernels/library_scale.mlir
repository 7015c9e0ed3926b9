// A user's own device library for test_compile.py: @symm_py_twice doubles a
// value and counts on the built-in library being searched too (it uses
// nothing from it).
gpu.module @py_library {
  func.func @symm_py_twice(%x: f32) -> f32 {
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
}
