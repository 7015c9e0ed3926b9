// C = A·B on Hopper (sm_90a): bf16 A (M x K, row-major) and B (K x N,
// row-major), f32 accumulation in warpgroup MMA registers, bf16 C (M x N,
// row-major). The kernel ABI is examples/gemm's (README): @gemm(A, B, C, M, N,
// K), then the two TMA descriptors the driver makes on the host: A's with a
// 128 x 64 box (rows x K) and B's with a 64 x 64 box, both bf16 with the
// 128-byte swizzle. Tiles are 128 x 256; M % 128 == 0, N % 256 == 0 and
// K % 64 == 0. Launch: any grid (block b computes tiles b, b + grid, ...),
// 384 threads, 197632 bytes of dynamic shared memory.
//
// The tile's main loop, its staging and its store are the device library's
// (library/gemm_hopper.mlir, which describes the pipeline); this kernel only
// hands out the tiles, in groups of 8 tile rows so that the workgroups
// running at once share A and B panels in L2.

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!epi = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @gemm_hopper {
  // The device library's Hopper GEMM tile (library/gemm_hopper.mlir).
  func.func private @symm_gemm_hopper_setup(!tmA, !tmB) -> (!barriers, index)
  func.func private @symm_gemm_tile_order(index, index, index) -> (index, index)
  func.func private @symm_gemm_hopper_mainloop(!tmA, !tmB, !barriers, index, index, index, index, index) -> !acc
  func.func private @symm_gemm_hopper_stage(!acc, index) -> !epi
  func.func private @symm_gemm_hopper_store(!epi, memref<?xbf16>, index, index, index)
  func.func private @symm_gemm_hopper_release()

  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xbf16>,
                 %m: index, %n: index, %k: index, %tmaA: !tmA, %tmaB: !tmB)
      kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %tilesM = arith.divui %m, %c128 : index
    %tilesN = arith.divui %n, %c256 : index
    %tiles = arith.muli %tilesM, %tilesN : index
    %kSteps = arith.divui %k, %c64 : index
    %bar, %ring = func.call @symm_gemm_hopper_setup(%tmaA, %tmaB) : (!tmA, !tmB) -> (!barriers, index)
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %stepsDone = scf.for %t = %bid to %tiles step %grid iter_args(%done = %c0) -> (index) {
      %tm, %tn = func.call @symm_gemm_tile_order(%t, %tilesM, %tilesN) : (index, index, index) -> (index, index)
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index
      %acc = func.call @symm_gemm_hopper_mainloop(%tmaA, %tmaB, %bar, %ring, %m0, %n0, %kSteps, %done)
          : (!tmA, !tmB, !barriers, index, index, index, index, index) -> !acc
      %epi = func.call @symm_gemm_hopper_stage(%acc, %ring) : (!acc, index) -> !epi
      func.call @symm_gemm_hopper_store(%epi, %c, %m0, %n0, %n) : (!epi, memref<?xbf16>, index, index, index) -> ()
      func.call @symm_gemm_hopper_release() : () -> ()
      %doneNext = arith.addi %done, %kSteps : index
      scf.yield %doneNext : index
    }
    gpu.return
  }
}
