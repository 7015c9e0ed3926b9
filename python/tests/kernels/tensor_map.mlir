// A kernel that takes a TMA descriptor (test_tensor_maps.py): it prefetches
// it, which the host target runs as a no-op; what is tested is the launch's
// check of the descriptor against the argument's type.
!tm = !nvgpu.tensormap.descriptor<tensor = memref<8x4xi32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!tm128 = !nvgpu.tensormap.descriptor<tensor = memref<16x64xi16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
gpu.module @tensor_map {
  gpu.func @prefetch(%x: memref<?xi32>, %d: !tm, %e: !tm128) kernel {
    nvgpu.tma.prefetch.descriptor %d : !tm
    nvgpu.tma.prefetch.descriptor %e : !tm128
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    memref.store %one, %x[%c0] : memref<?xi32>
    gpu.return
  }
}
