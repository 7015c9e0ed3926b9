// A device library for link-library.mlir: @symm_t_scale calls @symm_t_twice
// in the same file and @symm_t_one in library-b.mlir (declared here); a
// global and a function nobody calls.
gpu.module @library_a {
  func.func private @symm_t_one() -> f32
  memref.global "private" constant @symm_t_table : memref<2xf32> = dense<[1.0, 2.0]>
  func.func @symm_t_twice(%x: f32) -> f32 {
    %t = memref.get_global @symm_t_table : memref<2xf32>
    %c1 = arith.constant 1 : index
    %two = memref.load %t[%c1] : memref<2xf32>
    %y = arith.mulf %x, %two : f32
    return %y : f32
  }
  func.func @symm_t_scale(%x: f32) -> f32 {
    %y = func.call @symm_t_twice(%x) : (f32) -> f32
    %one = func.call @symm_t_one() : () -> f32
    %z = arith.addf %y, %one : f32
    return %z : f32
  }
  func.func @symm_t_unused() {
    return
  }
}
