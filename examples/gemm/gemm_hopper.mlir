// C = A·B on Hopper (sm_90a): bf16 A (M x K, row-major) and B (K x N,
// row-major), f32 accumulation in warpgroup MMA registers, bf16 C (M x N,
// row-major). The kernel ABI is examples/gemm's (README): @gemm(A, B, C, M, N,
// K), then the two TMA descriptors the driver makes on the host (A's with a
// 128 x 64 box (rows x K) and B's with a 64 x 64 box, both bf16 with the
// 128-byte swizzle and zeros out of bounds), the f32 workspace, the split
// counters and the number S of K splits. Any M; N and K multiples of 8 (the
// rows of A and B are TMA strides, multiples of 16 bytes). Launch: any grid
// (block b computes units b, b + grid, ...), 384 threads, 197632 bytes of
// dynamic shared memory.
//
// Work comes in units: a 128 x 256 tile of C and one of S equal ranges of
// its K steps. S = 1 for large shapes; where the tiles are few the driver
// splits K so that more SMs work (examples/gemm/README.md). The main loop and
// the epilogue are the device library's (library/gemm_hopper.mlir, which
// describes the pipeline, the workspace and the counters); this kernel hands
// out the units, tiles in groups of 8 tile rows so that the workgroups
// running at once share A and B panels in L2.
//
// @gemm_staged is the same GEMM through the library's staged epilogue (the
// accumulators staged in the ring as f32, then stored by the consumers: the
// path a fused kernel takes to do its own thing with each element), for M a
// multiple of 128 and N of 256, without K splits: the driver's
// --kernel=hopper_staged, which keeps that path checked and timed beside.

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 10>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<64x256xf32>>
!flags = memref<2xi32, #gpu.address_space<workgroup>>
!epi = memref<128x256xf32, strided<[264, 1], offset: ?>, #gpu.address_space<workgroup>>

gpu.module @gemm_hopper {
  // The device library's Hopper GEMM tile (library/gemm_hopper.mlir).
  func.func private @symm_gemm_hopper_setup(!tmA, !tmB) -> (!barriers, index)
  func.func private @symm_gemm_tile_order(index, index, index) -> (index, index)
  func.func private @symm_gemm_split_unit(index, index, index) -> (index, index, index, index)
  func.func private @symm_gemm_hopper_mainloop_range(!tmA, !tmB, !barriers, index, index, index, index, index, index, index) -> !acc
  func.func private @symm_gemm_hopper_epilogue(!acc, !barriers, !flags, memref<?xbf16>, index, index, index, index, memref<?xf32>, memref<?xi32>, index, index, index)
  func.func private @symm_gemm_hopper_mainloop(!tmA, !tmB, !barriers, index, index, index, index, index) -> !acc
  func.func private @symm_gemm_hopper_stage(!acc, index) -> !epi
  func.func private @symm_gemm_hopper_store(!epi, memref<?xbf16>, index, index, index)
  func.func private @symm_gemm_hopper_release()

  gpu.func @gemm(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xbf16>,
                 %m: index, %n: index, %k: index, %tmaA: !tmA, %tmaB: !tmB,
                 %work: memref<?xf32>, %counts: memref<?xi32>, %splits: index)
      workgroup(%flags: !flags)
      kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %c127 = arith.constant 127 : index
    %c128 = arith.constant 128 : index
    %c255 = arith.constant 255 : index
    %c256 = arith.constant 256 : index
    %mUp = arith.addi %m, %c127 : index
    %tilesM = arith.divui %mUp, %c128 : index
    %nUp = arith.addi %n, %c255 : index
    %tilesN = arith.divui %nUp, %c256 : index
    %tiles = arith.muli %tilesM, %tilesN : index
    %units = arith.muli %tiles, %splits : index
    %kUp = arith.addi %k, %c63 : index
    %kSteps = arith.divui %kUp, %c64 : index
    %bar, %ring = func.call @symm_gemm_hopper_setup(%tmaA, %tmaB) : (!tmA, !tmB) -> (!barriers, index)
    %bid = gpu.block_id x
    %grid = gpu.grid_dim x
    %stepsDone = scf.for %u = %bid to %units step %grid iter_args(%done = %c0) -> (index) {
      %t, %split, %k0, %k1 = func.call @symm_gemm_split_unit(%u, %splits, %kSteps) : (index, index, index) -> (index, index, index, index)
      %tm, %tn = func.call @symm_gemm_tile_order(%t, %tilesM, %tilesN) : (index, index, index) -> (index, index)
      %m0 = arith.muli %tm, %c128 : index
      %n0 = arith.muli %tn, %c256 : index
      %rows = arith.subi %m, %m0 : index
      %acc = func.call @symm_gemm_hopper_mainloop_range(%tmaA, %tmaB, %bar, %ring, %m0, %n0, %k0, %k1, %done, %rows)
          : (!tmA, !tmB, !barriers, index, index, index, index, index, index, index) -> !acc
      func.call @symm_gemm_hopper_epilogue(%acc, %bar, %flags, %c, %m, %n, %m0, %n0, %work, %counts, %t, %split, %splits)
          : (!acc, !barriers, !flags, memref<?xbf16>, index, index, index, index, memref<?xf32>, memref<?xi32>, index, index, index) -> ()
      %steps = arith.subi %k1, %k0 : index
      %doneNext = arith.addi %done, %steps : index
      scf.yield %doneNext : index
    }
    gpu.return
  }

  gpu.func @gemm_staged(%a: memref<?xbf16>, %b: memref<?xbf16>, %c: memref<?xbf16>,
                        %m: index, %n: index, %k: index, %tmaA: !tmA, %tmaB: !tmB)
      kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %tilesM = arith.divui %m, %c128 : index
    %tilesN = arith.divui %n, %c256 : index
    %tiles = arith.muli %tilesM, %tilesN : index
    %kUp = arith.addi %k, %c63 : index
    %kSteps = arith.divui %kUp, %c64 : index
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
