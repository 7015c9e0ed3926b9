// A peer access outside the symmetric heap, for mlir-opt.mlir.
func.func @peer_on_non_heap(%m: memref<4xf32>, %i: index, %p: i32) -> f32 {
  %v = symm.load %m[%i] from %p : memref<4xf32> -> f32
  return %v : f32
}
